// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "cli/stderr_lines.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/log.h"

namespace wasinn_cli {
namespace {

// fd 2 while captured: a pipe read by `reader`; `original` is the stderr it replaced, where
// the logger writes.
struct Capture {
  std::mutex mu;
  bool active = false;
  int original = -1;
  std::thread reader;
};

Capture& capture() {
  static auto* const c = new Capture();  // never destroyed: ended by end_stderr_capture (atexit)
  return *c;
}

void log_captured_line(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  wasinn::log_with_fields(spdlog::level::info, line, {{"source", "stderr"}}, /*always=*/true);
}

void read_lines(int fd) {
  std::string pending;
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    pending.append(buffer, static_cast<size_t>(n));
    size_t start = 0;
    for (size_t nl; (nl = pending.find('\n', start)) != std::string::npos; start = nl + 1)
      log_captured_line(std::string_view(pending).substr(start, nl - start));
    pending.erase(0, start);
    // A writer that never ends its line (a progress bar) still gets logged, in pieces.
    if (pending.size() >= 64 * 1024) {
      log_captured_line(pending);
      pending.clear();
    }
  }
  if (!pending.empty()) log_captured_line(pending);
  ::close(fd);
}

}  // namespace

void log_stderr_as_json() {
  Capture& c = capture();
  std::lock_guard lock(c.mu);
  if (c.active) return;
  std::fflush(stderr);
  int fds[2];
  const int original = ::fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
  FILE* out = original >= 0 ? ::fdopen(::fcntl(original, F_DUPFD_CLOEXEC, 3), "w") : nullptr;
  if (!out || ::pipe2(fds, O_CLOEXEC) != 0) {
    // No capture (no fds left): wasinn's own lines are JSON still.
    if (original >= 0) ::close(original);
    wasinn::set_log_format(wasinn::LogFormat::json, out ? out : stderr);
    return;
  }
  wasinn::set_log_format(wasinn::LogFormat::json, out);
  ::dup2(fds[1], STDERR_FILENO);  // dup2's copy is inherited by a child as its stderr, as before
  ::close(fds[1]);
  c.original = original;
  c.reader = std::thread(read_lines, fds[0]);
  c.active = true;
  std::atexit(end_stderr_capture);
}

void end_stderr_capture() {
  Capture& c = capture();
  {
    std::lock_guard lock(c.mu);
    if (c.active) {
      c.active = false;
      std::fflush(stderr);
      ::dup2(c.original, STDERR_FILENO);  // the pipe's last writer goes: the reader sees its end
      ::close(c.original);
      c.reader.join();
    }
  }
  wasinn::flush_log();  // the lines held for a batch, the captured ones just logged among them
}

void print_error(std::string_view message) {
  if (wasinn::log_format() == wasinn::LogFormat::json) {
    wasinn::log_with_fields(spdlog::level::err, message, nlohmann::json::object(), /*always=*/true);
    return;
  }
  wasinn::flush_log();  // after the lines logged before it
  fmt::print(stderr, "wasinn: error: {}\n", message);
}

void print_notice(std::string_view text, const nlohmann::json& fields) {
  if (wasinn::log_format() == wasinn::LogFormat::json) {
    std::string_view message = text;
    if (message.substr(0, 8) == "wasinn: ") message.remove_prefix(8);
    wasinn::log_with_fields(spdlog::level::info, message, fields, /*always=*/true);
    wasinn::flush_log();  // a notice is for now (where the server listens), not for the next batch
    return;
  }
  wasinn::flush_log();
  fmt::print(stderr, "{}\n", text);
  std::fflush(stderr);
}

}  // namespace wasinn_cli
