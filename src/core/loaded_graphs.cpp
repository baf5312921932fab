// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "core/loaded_graphs.h"

#include <iterator>
#include <span>

#include "base/sha256.h"

namespace wasinn {

LoadedGraphs::Digest LoadedGraphs::key_of(Encoding encoding, Target target, std::string_view config,
                                          const Digest& bytes) {
  Sha256 h;
  h.field(std::string_view("wasinn loaded graph 1"));
  h.field(encoding_name(encoding));
  h.field(target_name(target));
  h.field(config);
  h.field(std::span<const uint8_t>(bytes));
  return h.digest();
}

std::shared_ptr<Graph> LoadedGraphs::find(const Digest& key) {
  std::lock_guard lock(mu_);
  const auto it = graphs_.find(key);
  return it == graphs_.end() ? nullptr : it->second.lock();
}

std::shared_ptr<Graph> LoadedGraphs::remember(const Digest& key, std::shared_ptr<Graph> graph) {
  std::lock_guard lock(mu_);
  for (auto it = graphs_.begin(); it != graphs_.end();) {
    it = it->second.expired() ? graphs_.erase(it) : std::next(it);
  }
  auto& slot = graphs_[key];
  if (auto first = slot.lock()) return first;
  slot = graph;
  return graph;
}

}  // namespace wasinn
