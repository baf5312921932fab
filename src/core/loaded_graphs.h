// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// LoadedGraphs: graphs loaded from a guest's bytes, by a digest of everything that decides the
// load (encoding, target, load config, the bytes), so that loads of one model by many instances
// or threads share one graph, and its load-isolation check, as named models already do. Holds
// weak references: a graph still dies with its last user. Thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string_view>

#include "core/graph.h"
#include "core/types.h"

namespace wasinn {

class LoadedGraphs {
 public:
  using Digest = std::array<uint8_t, 32>;
  // bytes: builders_digest(builders) (base/sha256.h).
  static Digest key_of(Encoding encoding, Target target, std::string_view config, const Digest& bytes);

  // The live graph loaded under key, or null.
  std::shared_ptr<Graph> find(const Digest& key);
  // Remembers graph under key and returns it, or the live graph another thread remembered
  // there first (then `graph` is dropped and the caller shares the first one).
  std::shared_ptr<Graph> remember(const Digest& key, std::shared_ptr<Graph> graph);

 private:
  std::mutex mu_;
  std::map<Digest, std::weak_ptr<Graph>> graphs_;  // dead entries are pruned on remember
};

}  // namespace wasinn
