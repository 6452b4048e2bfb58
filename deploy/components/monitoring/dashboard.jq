# The one source of the Grafana dashboard deploy/components/monitoring/trimaran-scheduler.json.
# Render it with tools/render-grafana.sh (jq -n -f this file); the test
# MonitoringTest.GrafanaDashboardIsTheRenderedSource checks the committed JSON is its output,
# and e2e_metrics_list_test checks every metric queried here against a live /metrics.
#
# Conventions follow the kubernetes-mixin "Kubernetes / Scheduler" dashboard: a datasource
# variable, a hidden cluster variable, an instance variable with All = ".+", uid =
# md5(file name), time now-1h, refresh 10s, rates over $__rate_interval, legends as a table
# on the right with the last non-null value. Scheduler metrics are selected with
# job="trimaran-scheduler" (deploy/components/monitoring's PodMonitor sets it); the load
# watcher's come from the sidecar (job="trimaran-load-watcher") or, with an in-process
# watcher, from the scheduler itself, so they are selected with both jobs.

def sched: "job=\"trimaran-scheduler\", cluster=\"$cluster\", instance=~\"$instance\"";
def both: "job=~\"trimaran-scheduler|trimaran-load-watcher\", cluster=\"$cluster\", instance=~\"$instance\"";
def watcher: "job=~\"trimaran-scheduler|trimaran-load-watcher\", cluster=\"$cluster\"";
def rate_of($m; $sel): "rate(\($m){\($sel)}[$__rate_interval])";
def p99($m; $by; $sel): "histogram_quantile(0.99, sum by (le, \($by)) (rate(\($m)_bucket{\($sel)}[$__rate_interval])))";

def ds: {"type": "prometheus", "uid": "${datasource}"};
def target($expr; $legend): {"datasource": ds, "expr": $expr, "legendFormat": $legend, "interval": "1m"};

def row($title; $y): {"type": "row", "title": $title, "collapsed": false, "panels": [],
                      "gridPos": {"h": 1, "w": 24, "x": 0, "y": $y}};

def timeseries($title; $unit; $desc; $targets; $pos):
  {"type": "timeseries", "title": $title, "description": $desc, "datasource": ds,
   "gridPos": $pos,
   "fieldConfig": {"defaults": {"unit": $unit, "custom": {"fillOpacity": 10, "showPoints": "never"}},
                   "overrides": []},
   "options": {"legend": {"displayMode": "table", "placement": "right", "calcs": ["lastNotNull"]},
               "tooltip": {"mode": "multi", "sort": "desc"}},
   "targets": $targets};

def stat($title; $unit; $desc; $targets; $pos; $thresholds):
  {"type": "stat", "title": $title, "description": $desc, "datasource": ds, "gridPos": $pos,
   "fieldConfig": {"defaults": {"unit": $unit,
                                "thresholds": {"mode": "absolute", "steps": $thresholds}},
                   "overrides": []},
   "options": {"colorMode": "value", "graphMode": "area", "reduceOptions": {"calcs": ["lastNotNull"]}},
   "targets": $targets};

def pos($x; $y; $w; $h): {"x": $x, "y": $y, "w": $w, "h": $h};
def green_red($limit): [{"color": "green", "value": null}, {"color": "red", "value": $limit}];

