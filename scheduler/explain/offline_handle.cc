#include "scheduler/explain/offline_handle.h"

namespace trimaran::sched::explain {
OfflineHandle::OfflineHandle(const SharedLister& snapshot, const StatsScopes& scopes,
                             const Clock& clock, lw::Client* load_watcher, lw::SourcePool* sources,
                             const ObjectLister& objects, const StorageLister& storage)
    : snapshot_(snapshot),
      scopes_(scopes),
      clock_(clock),
      load_watcher_(load_watcher),
      sources_(sources),
      objects_(objects),
      storage_(storage),
      client_(clock) {}

}  // namespace trimaran::sched::explain
