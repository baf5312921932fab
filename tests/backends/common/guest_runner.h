// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Runs the wasinn command on a wasm guest in a child process and captures its exit code and
// output, so tests exercise the whole path a user's guest takes: engine, witx ABI, host, plugin.
#pragma once

#include <string>
#include <vector>

namespace wasinn_test {

struct GuestRun {
  int exit_code = -1;  // the guest's exit status; -1 if wasinn could not be started
  std::string output;  // stdout and stderr together (stdout alone from run_wasinn_split)
  std::string errors;  // stderr, from run_wasinn_split only
};

// `wasinn run --backend-dir <built backends> <host_args...> <guest>.wasm <guest_args...>`.
GuestRun run_guest(const std::vector<std::string>& host_args, const std::string& guest,
                   const std::vector<std::string>& guest_args);

// `wasinn <args...>` (any command: "models", "inspect", ...), its output logged as <log_name>.log.
GuestRun run_wasinn(const std::vector<std::string>& args, const std::string& log_name);

// run_wasinn with stdout (output) and stderr (errors) apart, for byte comparisons of stdout.
GuestRun run_wasinn_split(const std::vector<std::string>& args, const std::string& log_name);

// A fresh empty directory under the test's temporary directory.
std::string scratch_dir(const std::string& name);

}  // namespace wasinn_test
