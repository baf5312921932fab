// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "base/load_progress.h"

#include <unistd.h>

#include <cstdio>
#include <iterator>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "base/log.h"

namespace wasinn {

namespace {

bool stderr_is_terminal() {
  static const bool tty = ::isatty(STDERR_FILENO) == 1;
  return tty;
}

std::string human_duration(std::chrono::steady_clock::duration d) {
  const double ms = std::chrono::duration<double, std::milli>(d).count();
  if (ms < 1000) return fmt::format("{:.0f} ms", ms);
  return fmt::format("{:.1f} s", ms / 1000);
}

// One whole line in one call, so that it never interleaves with the logger's lines.
void write_line(const std::string& line) {
  std::fputs(line.c_str(), stderr);
  std::fflush(stderr);
}

}  // namespace

std::string human_bytes(uint64_t bytes) {
  if (bytes < 1024) return fmt::format("{} B", bytes);
  static constexpr const char* kUnits[] = {"KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  size_t unit = 0;
  for (v /= 1024; v >= 1024 && unit + 1 < std::size(kUnits); v /= 1024) ++unit;
  return v < 100 ? fmt::format("{:.1f} {}", v, kUnits[unit]) : fmt::format("{:.0f} {}", v, kUnits[unit]);
}

LoadProgress::LoadProgress(std::string what, std::optional<uint64_t> bytes, std::string backend)
    : what_(std::move(what)),
      size_(bytes ? fmt::format(" ({})", human_bytes(*bytes)) : std::string()),
      backend_(std::move(backend)),
      start_(std::chrono::steady_clock::now()) {
  // -q, -qq and --log-level error/off ask for silence; a non-terminal gets the info line only.
  if (stderr_is_terminal() && logger().should_log(spdlog::level::warn))
    timer_ = std::thread([this] { show_progress(); });
}

LoadProgress::~LoadProgress() { finish(false); }

void LoadProgress::show_progress() {
  std::unique_lock lock(mu_);
  if (cv_.wait_for(lock, kShowAfter, [this] { return done_; })) return;
  shown_ = true;
  write_line(fmt::format("wasinn: loading {}{} with {}...\n", what_, size_, backend_));
}

void LoadProgress::finish(bool ok, std::string_view device, std::string_view why) {
  if (finished_) return;
  finished_ = true;
  {
    std::lock_guard lock(mu_);
    done_ = true;
  }
  cv_.notify_all();
  if (timer_.joinable()) timer_.join();
  const bool info = logger().should_log(spdlog::level::info);
  if (!info && !shown_) return;  // nothing to say: the common case, kept cheap
  const std::string took = human_duration(std::chrono::steady_clock::now() - start_);
  const std::string on = device.empty() ? "" : fmt::format(" on {}", device);
  const std::string line = ok ? fmt::format("loaded {}{} with {}{} in {}", what_, size_, backend_, on, took)
                              : fmt::format("loading {}{} with {} failed after {}{}", what_, size_, backend_, took,
                                            why.empty() ? "" : fmt::format(": {}", why));
  if (info) logger().info("{}", line);
  // The terminal saw "loading ..."; when the info line is hidden, this completes it.
  else
    write_line(fmt::format("wasinn: {}\n", line));
}

}  // namespace wasinn
