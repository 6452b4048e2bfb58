#include "scheduler/framework/image_states.h"

namespace trimaran::sched {

void ImageIndex::AddNode(const NodeInfo* key, const kube::Node& node) {
  for (const kube::ContainerImage& image : node.status.images) {
    for (const std::string& name : image.names) {
      // try_emplace keeps the first size when the node lists the name twice.
      images_[name].sizes_.try_emplace(key, image.size_bytes);
    }
  }
}

void ImageIndex::RemoveNode(const NodeInfo* key, const kube::Node& node) {
  for (const kube::ContainerImage& image : node.status.images) {
    for (const std::string& name : image.names) {
      const auto it = images_.find(name);
      if (it == images_.end()) continue;  // a name listed twice, already removed
      it->second.sizes_.erase(key);
      if (it->second.sizes_.empty()) images_.erase(it);
    }
  }
}

const ImageIndex::Entry* ImageIndex::Find(absl::string_view image_name) const {
  const auto it = images_.find(image_name);
  return it == images_.end() ? nullptr : &it->second;
}

}  // namespace trimaran::sched
