#include "scheduler/framework/handle.h"

namespace trimaran::sched {
namespace {

class EmptyLister final : public ObjectLister {
 public:
  std::shared_ptr<const kube::SelectorObject> Get(kube::SelectorResource /*resource*/,
                                                  std::string_view /*ns*/,
                                                  std::string_view /*name*/) const override {
    return nullptr;
  }
  std::vector<std::shared_ptr<const kube::SelectorObject>> List(
      kube::SelectorResource /*resource*/, std::string_view /*ns*/) const override {
    return {};
  }
};

}  // namespace

const ObjectLister& EmptyObjectLister() {
  static const EmptyLister* const kEmpty = new EmptyLister();
  return *kEmpty;
}

}  // namespace trimaran::sched
