// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The logger every line of wasinn's code goes to (its own and, through plugin_library, the
// frameworks'): "wasinn", not spdlog's default logger, so that an embedder's own use of spdlog
// and wasinn's stay apart. One per process. Its output is stderr, or, while any Host has a
// log callback (HostOptions::log), those callbacks instead. Thread-safe.
#pragma once

#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>
#include <string_view>

#include <nlohmann/json_fwd.hpp>
#include <spdlog/logger.h>

namespace wasinn {

spdlog::logger& logger();
// The same logger, for the CLI to make it spdlog's default (so spdlog::set_level reaches it).
std::shared_ptr<spdlog::logger> shared_logger();

// A log callback attached to the logger for as long as this object lives; while one or more are
// attached, stderr gets nothing. The callback is called from whichever thread logs, one line at
// a time (serialised), with the bare message (no "wasinn: level:" prefix).
// How lines reach stderr: text ("wasinn: LEVEL: MESSAGE") or json, one object per line:
// {"time":RFC 3339 UTC with ms,"level","message", then the line's fields}. OUT: where stderr
// lines go from now on (the CLI passes a copy of fd 2 when it captures fd 2 itself).
enum class LogFormat { text, json };
void set_log_format(LogFormat format, FILE* out);
LogFormat log_format();

// From now on, lines below warn wait up to INTERVAL to be written in one write with the lines
// after them (a busy server's access log: one write per batch, not per request); a warning or an
// error writes what waits and itself at once, so the order holds. Not on a terminal, which gets
// each line at once; 0 turns it off. What waits is written at exit (atexit) and by flush_log.
void batch_log_lines(std::chrono::microseconds interval);
// Writes the lines batch_log_lines holds: before a direct write to stderr and before _exit.
void flush_log();

// MESSAGE at LEVEL with FIELDS, which the json format adds to the line's object and the text
// format leaves out (MESSAGE says it all there). always: even when LEVEL is filtered out (the
// lines a command prints whatever the level: its errors, where it serves).
void log_with_fields(spdlog::level::level_enum level, std::string_view message, const nlohmann::json& fields,
                     bool always = false);

class AttachedLogCallback {
 public:
  using Callback = std::function<void(spdlog::level::level_enum, std::string_view)>;
  explicit AttachedLogCallback(Callback callback);
  ~AttachedLogCallback();
  AttachedLogCallback(const AttachedLogCallback&) = delete;
  AttachedLogCallback& operator=(const AttachedLogCallback&) = delete;

 private:
  std::shared_ptr<spdlog::sinks::sink> sink_;
};

}  // namespace wasinn
