// llama.cpp has one process-wide log callback; this routes it per thread. While a plugin call
// runs under a LogScope, llama.cpp's lines on that thread reach stderr only if the call's
// config set enable-log, and its error lines are kept for the call's diag detail. Lines
// from other threads (or outside any call) are dropped: the default is silence.
#pragma once

#include <string>

namespace wasinn_llama {

// Installs the router as llama.cpp's log callback. Idempotent and thread-safe.
void install_log_router();

class LogScope {
 public:
  explicit LogScope(bool enable_log);
  ~LogScope();
  LogScope(const LogScope &) = delete;
  LogScope &operator=(const LogScope &) = delete;

  // The errors llama.cpp logged on this thread during the scope, joined by "; "; "" if none.
  const std::string &errors() const { return errors_; }

 private:
  friend void route_log_line(int level, const char *text);
  bool enabled_;
  bool error_open_ = false;  // the last line was an error, so a continuation line extends it
  std::string errors_;
  LogScope *outer_;
};

// The plugin's own lines ("[wasinn llamacpp] ..."), always printed: config keys it ignored,
// and debug steps when enable-debug-log is set.
void log_line(const std::string &message);

}  // namespace wasinn_llama