def panels: [
  row("Health"; 0),
  stat("Up"; "none"; "Scheduler replicas Prometheus scrapes successfully.";
       [target("sum(up{\(sched)})"; "")]; pos(0; 1; 4; 7);
       [{"color": "red", "value": null}, {"color": "green", "value": 1}]),
  stat("Leader"; "none"; "Replicas scheduling now (holding the Lease); exactly 1 is healthy.";
       [target("sum(leader_election_master_status{\(sched)})"; "")]; pos(0; 8; 4; 7);
       [{"color": "red", "value": null}, {"color": "green", "value": 1}, {"color": "red", "value": 2}]),
  timeseries("Scheduling rate"; "ops";
       "Scheduling attempts per second by result (scheduled is counted when the binding succeeds), and pods scheduled (the SLI histogram).";
       [target("sum by (result) (\(rate_of("scheduler_schedule_attempts_total"; sched)))"; "{{result}}"),
        target("sum(\(rate_of("scheduler_pod_scheduling_sli_duration_seconds_count"; sched)))"; "pods scheduled")];
       pos(4; 1; 10; 7)),
  timeseries("Scheduling latency p99"; "s";
       "p99 of one attempt (algorithm and binding) by profile, and of a pod's first attempt to its binding (SLI).";
       [target(p99("scheduler_scheduling_attempt_duration_seconds"; "profile"; sched); "attempt {{profile}}"),
        target(p99("scheduler_pod_scheduling_sli_duration_seconds"; "attempts"; sched); "first attempt to bound, {{attempts}} attempts")];
       pos(14; 1; 10; 7)),
  timeseries("Pending pods"; "short"; "Pods waiting, by queue (active, backoff, unschedulable, gated).";
       [target("sum by (queue) (scheduler_pending_pods{\(sched)})"; "{{queue}}")]; pos(4; 8; 10; 7)),
  timeseries("Queue incoming pods"; "ops"; "Pods added to the queues, by queue and the event that moved them.";
       [target("sum by (queue, event) (\(rate_of("scheduler_queue_incoming_pods_total"; sched)))"; "{{queue}} {{event}}")];
       pos(14; 8; 10; 7)),
  timeseries("Kube API request rate"; "reqps"; "Requests to the kube-apiserver by status code (watches included).";
       [target("sum by (code) (\(rate_of("rest_client_requests_total"; both)))"; "{{code}}")]; pos(0; 15; 8; 7)),
  timeseries("Kube API latency p99"; "s"; "p99 of one API call by verb, retries included.";
       [target(p99("rest_client_request_duration_seconds"; "verb"; both); "{{verb}}")]; pos(8; 15; 8; 7)),
  timeseries("Informers"; "ops"; "Watch events received, failed watches and decode errors, by resource.";
       [target("sum by (resource) (\(rate_of("trimaran_informer_events_total"; sched)))"; "events {{resource}}"),
        target("sum by (resource) (\(rate_of("trimaran_informer_watch_errors_total"; sched)))"; "watch errors {{resource}}"),
        target("sum by (resource) (\(rate_of("trimaran_informer_decode_errors_total"; sched)))"; "decode errors {{resource}}")];
       pos(16; 15; 8; 7)),
  timeseries("Memory"; "bytes"; "Resident memory of each process.";
       [target("process_resident_memory_bytes{\(both)}"; "{{job}} {{instance}}")]; pos(0; 22; 12; 7)),
  timeseries("CPU"; "short"; "CPU cores used by each process.";
       [target(rate_of("process_cpu_seconds_total"; both); "{{job}} {{instance}}")]; pos(12; 22; 12; 7)),

  row("Plugins"; 29),
  timeseries("Extension point latency p99"; "s"; "Time to run all plugins of one extension point, by extension point and profile.";
       [target(p99("scheduler_framework_extension_point_duration_seconds"; "extension_point, profile"; sched); "{{extension_point}} {{profile}}")];
       pos(0; 30; 12; 8)),
  timeseries("Plugin latency p99"; "s"; "Time to run one plugin at one extension point (sampled on 10 % of cycles; never the per-node Filter and Score).";
       [target(p99("scheduler_plugin_execution_duration_seconds"; "plugin, extension_point"; sched); "{{plugin}} {{extension_point}}")];
       pos(12; 30; 12; 8)),

  row("Load awareness"; 38),
  timeseries("Fallbacks"; "ops";
       "Nodes a load-aware plugin scored by its fallback instead of live metrics, by plugin and reason (no_metrics, node_missing, no_usable_metric, stale, bad_value). Non-zero for long: the metrics are not trusted.";
       [target("sum by (plugin, reason) (\(rate_of("trimaran_plugin_metrics_fallback_total"; sched)))"; "{{plugin}} {{reason}}"),
        target("sum by (reason) (\(rate_of("trimaran_plugin_metrics_fetch_failures_total"; sched)))"; "remote watcher read failed: {{reason}}")];
       pos(0; 39; 12; 8)),
  timeseries("Watcher freshness"; "s";
       "Seconds since each window's last good fetch (-1: none yet). Past the plugins' metricsMaxAge they fall back to requests.";
       [target("max by (window) (trimaran_loadwatcher_metrics_age_seconds{\(watcher)})"; "{{window}}")];
       pos(12; 39; 12; 8)),
  timeseries("Watcher fetches"; "ops"; "Provider fetches by window and result (ok, partial, error).";
       [target("sum by (window, result) (\(rate_of("trimaran_loadwatcher_fetches_total"; watcher)))"; "{{window}} {{result}}")];
       pos(0; 47; 12; 7)),
  timeseries("Nodes with metrics"; "short"; "Nodes in each window's last good snapshot, with and without data.";
       [target("max by (window, state) (trimaran_loadwatcher_nodes{\(watcher)})"; "{{window}} {{state}}")];
       pos(12; 47; 12; 7)),

  row("Live usage"; 54),
  stat("Nodes above 90 % CPU"; "none"; "Nodes whose CPU utilisation (window $window) is above 90 % of capacity.";
       [target("count(max by (node) (trimaran_loadwatcher_node_utilisation_ratio{\(watcher), resource=\"cpu\", window=\"$window\", operator=~\"AVG|Latest\"}) > 0.9) or vector(0)"; "")];
       pos(0; 55; 4; 8); green_red(1)),
  timeseries("CPU utilisation per node"; "percentunit";
       "CPU used / capacity per node, from the load watcher (the provider's value for window $window: the average over the window, or the latest sample for metrics-server).";
       [target("max by (node) (trimaran_loadwatcher_node_utilisation_ratio{\(watcher), resource=\"cpu\", window=\"$window\", operator=~\"AVG|Latest\", node=~\"$node\"})"; "{{node}}")];
       pos(4; 55; 10; 8)),
  timeseries("Memory utilisation per node"; "percentunit"; "Memory used / capacity per node, from the load watcher (window $window).";
       [target("max by (node) (trimaran_loadwatcher_node_utilisation_ratio{\(watcher), resource=\"memory\", window=\"$window\", operator=~\"AVG|Latest\", node=~\"$node\"})"; "{{node}}")];
       pos(14; 55; 10; 8))
];

