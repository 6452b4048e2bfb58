#include "loadwatcher/proto_convert.h"

namespace trimaran::lw {

void ToProto(const WatcherMetrics& in, loadwatcher::v1::WatcherMetrics* out) {
  out->Clear();
  out->set_timestamp(in.timestamp);
  out->mutable_window()->set_duration(in.window.duration);
  out->mutable_window()->set_start(in.window.start);
  out->mutable_window()->set_end(in.window.end);
  out->set_source(in.source);
  auto& nodes = *out->mutable_node_metrics();
  for (const auto& [host, node] : in.data.node_metrics_map) {
    loadwatcher::v1::NodeMetrics& pb = nodes[host];
    pb.set_data_center(node.data_center);
    pb.mutable_metrics()->Reserve(static_cast<int>(node.metrics.size()));
    for (const Metric& m : node.metrics) {
      loadwatcher::v1::Metric* pm = pb.add_metrics();
      pm->set_name(m.name);
      pm->set_type(m.type);
      pm->set_operator_(m.op);
      pm->set_rollup(m.rollup);
      pm->set_value(m.value);
    }
  }
}

WatcherMetrics FromProto(const loadwatcher::v1::WatcherMetrics& in) {
  WatcherMetrics out;
  out.timestamp = in.timestamp();
  out.window = {in.window().duration(), in.window().start(), in.window().end()};
  out.source = in.source();
  for (const auto& [host, pb] : in.node_metrics()) {
    NodeMetrics& node = out.data.node_metrics_map[host];
    node.data_center = pb.data_center();
    node.metrics.reserve(pb.metrics_size());
    for (const auto& pm : pb.metrics()) {
      node.metrics.push_back(Metric{pm.name(), pm.type(), pm.operator_(), pm.rollup(), pm.value()});
    }
  }
  return out;
}

}  // namespace trimaran::lw
