// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// One embedded Host (include/wasinn/host.h) runs a legacy wasi_nn guest and a wasi_ephemeral_nn
// guest in turn, with a model registered once: the per-module tables live in the guest session,
// not in the Host. The guests' stdout is the process's, so it is redirected to a file per run.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>

#include "compat_env.h"
#include "guest_report.h"
#include "wasinn/host.h"

namespace wasinn_compat {
namespace {

// Runs the program with fd 1 pointing at a temporary file; returns what the guest printed.
std::string run_capturing_stdout(wasinn::Host& host, const wasinn::Program& program, int* exit_code) {
  const fs::path file = data_dir() / ("stdout-" + std::to_string(getpid()) + ".txt");
  std::fflush(stdout);
  const int saved = dup(1);
  const int fd = open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (saved < 0 || fd < 0) throw std::runtime_error("cannot redirect stdout");
  dup2(fd, 1);
  close(fd);
  *exit_code = host.run(program).exit_code;
  std::fflush(stdout);
  dup2(saved, 1);
  close(saved);
  const auto bytes = read_bytes(file);
  fs::remove(file);
  return std::string(bytes.begin(), bytes.end());
}

TEST(OneHost, ServesLegacyAndEphemeralGuestsInTurn) {
  wasinn::HostOptions options;
  options.backend_dirs = {backend_dir().string()};
  options.preloads = {"digits:onnx:cpu:" + fixture("digits/model.onnx").string()};
  std::string error;
  auto host = wasinn::Host::create(options, &error);
  ASSERT_TRUE(host) << error;

  for (const char* name : {"compat_wamr_legacy", "compat_wamr_ephemeral", "compat_wamr_legacy"}) {
    wasinn::Program program;
    program.wasm_path = guest(name).string();
    program.args = {"--name", "digits", "--x", "/data/test_x.f32", "--y", "/data/test_y.u8"};
    program.dirs = {{data_dir().string(), "/data"}};
    int exit_code = -1;
    const std::string out = run_capturing_stdout(*host, program, &exit_code);
    ASSERT_EQ(exit_code, 0) << name << " printed:\n" << out;
    SCOPED_TRACE(name);
    expect_answer(out, native_f32_answer());
  }
}

}  // namespace
}  // namespace wasinn_compat
