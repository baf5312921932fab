// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Runs a program as a child process with captured stdout and stderr, so a test can check what
// `wasinn` printed and how it exited, as a user's shell would see it.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace wasinn_it {

struct ChildOptions {
  std::string stdin_text;              // fed to the child's stdin, then closed
  std::vector<std::string> unset_env;  // removed from the inherited environment
  std::vector<std::string> set_env;    // NAME=VALUE, added to (or replacing in) the inherited environment
  int timeout_seconds = 60;            // the child is killed after this long
  std::string cwd;                     // the child's working directory ("": the test's)
};

struct ChildResult {
  int exit_code = -1;  // the exit status, or 128 + signal number if a signal ended it
  bool timed_out = false;
  std::string out;  // everything written to stdout
  std::string err;  // everything written to stderr
  // "exit 3, stdout: ..., stderr: ..." for assertion messages.
  std::string describe() const;
};

// argv[0] is the program's path. Never throws for a failing child; throws std::runtime_error
// only when the child cannot be started at all.
ChildResult run_child(const std::vector<std::string>& argv, const ChildOptions& options = {});

// A child the test talks to while it runs: it waits for what the child prints, acts (scrapes
// an endpoint, say), then feeds its stdin and lets it finish. options.timeout_seconds bounds
// the whole life of the child; a child still running at destruction is killed.
class RunningChild {
 public:
  RunningChild(const std::vector<std::string>& argv, const ChildOptions& options = {});
  ~RunningChild();
  RunningChild(const RunningChild&) = delete;
  RunningChild& operator=(const RunningChild&) = delete;

  // Reads the child's output until `done` holds for it (stdout, stderr so far); false if the
  // child closed both or the time ran out first.
  bool wait_until(const std::function<bool(const std::string& out, const std::string& err)>& done);
  // Writes `text` (then options.stdin_text, if not yet written) to stdin, closes it, reads
  // everything else the child prints and waits for its exit.
  ChildResult finish(const std::string& text = {});

 private:
  // Moves output into result_ and pending stdin into the child until `stop` or both outputs close.
  void pump(const std::function<bool()>& stop);
  pid_t pid_ = -1;
  int in_ = -1, out_ = -1, err_ = -1;
  std::string to_write_;
  size_t written_ = 0;
  ChildResult result_;
  std::chrono::steady_clock::time_point deadline_;
};

}  // namespace wasinn_it
