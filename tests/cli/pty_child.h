// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Runs a program with stdout and stderr on a pseudo-terminal, as in a user's terminal, so a
// test sees what wasinn writes only to a terminal (the progress line of a long model load).
#pragma once

#include <string>
#include <vector>

namespace wasinn_cli_test {

struct PtyResult {
  int exit_code = -1;  // the exit status, or 128 + signal number
  bool timed_out = false;
  std::string output;  // stdout and stderr together, as the terminal showed them ("\r\n" -> "\n")
  std::string describe() const;
};

// argv[0] is the program's path; `unset_env` names variables removed from the child's
// environment. The child is killed after `timeout_seconds`.
PtyResult run_in_pty(const std::vector<std::string>& argv, const std::vector<std::string>& unset_env,
                     int timeout_seconds = 60);

}  // namespace wasinn_cli_test
