#include "kube/informer.h"

namespace trimaran::kube {

ListerWatcher<Pod> PodListerWatcher(Client& client, std::string field_selector,
                                    std::string label_selector) {
  ListerWatcher<Pod> lw;
  lw.list = [&client](const ListOptions& o) { return client.ListPods("", o); };
  lw.watch = [&client](const WatchOptions& o, const WatchHandler<Pod>& h, std::stop_token stop) {
    return client.WatchPods("", o, h, stop);
  };
  lw.field_selector = std::move(field_selector);
  lw.label_selector = std::move(label_selector);
  lw.description = "pods";
  return lw;
}

ListerWatcher<Node> NodeListerWatcher(Client& client, std::string label_selector) {
  ListerWatcher<Node> lw;
  lw.list = [&client](const ListOptions& o) { return client.ListNodes(o); };
  lw.watch = [&client](const WatchOptions& o, const WatchHandler<Node>& h, std::stop_token stop) {
    return client.WatchNodes(o, h, stop);
  };
  lw.label_selector = std::move(label_selector);
  lw.description = "nodes";
  return lw;
}

}  // namespace trimaran::kube
