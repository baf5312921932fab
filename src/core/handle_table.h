// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// HandleTable<T>: guest-visible u32 handles for shared objects.
// Handles count up from 0 and are never reused, so a stale handle can never reach a newer
// object. Thread-safe: lookups take a shared lock, insert/erase an exclusive one.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string_view>
#include <unordered_map>

#include <fmt/format.h>

#include "core/error.h"

namespace wasinn {

template <class T>
class HandleTable {
 public:
  // kind names the object in error details ("graph", "execution context"); option is the
  // setting that raises max_live ("--max-graphs").
  HandleTable(std::string_view kind, size_t max_live, std::string_view option)
      : kind_(kind), option_(option), max_live_(max_live) {}

  // The error insert would give now: lets a caller refuse before costly work (a model load)
  // rather than after it. insert still checks, since another thread may fill the table between.
  Status check_room() const {
    std::shared_lock lock(mu_);
    if (entries_.size() >= max_live_) return full();
    return {};
  }

  Result<uint32_t> insert(std::shared_ptr<T> value) {
    std::unique_lock lock(mu_);
    if (entries_.size() >= max_live_) return full();
    if (next_ == UINT32_MAX) {
      return make_error(Errc::too_large, fmt::format("{} handles exhausted", kind_));
    }
    const uint32_t handle = next_++;
    entries_.emplace(handle, std::move(value));
    return handle;
  }

  Result<std::shared_ptr<T>> get(uint32_t handle) const {
    std::shared_lock lock(mu_);
    auto it = entries_.find(handle);
    if (it == entries_.end()) return missing(handle);
    return it->second;
  }

  // Removes the entry; the object dies when its last user lets go of it.
  Result<std::shared_ptr<T>> erase(uint32_t handle) {
    std::unique_lock lock(mu_);
    auto it = entries_.find(handle);
    if (it == entries_.end()) return missing(handle);
    auto value = std::move(it->second);
    entries_.erase(it);
    return value;
  }

  // Calls fn on every live object, under the shared lock (fn must not touch the table).
  template <class Fn>
  void for_each(Fn&& fn) const {
    std::shared_lock lock(mu_);
    for (const auto& [handle, value] : entries_) fn(*value);
  }

  // Frees every handle; the objects go outside the lock, on this thread unless shared elsewhere.
  void clear() {
    std::unordered_map<uint32_t, std::shared_ptr<T>> gone;
    {
      std::unique_lock lock(mu_);
      gone.swap(entries_);
    }
  }

  size_t size() const {
    std::shared_lock lock(mu_);
    return entries_.size();
  }

 private:
  Error full() const {
    return make_error(Errc::too_large,
                      fmt::format("too many live {}s: the limit is {} (see {})", kind_, max_live_, option_));
  }
  Error missing(uint32_t handle) const {
    const char* why = handle < next_ ? "was already released" : "was never created";
    return make_error(Errc::invalid_argument, fmt::format("{} handle {} {}", kind_, handle, why));
  }

  std::string_view kind_;
  std::string_view option_;
  size_t max_live_;
  mutable std::shared_mutex mu_;
  std::unordered_map<uint32_t, std::shared_ptr<T>> entries_;
  uint32_t next_ = 0;
};

}  // namespace wasinn
