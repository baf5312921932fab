// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Runs guest/tests/nn_error_paths.c, which calls every wasi-nn function with bad handles, bad
// pointers, bad tensors and in wrong orders, and checks each errno itself. The guest's verdict
// alone could hide a host that returns the right numbers while doing the wrong thing, so this
// side checks that the host reported each rejected call (with a detail), stayed alive, and
// computed correctly afterwards.
#include <gtest/gtest.h>

#include <regex>
#include <sstream>

#include "test_env.h"

namespace wasinn_it {
namespace {

// At debug (-vv), where every refused call is a line of its own (the default level warns of each
// kind once, then by count: tests/cli/output_test.cpp).
ChildResult run_error_guest() {
  std::vector<std::string> args{"run",
                                "-vv",
                                "--nn-preload",
                                "digits:ONNX:AUTO:" + fixture("digits/model.onnx").string(),
                                "--dir",
                                fixture("digits").parent_path().string() + "::/f",
                                guest("nn_error_paths"),
                                "/f"};
  return run_wasinn(args);
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

TEST(ErrorPaths, EveryCaseGetsItsErrnoAndTheHostKeepsRunning) {
  const ChildResult r = run_error_guest();
  EXPECT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_EQ(r.out.find("FAIL"), std::string::npos) << r.describe();

  // The host stayed alive and correct: the guest's checked inference after all the errors ran.
  EXPECT_NE(r.out.find("final inference: tiny y = 1.5 1 5.25 104, digit predicted 2 label 2"), std::string::npos)
      << r.describe();
  std::smatch summary;
  ASSERT_TRUE(std::regex_search(r.out, summary, std::regex(R"((\d+) cases, 0 failed)"))) << r.describe();
  EXPECT_GE(std::stoi(summary[1]), 60);

  // Each rejected call must appear in the host's log, in order, with the same errno and a
  // detail: the guest's non-zero errnos and the host's reported codes are the same sequence.
  std::vector<int> guest_errnos, host_errnos;
  const std::regex ok_line(R"(^ok \S+ errno (\d+)$)");
  const std::regex host_line(R"(^wasinn: .*wasi_ephemeral_nn::\w+ -> \w+ \((\d+)\): .+$)");
  for (const auto& line : lines(r.out)) {
    std::smatch m;
    if (std::regex_match(line, m, ok_line) && m[1] != "0") guest_errnos.push_back(std::stoi(m[1]));
  }
  for (const auto& line : lines(r.err)) {
    std::smatch m;
    if (std::regex_match(line, m, host_line)) host_errnos.push_back(std::stoi(m[1]));
  }
  EXPECT_FALSE(guest_errnos.empty());
  EXPECT_EQ(guest_errnos, host_errnos) << r.describe();
}

TEST(ErrorPaths, DetailsNameWhatWasWrong) {
  const ChildResult r = run_error_guest();
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  for (const char* detail : {
           // bad tensors: expected and received type and shape
           R"(input 0 ("input"): expected f32 [?, 64], got i32 [1, 64])",
           R"(input 0 ("input"): expected f32 [?, 64], got f32 [1, 32])",
           "input 0: f32 [1, 64] needs 256 bytes of data, got 252",
           "input 0: f32 [65536, 65536] needs 17179869184 bytes of data, got 0",
           "overflows 64 bits",
           // a too-small output buffer names the required size
           "output f32 [1, 10] is 40 bytes, the buffer holds 39",
           // out-of-range pointers name the address instead of trapping
           "set_input: tensor: 20 bytes at guest address 0xffffff00 lie outside",
           "get_output: bytes_written: 4 bytes at guest address 0xffffff00 lie outside",
           // handles and lifetimes
           "graph handle 57005 was never created",
           "was already released",
           "model name contains a NUL byte",
           "no model named 'no-such-model' is registered",
           "target gpu is not available",
           "the onnxruntime backend does not stream tokens",
       }) {
    EXPECT_NE(r.err.find(detail), std::string::npos) << "missing detail: " << detail << "\n" << r.describe();
  }
  EXPECT_EQ(r.err.find("trap"), std::string::npos) << r.describe();
}

}  // namespace
}  // namespace wasinn_it
