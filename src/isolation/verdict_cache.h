// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Verdicts of isolated load checks (isolation/isolated_load.h), remembered so that a model is
// checked in a child once, not at every load: in memory (bounded, least recently used first
// out) and, when a directory is given, on disk, one small JSON file per verdict, shared by every
// wasinn process of the user. Keys are SHA-256 digests over everything that decides a check's
// outcome (verdict_key.h builds them); an entry that is corrupt, truncated or not for its
// key is ignored and rewritten, never trusted. The directory must belong to the user and be
// writable by nobody else, as must its parent: otherwise verdicts stay in memory. Thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>

#include "core/error.h"
#include "base/sha256.h"

namespace wasinn {

// What a check found: the model loads, or the load fails with `error`.
struct LoadVerdict {
  bool ok = true;
  Error error{Errc::unknown, {}};
};

// user_cache_dir("load-checks"): ~/.cache/wasinn/load-checks, or under an absolute $XDG_CACHE_HOME.
std::filesystem::path default_verdict_cache_dir();

class VerdictCache {
 public:
  // disk_dir empty: verdicts are kept in this process only. The directory is created (0700) and
  // checked at first use, not here, so a process that never checks a load never touches it.
  explicit VerdictCache(std::filesystem::path disk_dir);
  ~VerdictCache();

  // The verdict for `key` (64 hex digits), from memory, else from disk (then kept in memory).
  std::optional<LoadVerdict> find(const std::string& key);
  void remember(const std::string& key, const LoadVerdict& verdict, std::string_view backend);

  // Files already hashed: the key their content had when they had this stat identity, so a
  // preloaded file is not hashed again at every load. In memory only.
  std::optional<std::string> key_of_files(const std::string& identity);
  void remember_files(const std::string& identity, const std::string& key);

  // The directory verdicts are written to; empty when off or refused (the reason is logged).
  std::filesystem::path disk_dir();

 private:
  class Disk;
  // A bounded map, least recently used entry evicted first.
  template <class V>
  struct Lru {
    size_t capacity;
    std::list<std::pair<std::string, V>> order;  // most recent first
    std::unordered_map<std::string, typename std::list<std::pair<std::string, V>>::iterator> index;
    std::optional<V> get(const std::string& key);
    void put(const std::string& key, V value);
  };
  Disk* disk();  // opened at first use; nullptr when off or refused

  std::filesystem::path disk_dir_;
  std::once_flag disk_once_;
  std::unique_ptr<Disk> disk_;
  std::mutex mu_;
  Lru<LoadVerdict> verdicts_;
  Lru<std::string> files_;
};

}  // namespace wasinn
