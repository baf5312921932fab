// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "pty_child.h"

#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>

extern char** environ;

namespace wasinn_cli_test {

std::string PtyResult::describe() const {
  return (timed_out ? std::string("timed out") : "exit " + std::to_string(exit_code)) + "\n--- terminal:\n" + output;
}

PtyResult run_in_pty(const std::vector<std::string>& argv, const std::vector<std::string>& unset_env,
                     int timeout_seconds) {
  // Everything the child needs is built before fork: after it, the child only calls execve.
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    const std::string kv(*e);
    if (std::find(unset_env.begin(), unset_env.end(), kv.substr(0, kv.find('='))) == unset_env.end()) env.push_back(kv);
  }
  std::vector<char*> envp, args;
  for (auto& kv : env) envp.push_back(kv.data());
  envp.push_back(nullptr);
  std::vector<std::string> argv_copy = argv;
  for (auto& a : argv_copy) args.push_back(a.data());
  args.push_back(nullptr);

  int master = -1;
  const pid_t pid = forkpty(&master, nullptr, nullptr, nullptr);
  if (pid < 0) throw std::runtime_error(std::string("forkpty: ") + std::strerror(errno));
  if (pid == 0) {
    execve(args[0], args.data(), envp.data());
    _exit(127);
  }
  PtyResult result;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_seconds);
  char buf[4096];
  for (;;) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      result.timed_out = true;
      kill(pid, SIGKILL);
      break;
    }
    pollfd p{master, POLLIN, 0};
    const int ready = poll(&p, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;
    const ssize_t n = read(master, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // EIO: the child's side of the terminal is closed
    result.output.append(buf, static_cast<size_t>(n));
  }
  close(master);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.output.erase(std::remove(result.output.begin(), result.output.end(), '\r'), result.output.end());
  return result;
}

}  // namespace wasinn_cli_test
