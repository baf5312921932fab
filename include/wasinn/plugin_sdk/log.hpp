// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// wasinn plugin SDK: framework log lines to the host's logger.
//
// The host installs one wasinn_log_sink per plugin before backend_create (set_log_sink in the
// API table, filled in by make_api). A backend routes its framework's logging into log(),
// mapping the framework's levels to wasinn_log_level faithfully; the host decides what shows.
// Thread-safe: log() may be called from framework threads at any time. Without a sink (test
// harnesses, an older host) only error lines are written, to stderr.
#pragma once

#include <atomic>
#include <cstdio>
#include <string>
#include <string_view>

#include "wasinn/backend_plugin.h"

namespace wasinn::sdk {

namespace detail {
// `inline` variables, hidden: one per plugin library even if a plugin is built without hidden
// visibility (default-visibility inline variables become GNU-unique, shared by all plugins).
__attribute__((visibility("hidden"))) inline wasinn_log_sink log_sink{};
__attribute__((visibility("hidden"))) inline std::atomic<bool> log_sink_set{false};
}  // namespace detail

inline void set_log_sink(const wasinn_log_sink* sink) noexcept {
  if (!sink || !sink->write || detail::log_sink_set.load(std::memory_order_acquire)) return;
  detail::log_sink = *sink;
  detail::log_sink_set.store(true, std::memory_order_release);
}

// The lowest level the host shows: frameworks with a threshold of their own are set to it, so
// they do not format lines nobody reads.
inline wasinn_log_level log_threshold() noexcept {
  if (!detail::log_sink_set.load(std::memory_order_acquire)) return WASINN_LOG_ERROR;
  return static_cast<wasinn_log_level>(detail::log_sink.min_level);
}

inline bool log_enabled(wasinn_log_level level) noexcept { return level >= log_threshold(); }

// One framework line (trailing newlines are dropped; the host adds the backend's tag).
inline void log(wasinn_log_level level, std::string_view message) noexcept {
  while (!message.empty() && (message.back() == '\n' || message.back() == '\r')) message.remove_suffix(1);
  if (message.empty()) return;
  if (detail::log_sink_set.load(std::memory_order_acquire)) {
    detail::log_sink.write(detail::log_sink.host_data, level, message.data(), message.size());
  } else if (level >= WASINN_LOG_ERROR) {
    std::fprintf(stderr, "%.*s\n", static_cast<int>(message.size()), message.data());
  }
}

// The backend's own line to the operator (WASINN_LOG_OWN): shown at `level`, where a framework's
// line is shown one level lower. For what an operator must see, e.g. a fallback that leaves an
// accelerator unused.
inline void log_own(wasinn_log_level level, std::string_view message) noexcept {
  while (!message.empty() && (message.back() == '\n' || message.back() == '\r')) message.remove_suffix(1);
  if (message.empty()) return;
  if (detail::log_sink_set.load(std::memory_order_acquire)) {
    detail::log_sink.write(detail::log_sink.host_data, level | WASINN_LOG_OWN, message.data(), message.size());
  } else if (level >= WASINN_LOG_WARN) {
    std::fprintf(stderr, "%.*s\n", static_cast<int>(message.size()), message.data());
  }
}

}  // namespace wasinn::sdk
