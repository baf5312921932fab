// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "guest_runner.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "support/stream_bytes.h"

extern char** environ;

namespace wasinn_test {

std::string scratch_dir(const std::string& name) {
  const char* tmp = std::getenv("TMPDIR");
  auto dir = std::filesystem::path(tmp && *tmp ? tmp : "/tmp") / ("wasinn-test-" + std::to_string(getpid())) / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

GuestRun run_guest(const std::vector<std::string>& host_args, const std::string& guest,
                   const std::vector<std::string>& guest_args) {
  std::vector<std::string> args = {"run", "--backend-dir", WASINN_BACKEND_DIR};
  args.insert(args.end(), host_args.begin(), host_args.end());
  args.push_back(std::string(WASINN_GUEST_DIR) + "/" + guest + ".wasm");
  args.insert(args.end(), guest_args.begin(), guest_args.end());
  return run_wasinn(args, guest);
}

namespace {

GuestRun spawn_wasinn(const std::vector<std::string>& args, const std::string& log_name, bool split) {
  std::vector<std::string> argv = {WASINN_CLI};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> raw;
  for (auto& a : argv) raw.push_back(a.data());
  raw.push_back(nullptr);

  const std::string log = scratch_dir("logs") + "/" + log_name + ".log";
  const std::string err_log = log + ".stderr";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (split)
    posix_spawn_file_actions_addopen(&actions, 2, err_log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  else
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
  GuestRun run;
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, raw[0], &actions, nullptr, raw.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    run.output = "posix_spawn " + argv[0] + " failed";
    return run;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  std::ifstream f(log);
  run.output = stream_bytes<std::string>(f);
  if (split) {
    std::ifstream e(err_log);
    run.errors = stream_bytes<std::string>(e);
  }
  return run;
}

}  // namespace

GuestRun run_wasinn(const std::vector<std::string>& args, const std::string& log_name) {
  return spawn_wasinn(args, log_name, false);
}

GuestRun run_wasinn_split(const std::vector<std::string>& args, const std::string& log_name) {
  return spawn_wasinn(args, log_name, true);
}

}  // namespace wasinn_test
