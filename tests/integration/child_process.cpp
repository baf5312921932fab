// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>

extern char** environ;

namespace wasinn_it {

namespace {

// A pipe whose ends close themselves, so no early return leaks a descriptor.
struct Pipe {
  int fd[2] = {-1, -1};
  Pipe() {
    if (pipe2(fd, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  }
  ~Pipe() {
    close_read();
    close_write();
  }
  void close_read() {
    if (fd[0] >= 0) close(fd[0]);
    fd[0] = -1;
  }
  void close_write() {
    if (fd[1] >= 0) close(fd[1]);
    fd[1] = -1;
  }
};

std::vector<std::string> child_environment(const ChildOptions& options) {
  std::vector<std::string> removed = options.unset_env;
  for (const auto& kv : options.set_env) removed.push_back(kv.substr(0, kv.find('=')));
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    const std::string kv(*e);
    const std::string key = kv.substr(0, kv.find('='));
    if (std::find(removed.begin(), removed.end(), key) == removed.end()) env.push_back(kv);
  }
  env.insert(env.end(), options.set_env.begin(), options.set_env.end());
  return env;
}

std::string clip(const std::string& s) { return s.size() > 4000 ? s.substr(0, 4000) + "...(clipped)" : s; }

}  // namespace

std::string ChildResult::describe() const {
  return (timed_out ? std::string("timed out") : "exit " + std::to_string(exit_code)) + "\n--- stdout:\n" + clip(out) +
         "\n--- stderr:\n" + clip(err);
}

RunningChild::RunningChild(const std::vector<std::string>& argv, const ChildOptions& options)
    : to_write_(options.stdin_text),
      deadline_(std::chrono::steady_clock::now() + std::chrono::seconds(options.timeout_seconds)) {
  if (argv.empty()) throw std::runtime_error("run_child: empty argv");
  // A child that exits before reading its stdin must not kill the test with SIGPIPE.
  signal(SIGPIPE, SIG_IGN);
  Pipe in, out, err;
  // Built before fork: the child may only call async-signal-safe functions.
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const std::vector<std::string> env_strings = child_environment(options);
  std::vector<char*> env;
  for (const auto& e : env_strings) env.push_back(const_cast<char*>(e.c_str()));
  env.push_back(nullptr);

  pid_ = fork();
  if (pid_ < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid_ == 0) {
    dup2(in.fd[0], STDIN_FILENO);
    dup2(out.fd[1], STDOUT_FILENO);
    dup2(err.fd[1], STDERR_FILENO);
    if (!options.cwd.empty() && chdir(options.cwd.c_str()) != 0) _exit(127);
    execve(args[0], args.data(), env.data());
    const char msg[] = "run_child: execve failed\n";
    (void)!write(STDERR_FILENO, msg, sizeof msg - 1);
    _exit(127);
  }
  std::swap(in_, in.fd[1]);
  std::swap(out_, out.fd[0]);
  std::swap(err_, err.fd[0]);
}

RunningChild::~RunningChild() {
  for (int fd : {in_, out_, err_}) {
    if (fd >= 0) close(fd);
  }
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    while (waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
}

void RunningChild::pump(const std::function<bool()>& stop) {
  // Feed stdin and drain both outputs together, so a chatty child never blocks on a full pipe.
  while ((out_ >= 0 || err_ >= 0) && !stop()) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline_ - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      result_.timed_out = true;
      kill(pid_, SIGKILL);
      return;
    }
    const bool feeding = in_ >= 0 && written_ < to_write_.size();
    pollfd fds[3] = {{out_, POLLIN, 0}, {err_, POLLIN, 0}, {feeding ? in_ : -1, POLLOUT, 0}};
    if (poll(fds, 3, static_cast<int>(left.count())) < 0 && errno != EINTR) return;
    for (int i = 0; i < 2; ++i) {
      if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char buf[65536];
      const ssize_t n = read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        (i == 0 ? result_.out : result_.err).append(buf, static_cast<size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        int& fd = i == 0 ? out_ : err_;
        close(fd);
        fd = -1;
      }
    }
    if (feeding && (fds[2].revents & (POLLOUT | POLLERR | POLLHUP))) {
      const ssize_t n = write(in_, to_write_.data() + written_, to_write_.size() - written_);
      if (n > 0) written_ += static_cast<size_t>(n);
      if (n < 0) written_ = to_write_.size();  // the child closed its stdin: nothing more to feed
    }
  }
}

bool RunningChild::wait_until(const std::function<bool(const std::string& out, const std::string& err)>& done) {
  pump([&] { return done(result_.out, result_.err); });
  return done(result_.out, result_.err);
}

ChildResult RunningChild::finish(const std::string& text) {
  to_write_ += text;
  // Close stdin once everything is written, so a child reading to its end sees it.
  pump([&] {
    if (in_ >= 0 && written_ >= to_write_.size()) {
      close(in_);
      in_ = -1;
    }
    return false;
  });
  if (in_ >= 0) {
    close(in_);
    in_ = -1;
  }
  int status = 0;
  while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
  if (WIFEXITED(status))
    result_.exit_code = WEXITSTATUS(status);
  else if (WIFSIGNALED(status))
    result_.exit_code = 128 + WTERMSIG(status);
  return result_;
}

ChildResult run_child(const std::vector<std::string>& argv, const ChildOptions& options) {
  RunningChild child(argv, options);
  return child.finish();
}

}  // namespace wasinn_it
