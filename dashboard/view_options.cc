#include "dashboard/view_options.h"

#include "common/status_macros.h"

namespace trimaran::dashboard {

ModelOptions MakeModelOptions(const ViewOptions& options, const PriceTable* prices,
                              absl::Time now) {
  ModelOptions m;
  m.resources = options.resources;
  m.extra_labels = options.extra_labels;
  m.sort = options.sort;
  m.group_by = options.group_by;
  m.prices = prices;
  m.disable_pricing = options.disable_pricing;
  m.stale_after = options.stale_after;
  m.now = now;
  return m;
}

absl::StatusOr<PriceTable> LoadPrices(const ViewOptions& options) {
  PriceTable table = PriceTable::Builtin();
  table.set_spot_discount_percent(options.spot_discount_percent);
  if (!options.price_file.empty()) {
    TRIMARAN_RETURN_IF_ERROR(LoadPriceFile(options.price_file, table));
  }
  return table;
}

absl::StatusOr<ClusterView> BuildView(ClusterSource& source, const ViewOptions& options,
                                      const PriceTable& prices, absl::Time now) {
  TRIMARAN_ASSIGN_OR_RETURN(ClusterInputs in, source.Fetch());
  return BuildClusterView(in.nodes, in.pods, in.metrics.get(), in.metrics_error,
                          MakeModelOptions(options, &prices, now));
}

}  // namespace trimaran::dashboard
