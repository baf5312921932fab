// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// LoadProgress: one model load as the user sees it. When the load ends, a line at info level
// (what was loaded, its size, the backend, the time taken); and, when stderr is a terminal that
// shows warnings, a "loading ..." line once the load has taken a second, so that a long load is
// not taken for a hang. Never on a non-terminal: logs stay one line per load. Each load has its
// own object; lines are written whole, so concurrent loads never interleave within a line.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

namespace wasinn {

class LoadProgress {
 public:
  static constexpr auto kShowAfter = std::chrono::seconds(1);

  // what: the model's files, "guest bytes", or a remote model by name and URL; bytes: its size
  // (none for a remote model: its bytes are on the server).
  LoadProgress(std::string what, std::optional<uint64_t> bytes, std::string backend);
  ~LoadProgress();  // a load that never finished (an early return) is reported as failed
  LoadProgress(const LoadProgress&) = delete;
  LoadProgress& operator=(const LoadProgress&) = delete;

  // Ends the load and writes its line(s), saying where a loaded graph runs (device) or why the
  // load failed (why) when given. Later calls do nothing.
  void finish(bool ok, std::string_view device = {}, std::string_view why = {});

 private:
  void show_progress();  // the timer thread

  const std::string what_;
  const std::string size_;  // " (19.2 KiB)", or "" for a load without a size
  const std::string backend_;
  const std::chrono::steady_clock::time_point start_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  bool shown_ = false;  // the "loading ..." line was written
  bool finished_ = false;
  std::thread timer_;  // only when the progress line may be shown
};

// "19.2 KiB", "117 MiB": a size as people read it.
std::string human_bytes(uint64_t bytes);

}  // namespace wasinn
