// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The checker's process for an isolated load check (isolated_load.h): starting
// `wasinn-load-check` with in-memory files at fds 3, 4, ..., and collecting its stdout (the
// report) and the tail of its stderr until it exits. posix_spawn, not fork: the host is
// multithreaded. Internal to load isolation.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/error.h"

namespace wasinn::isolation {

// An fd closed on scope exit.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
  Fd& operator=(Fd&& o) noexcept {
    if (this != &o) {
      reset();
      fd_ = std::exchange(o.fd_, -1);
    }
    return *this;
  }
  ~Fd() { reset(); }
  int get() const { return fd_; }
  void reset();

 private:
  int fd_ = -1;
};

// An anonymous in-memory file holding `bytes`, for the child to map as /dev/fd/N.
Result<Fd> memory_file(std::string_view name, std::span<const uint8_t> bytes);

struct ChildExit {
  int status = 0;  // as from waitpid
  std::string report;
  std::string stderr_tail;
  bool killed_at_deadline = false;  // still running at `deadline`: killed (SIGKILL) then
};

// Spawns argv with `passed` at fds 3, 4, ... and collects its stdout (the report) and the
// tail of its stderr until it exits, or kills it at `deadline` (a load can run a model's own
// code, e.g. TorchScript's __setstate__, which may never end).
Result<ChildExit> run_checker(const std::vector<std::string>& argv, std::vector<Fd> passed,
                              std::optional<std::chrono::steady_clock::time_point> deadline = std::nullopt);

}  // namespace wasinn::isolation
