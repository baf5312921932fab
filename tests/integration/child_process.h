// Runs a program as a child process with captured stdout and stderr, so a test can check what
// `wasinn` printed and how it exited, as a user's shell would see it.
#pragma once

#include <string>
#include <vector>

namespace wasinn_it {

struct ChildOptions {
  std::string stdin_text;                // fed to the child's stdin, then closed
  std::vector<std::string> unset_env;    // removed from the inherited environment
  int timeout_seconds = 60;              // the child is killed after this long
};

struct ChildResult {
  int exit_code = -1;    // the exit status, or 128 + signal number if a signal ended it
  bool timed_out = false;
  std::string out;       // everything written to stdout
  std::string err;       // everything written to stderr
  // "exit 3, stdout: ..., stderr: ..." for assertion messages.
  std::string describe() const;
};

// argv[0] is the program's path. Never throws for a failing child; throws std::runtime_error
// only when the child cannot be started at all.
ChildResult run_child(const std::vector<std::string>& argv, const ChildOptions& options = {});

}  // namespace wasinn_it
