// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "log_router.h"

#include <algorithm>
#include <mutex>
#include <vector>

#include "wasinn/plugin_sdk/error.hpp"

namespace wasinn::ggml_common {
namespace {

thread_local LogScope* current_scope = nullptr;

// The line the framework is writing on this thread. It can arrive in pieces (GGML_LOG_LEVEL_CONT),
// e.g. the load's progress dots, and is handed on whole, at the level of its first piece.
struct OpenLine {
  std::string text;
  wasinn_log_level level = WASINN_LOG_INFO;
  ~OpenLine();
};
thread_local OpenLine open_line;
// Set once open_line is destroyed (at thread or process exit): a framework object freed later, by
// a static's destructor, still logs, and its lines are then handed on unbuffered. A bool needs
// no destructor, so it is still there to read.
thread_local bool open_line_gone = false;
OpenLine::~OpenLine() { open_line_gone = true; }

constexpr size_t kMaxLine = 4096;   // a line that never ends is handed on at this length
constexpr size_t kMaxErrors = 600;  // enough for a detail line; the rest is noise

wasinn_log_level to_wasinn_level(ggml_log_level level) {
  switch (level) {
    case GGML_LOG_LEVEL_ERROR: return WASINN_LOG_ERROR;
    case GGML_LOG_LEVEL_WARN: return WASINN_LOG_WARN;
    case GGML_LOG_LEVEL_DEBUG: return WASINN_LOG_DEBUG;
    default: return WASINN_LOG_INFO;  // INFO, and NONE, which ggml frameworks do not use for lines
  }
}

}  // namespace

// Befriended by LogScope.
struct Router {
  static void emit(std::string_view text, wasinn_log_level level) {
    const LogScope* scope = current_scope;
    if (scope && scope->cancelled_ && scope->cancelled_->load() && level > WASINN_LOG_DEBUG) level = WASINN_LOG_DEBUG;
    const wasinn_log_level at = shown_level(level, scope && scope->show_);
    if (sdk::log_enabled(at)) sdk::log(at, text);
  }

  static void flush() {
    if (open_line.text.empty()) return;
    emit(open_line.text, open_line.level);
    open_line.text.clear();
  }

  static void keep_error(LogScope& scope, ggml_log_level level, const char* text) {
    if (level == GGML_LOG_LEVEL_ERROR || (level == GGML_LOG_LEVEL_CONT && scope.error_open_)) {
      std::string& errors = scope.errors_;
      if (level == GGML_LOG_LEVEL_ERROR && !errors.empty()) errors += "; ";
      if (errors.size() < kMaxErrors) errors += sdk::one_line(text);
      scope.error_open_ = true;
    } else if (level != GGML_LOG_LEVEL_CONT) {
      scope.error_open_ = false;
    }
  }

  static void line(ggml_log_level level, const char* text) {
    if (!text) return;
    if (open_line_gone) {
      emit(sdk::one_line(text), to_wasinn_level(level));
      return;
    }
    if (LogScope* scope = current_scope) keep_error(*scope, level, text);
    if (level != GGML_LOG_LEVEL_CONT) {
      flush();
      open_line.level = to_wasinn_level(level);
    }
    std::string& open = open_line.text;
    open += text;
    for (size_t end; (end = open.find('\n')) != std::string::npos;) {
      emit(std::string_view(open).substr(0, end), open_line.level);
      open.erase(0, end + 1);
    }
    if (open.size() >= kMaxLine) flush();
  }
};

namespace {
void callback(ggml_log_level level, const char* text, void*) { Router::line(level, text); }
}  // namespace

void install_log_router(LogSetter set) {
  // Once per setter: a framework may have several (llama.cpp's, then libmtmd's).
  static std::mutex mutex;
  static std::vector<LogSetter> installed;
  const std::lock_guard<std::mutex> lock(mutex);
  if (std::find(installed.begin(), installed.end(), set) != installed.end()) return;
  set(callback, nullptr);
  installed.push_back(set);
}

wasinn_log_level shown_level(wasinn_log_level level, bool show) {
  if (!show) return level;
  return std::min(std::max(level, sdk::log_threshold()), WASINN_LOG_ERROR);
}

void note(wasinn_log_level level, std::string_view message, bool show) {
  const wasinn_log_level at = shown_level(level, show);
  if (sdk::log_enabled(at)) sdk::log(at, message);
}

LogScope::LogScope(bool show, const std::atomic<bool>* cancelled)
    : show_(show), cancelled_(cancelled), outer_(current_scope) {
  current_scope = this;
}

LogScope::~LogScope() {
  Router::flush();
  current_scope = outer_;
}

}  // namespace wasinn::ggml_common
