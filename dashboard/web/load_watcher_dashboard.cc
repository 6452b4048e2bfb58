#include "dashboard/web/load_watcher_dashboard.h"

#include <utility>

#include "common/clock.h"
#include "dashboard/price_table.h"
#include "dashboard/targets.h"
#include "dashboard/view_options.h"

namespace trimaran::dashboard::web {

absl::StatusOr<std::unique_ptr<DashboardService>> MakeLoadWatcherDashboard(
    kube::Client& kube, lw::Client* watcher, DashboardAccess access,
    std::unique_ptr<InformerClusterSource>& source) {
  ViewOptions view;
  view.resources = {"cpu", "memory"};
  view.refresh = absl::Seconds(5);
  absl::StatusOr<TargetPercent> targets = ResolveTargets(view);
  if (!targets.ok()) return targets.status();
  source = std::make_unique<InformerClusterSource>(kube, watcher, "", view.window, RealClock::Get(),
                                                   view.refresh);
  DashboardOptions options;
  options.view = view;
  options.targets = *std::move(targets);
  options.access = std::move(access);
  options.decisions_hint =
      "The load watcher's dashboard does not read the scheduler's decisions; run "
      "`trimaranctl dashboard --scheduler https://SCHEDULER:10259` for them.";
  return std::make_unique<DashboardService>(*source, PriceTable::Builtin(), options,
                                            RealClock::Get());
}

}  // namespace trimaran::dashboard::web