def query_var($name; $title; $query; $hide; $all; $multi; $default):
  {"name": $name, "label": $title, "type": "query", "datasource": ds,
   "query": {"query": $query, "refId": "PrometheusVariableQueryEditor-VariableQuery"},
   "definition": $query, "refresh": 2, "sort": 1, "hide": $hide,
   "includeAll": $all, "multi": $multi, "allValue": (if $all then ".+" else null end),
   "current": $default};

{
  "title": "Trimaran / Scheduler",
  "uid": "5bd8f1486003675e99d9b1edd622a213",
  "tags": ["trimaran"],
  "editable": false,
  "graphTooltip": 1,
  "schemaVersion": 39,
  "time": {"from": "now-1h", "to": "now"},
  "refresh": "10s",
  "timezone": "utc",
  "annotations": {"list": []},
  "links": [],
  "templating": {"list": [
    {"name": "datasource", "label": "Data source", "type": "datasource", "query": "prometheus",
     "hide": 0, "current": {"selected": true, "text": "default", "value": "default"}},
    query_var("cluster"; "cluster"; "label_values(up{job=\"trimaran-scheduler\"}, cluster)"; 2; false; false; {}),
    query_var("instance"; "instance"; "label_values(up{job=\"trimaran-scheduler\", cluster=\"$cluster\"}, instance)"; 0; true; false;
              {"selected": true, "text": "All", "value": "$__all"}),
    {"name": "window", "label": "window", "type": "custom", "query": "5m,10m,15m", "hide": 0,
     "options": [], "current": {"selected": true, "text": "5m", "value": "5m"}},
    query_var("node"; "node"; "label_values(trimaran_loadwatcher_node_utilisation_ratio{job=~\"trimaran-scheduler|trimaran-load-watcher\", cluster=\"$cluster\"}, node)"; 0; true; true;
              {"selected": true, "text": "All", "value": "$__all"})
  ]},
  "panels": [panels | to_entries[] | .value + {"id": (.key + 1)}]
}
