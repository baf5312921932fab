// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Shared by the ggml-based plugins (llamacpp, whisper), compiled into each against its own
// ggml.h: each plugin carries its own ggml, so each has its own router.
// A ggml framework has one process-wide log callback. The router installed here sends every line
// to the host's logger (sdk::log) with GGML's level mapped to wasinn's, so the plugin itself
// writes nothing to stderr. While a plugin call runs under a LogScope, its thread's error lines
// are also kept for the call's detail, and, when the call's config has enable-log, its lines
// are raised to a level the host shows.
#pragma once

#include <atomic>
#include <string>
#include <string_view>

#include <ggml.h>

#include "wasinn/plugin_sdk/log.hpp"

namespace wasinn::ggml_common {

// Installs the router through the framework's setter (llama_log_set, whisper_log_set).
// Idempotent per setter and thread-safe; call it before the framework's first call that may log.
using LogSetter = void (*)(ggml_log_callback callback, void* user_data);
void install_log_router(LogSetter set);

class LogScope {
 public:
  // show: the call's enable-log; raises the framework's lines on this thread to be shown.
  // cancelled: the call's cancel flag; once set, the framework's complaints about the work it
  // was made to stop (a decode aborted by the abort callback) are logged at debug, not as errors.
  explicit LogScope(bool show, const std::atomic<bool>* cancelled = nullptr);
  ~LogScope();  // flushes a line the framework left open on this thread
  LogScope(const LogScope&) = delete;
  LogScope& operator=(const LogScope&) = delete;

  // The errors the framework logged on this thread during the scope, joined by "; "; "" if none.
  const std::string& errors() const { return errors_; }

 private:
  friend struct Router;
  bool show_;
  const std::atomic<bool>* cancelled_;
  bool error_open_ = false;  // the last line was an error, so a continuation line extends it
  std::string errors_;
  LogScope* outer_;
};

// The level a line of `level` is logged at: itself, or, when `show` (enable-log,
// enable-debug-log), at least the lowest level the host shows (never above ERROR).
wasinn_log_level shown_level(wasinn_log_level level, bool show);

// Whether a plugin note of `level` would reach the host, so callers build it only then.
inline bool note_wanted(wasinn_log_level level, bool show) { return sdk::log_enabled(shown_level(level, show)); }

// One of the plugin's own lines (ignored config keys, debug steps), through the host's logger.
void note(wasinn_log_level level, std::string_view message, bool show = false);

// A debug step, built by message() only when it will be shown (show: enable-debug-log).
template <typename F>
void debug_note(bool show, F&& message) {
  if (note_wanted(WASINN_LOG_DEBUG, show)) note(WASINN_LOG_DEBUG, message(), show);
}

}  // namespace wasinn::ggml_common
