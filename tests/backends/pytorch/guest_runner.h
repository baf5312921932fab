// Runs the real `wasinn run` command on the run_model guest (guest/examples/run_model.c) and
// captures its exit code, stdout and stderr: the path a user's guest takes, end to end.
#pragma once

#include <spawn.h>
#include <sys/wait.h>
#include <fcntl.h>

#include <string>
#include <vector>

#include "test_files.h"

extern char **environ;

namespace torch_test {

struct GuestRun {
  int exit_code = -1;  // run_model exits with the errno of a failed wasi-nn call
  std::string out;
  std::string err;     // the host's warnings carry each error's detail
};

inline std::string slurp(const std::filesystem::path &p) {
  const auto bytes = read_file(p);
  return {bytes.begin(), bytes.end()};
}

// `wasinn run <host_args> run_model.wasm <guest_args>`, with 1 intra-op thread unless host_args
// configure the backend themselves.
inline GuestRun run_guest(const std::vector<std::string> &host_args,
                          const std::vector<std::string> &guest_args) {
  ScratchDir logs;
  std::vector<std::string> argv_s = {WASINN_CLI, "run"};
  argv_s.insert(argv_s.end(), host_args.begin(), host_args.end());
  argv_s.push_back(std::string(WASINN_GUEST_DIR) + "/run_model.wasm");
  argv_s.insert(argv_s.end(), guest_args.begin(), guest_args.end());
  std::vector<char *> argv;
  for (auto &s : argv_s) argv.push_back(s.data());
  argv.push_back(nullptr);

  const std::string out_path = (logs.path() / "stdout").string();
  const std::string err_path = (logs.path() / "stderr").string();
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&fa, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = 0;
  GuestRun r;
  const int rc = posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) {
    ADD_FAILURE() << "cannot start " << argv[0] << ": " << std::strerror(rc);
    return r;
  }
  int status = 0;
  waitpid(pid, &status, 0);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = slurp(out_path);
  r.err = slurp(err_path);
  return r;
}

// "--input I:TYPE:DIMS:FILE" value for run_model; TYPE in witx numbering names.
inline std::string input_arg(uint32_t index, const char *type, const std::vector<uint32_t> &dims,
                             const std::string &guest_file) {
  std::string d;
  for (uint32_t v : dims) d += (d.empty() ? "" : "x") + std::to_string(v);
  return std::to_string(index) + ":" + type + ":" + d + ":" + guest_file;
}

}  // namespace torch_test
