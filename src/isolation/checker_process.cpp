// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "isolation/checker_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

extern char** environ;

namespace wasinn::isolation {

namespace {

constexpr size_t kStderrTail = 16 * 1024;  // bytes of the child's stderr kept for the detail
constexpr size_t kReportMax = 1 << 20;     // a report line longer than this is not a report

Error sys_error(std::string_view what) {
  return make_error(Errc::runtime_error, fmt::format("isolated load check: {}: {}", what, std::strerror(errno)));
}

// Moves fd to a number >= floor (close-on-exec), so the child's dup2 targets below floor
// never collide with a source.
Result<Fd> raised(Fd fd, int floor) {
  if (fd.get() >= floor) return fd;
  Fd moved(fcntl(fd.get(), F_DUPFD_CLOEXEC, floor));
  if (moved.get() < 0) return sys_error("fcntl(F_DUPFD_CLOEXEC)");
  return moved;
}

}  // namespace

void Fd::reset() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

Result<Fd> memory_file(std::string_view name, std::span<const uint8_t> bytes) {
  Fd fd(memfd_create(std::string(name).c_str(), MFD_CLOEXEC));
  if (fd.get() < 0) return sys_error("memfd_create");
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd.get(), bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return sys_error("writing the model for the check");
    done += static_cast<size_t>(n);
  }
  return fd;
}

Result<ChildExit> run_checker(const std::vector<std::string>& argv, std::vector<Fd> passed,
                              std::optional<std::chrono::steady_clock::time_point> deadline) {
  const int first_free = 3 + static_cast<int>(passed.size());
  int out_pipe[2], err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0) return sys_error("pipe2");
  Fd out_r(out_pipe[0]), out_w_low(out_pipe[1]);
  if (pipe2(err_pipe, O_CLOEXEC) != 0) return sys_error("pipe2");
  Fd err_r(err_pipe[0]), err_w_low(err_pipe[1]);
  auto out_w = raised(std::move(out_w_low), first_free);
  if (!out_w) return out_w.take_error();
  auto err_w = raised(std::move(err_w_low), first_free);
  if (!err_w) return err_w.take_error();
  for (auto& fd : passed) {
    auto r = raised(std::move(fd), first_free);
    if (!r) return r.take_error();
    fd = std::move(*r);
  }

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out_w->get(), 1);
  posix_spawn_file_actions_adddup2(&actions, err_w->get(), 2);
  for (size_t i = 0; i < passed.size(); ++i) {
    posix_spawn_file_actions_adddup2(&actions, passed[i].get(), 3 + static_cast<int>(i));
  }
  // Nothing else of the host leaks into the child (fds opened without O_CLOEXEC included).
  posix_spawn_file_actions_addclosefrom_np(&actions, first_free);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  // Default dispositions and an empty mask: the host may block or ignore signals the framework
  // relies on, and a crash must be able to kill the child.
  sigset_t all, none;
  sigfillset(&all);
  sigemptyset(&none);
  posix_spawnattr_setsigdefault(&attr, &all);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);

  std::vector<char*> cargv;
  for (const auto& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, cargv[0], &actions, &attr, cargv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) {
    errno = rc;
    return sys_error(fmt::format("cannot start {}", argv[0]));
  }
  out_w->reset();
  err_w->reset();
  passed.clear();

  ChildExit result;
  std::string err_all;
  pollfd fds[2] = {{out_r.get(), POLLIN, 0}, {err_r.get(), POLLIN, 0}};
  int open_count = 2;
  char buf[16384];
  while (open_count > 0) {
    int wait_ms = result.killed_at_deadline ? 5000 : -1;  // then a pipe held by no child of ours
    if (deadline && !result.killed_at_deadline) {
      const auto left = std::chrono::ceil<std::chrono::milliseconds>(*deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) {
        // Its pipes close as it dies (a grandchild holding them would be the framework's own).
        ::kill(pid, SIGKILL);
        result.killed_at_deadline = true;
        wait_ms = 5000;
      } else {
        wait_ms = static_cast<int>(std::min<int64_t>(left.count(), 60'000));
      }
    }
    const int ready = poll(fds, 2, wait_ms);
    if (ready < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (ready == 0) {
      if (result.killed_at_deadline) break;
      continue;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      const ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        fds[i].fd = -1;
        --open_count;
        continue;
      }
      if (i == 0) {
        if (result.report.size() < kReportMax) result.report.append(buf, static_cast<size_t>(n));
      } else {
        err_all.append(buf, static_cast<size_t>(n));
        if (err_all.size() > 2 * kStderrTail) err_all.erase(0, err_all.size() - kStderrTail);
      }
    }
  }
  if (err_all.size() > kStderrTail) err_all.erase(0, err_all.size() - kStderrTail);
  result.stderr_tail = std::move(err_all);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return sys_error("waitpid on the check");
  }
  result.status = status;
  return result;
}

}  // namespace wasinn::isolation
