#pragma once
// ViewOptions: what the node view shows and how, shared by its three front ends
// (`trimaranctl nodes`, `trimaranctl dashboard`, `load-watcher --dashboard`). Each
// front end fills it from its own flags; nothing here parses a command line. The
// defaults are `trimaranctl nodes`' (docs/trimaranctl.md "nodes").
//
//   MakeModelOptions  the model's part (model.h), with the prices and the time.
//   LoadPrices        the built-in prices, the price file and the spot discount.
//   BuildView         one ClusterSource fetch turned into a ClusterView.
//
// Thread-safety: ViewOptions is a value; the functions are reentrant.

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "dashboard/cluster_source.h"
#include "dashboard/model.h"
#include "dashboard/price_table.h"
#include "dashboard/targets.h"

namespace trimaran::dashboard {

struct ViewOptions {
  // The inputs.
  std::string window = "15m";  // the load-watcher window: 15m, 10m or 5m
  std::string node_selector;   // label selector on nodes
  absl::Duration refresh = absl::Seconds(2);
  absl::Duration stale_after = absl::Minutes(2);
  // The model.
  std::vector<std::string> resources = {"cpu"};
  std::vector<std::string> extra_labels;
  SortSpec sort;
  std::string group_by;
  // Prices.
  std::string price_file;
  std::optional<double> spot_discount_percent;
  bool disable_pricing = false;
  // TargetLoadPacking's targets (targets.h): per resource, and/or from a scheduler config.
  TargetPercent target_percent;
  std::string scheduler_config;
  // Presentation: colours (terminal/layout.h ParseStyle), the hot usage threshold, bars.
  std::string style = "#04B575,#FFFF00,#FF0000";
  bool no_color = false;
  double hot_threshold = 80;
  int bar_width = 20;
};

// The model's options; `prices` is borrowed (null: every price unknown).
ModelOptions MakeModelOptions(const ViewOptions& options, const PriceTable* prices, absl::Time now);

// PriceTable::Builtin(), the spot discount, then options.price_file's entries.
absl::StatusOr<PriceTable> LoadPrices(const ViewOptions& options);

// source.Fetch() + BuildClusterView.
absl::StatusOr<ClusterView> BuildView(ClusterSource& source, const ViewOptions& options,
                                      const PriceTable& prices, absl::Time now);

}  // namespace trimaran::dashboard
