// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Runs a program as a child process with its stdout and stderr captured, so a test sees what a
// guest printed through `wasinn run` and how it exited, as a user's shell would.
#pragma once

#include <string>
#include <vector>

namespace wasinn_compat {

struct ChildResult {
  int exit_code = -1;  // the exit status, or 128 + the signal number
  bool timed_out = false;
  std::string out, err;
  std::string describe() const;  // "exit N\nstdout:\n...\nstderr:\n..." for failure messages
};

// argv[0] is the program's path. Kills the child after timeout_seconds. Throws
// std::runtime_error only if the child cannot be started.
ChildResult run_child(const std::vector<std::string>& argv, int timeout_seconds = 120);

}  // namespace wasinn_compat
