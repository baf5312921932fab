#include "llm_log.h"

#include <llama.h>

#include <cstdio>
#include <mutex>

namespace wasinn_llama {

void route_log_line(int level, const char *text);

namespace {
thread_local LogScope *current_scope = nullptr;
std::mutex stderr_mu;  // keeps lines from concurrent contexts whole

void write_stderr(const std::string &line) {
  std::lock_guard lock(stderr_mu);
  std::fwrite(line.data(), 1, line.size(), stderr);
  std::fflush(stderr);
}

void callback(ggml_log_level level, const char *text, void *) { route_log_line(static_cast<int>(level), text); }
}  // namespace

void route_log_line(int level, const char *text) {
  LogScope *scope = current_scope;
  if (!scope || !text) return;
  std::string line(text);
  std::string &errors = scope->errors_;
  if (level == GGML_LOG_LEVEL_ERROR || (level == GGML_LOG_LEVEL_CONT && scope->error_open_)) {
    if (level == GGML_LOG_LEVEL_ERROR && !errors.empty()) errors += "; ";
    if (errors.size() < 600) errors += line;  // enough for the detail line; the rest is noise
    while (!errors.empty() && (errors.back() == '\n' || errors.back() == ' ')) errors.pop_back();
    scope->error_open_ = true;
  } else if (level != GGML_LOG_LEVEL_CONT) {
    scope->error_open_ = false;
  }
  if (scope->enabled_) write_stderr(level == GGML_LOG_LEVEL_CONT ? line : "[llama.cpp] " + line);
}

void install_log_router() {
  static std::once_flag once;
  std::call_once(once, [] { llama_log_set(callback, nullptr); });
}

LogScope::LogScope(bool enable_log) : enabled_(enable_log), outer_(current_scope) { current_scope = this; }

LogScope::~LogScope() { current_scope = outer_; }

void log_line(const std::string &message) { write_stderr("[wasinn llamacpp] " + message + "\n"); }

}  // namespace wasinn_llama
