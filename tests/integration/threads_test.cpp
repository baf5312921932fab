// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// wasi-threads guests (guest/examples/threads_nn.c) on the real ONNX Runtime plugin: the threads of
// one guest share its wasi-nn handles, distinct contexts compute in parallel with the
// single-threaded (and native) answers, one context used by two threads answers busy or, with
// --nn-context-wait, serves both in turn; unload under running computes is safe; an exit or a
// trap in any thread ends the guest with its code; --max-threads bounds thread-spawn.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>

#include "digits_reference.h"
#include "test_env.h"

namespace wasinn_it {
namespace {

// `wasinn run [host_args] threads_nn.wasm guest_args...` with the digits fixture at /d.
ChildResult run_threads(const std::vector<std::string>& host_args, const std::vector<std::string>& guest_args,
                        const std::string& out_dir = "") {
  std::vector<std::string> args{"run"};
  args.insert(args.end(), host_args.begin(), host_args.end());
  const auto ort = single_thread_ort();
  args.insert(args.end(), ort.begin(), ort.end());
  args.insert(args.end(), {"--dir", fixture("digits").string() + "::/d"});
  if (!out_dir.empty()) args.insert(args.end(), {"--dir", out_dir + "::/out"});
  args.push_back(guest("threads_nn"));
  args.insert(args.end(), guest_args.begin(), guest_args.end());
  return run_wasinn(args);
}

const std::vector<std::string> kDigits{"/d/model.onnx", "/d/test_x.f32", "/d/test_y.u8"};

std::vector<std::string> with_digits(std::vector<std::string> args) {
  args.insert(args.end(), kDigits.begin(), kDigits.end());
  return args;
}

TEST(Threads, FourThreadsOnTheirOwnContextsGiveTheSingleThreadedAndNativeOutputs) {
  ScratchDir out;
  auto args = with_digits({"parallel", "4"});
  args.push_back("/out/logits.f32");
  const ChildResult r = run_threads({}, args, out.path().string());
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_NE(r.out.find("parallel: 4 threads, 1800 computes, every output equal to the single-threaded one: yes"),
            std::string::npos)
      << r.describe();
  // The single-threaded outputs every thread matched are native ONNX Runtime's, bit for bit.
  const auto guest_logits = read_array<float>(out / "logits.f32");
  const auto& native = native_digit_logits();
  ASSERT_EQ(guest_logits.size(), native.size());
  EXPECT_EQ(std::memcmp(guest_logits.data(), native.data(), native.size() * sizeof(float)), 0);
  const auto labels = read_bytes(fixture("digits/test_y.u8"));
  EXPECT_NE(r.out.find("single thread: accuracy " + std::to_string(correct_count(native, labels)) + "/450"),
            std::string::npos)
      << r.describe();
}

TEST(Threads, ASecondThreadOnAContextInUseIsToldBusy) {
  const ChildResult r = run_threads({}, with_digits({"busy"}));
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_NE(r.out.find("busy: told busy after"), std::string::npos) << r.describe();
}

TEST(Threads, WithContextWaitTwoThreadsOnOneContextBothGetRightAnswers) {
  const ChildResult r = run_threads({"--nn-context-wait"}, with_digits({"shared", "2"}));
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_NE(r.out.find("shared: 2 threads x 200 computes on one context: 400 done, busy 0, wrong 0"), std::string::npos)
      << r.describe();
}

TEST(Threads, UnloadAndFinalizeWhileOtherThreadsComputeIsSafe) {
  const ChildResult r = run_threads({}, with_digits({"unload", "3"}));
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_NE(r.out.find(", wrong 0; graph unloaded and contexts finalized under them"), std::string::npos)
      << r.describe();
  EXPECT_NE(r.out.find("after unload: a new graph computes the same answer"), std::string::npos) << r.describe();
}

TEST(Threads, ATrapInAThreadEndsTheGuestWithTheTrapCode) {
  const auto start = std::chrono::steady_clock::now();
  const ChildResult r = run_threads({}, {"trap"});
  EXPECT_EQ(r.exit_code, 134) << r.describe();
  EXPECT_NE(r.err.find("thread 1: "), std::string::npos) << r.describe();
  EXPECT_NE(r.err.find("unreachable"), std::string::npos) << r.describe();
  // The main thread waits forever in memory.atomic.wait: the guest still ends at once.
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
}

TEST(Threads, ProcExitInAThreadEndsTheGuestWithItsCode) {
  const ChildResult r = run_threads({}, {"exit", "7"});
  EXPECT_EQ(r.exit_code, 7) << r.describe();
}

TEST(Threads, SpawnPastMaxThreadsGetsAnErrorResult) {
  const ChildResult r = run_threads({"--max-threads", "3"}, {"spawn", "10"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_NE(r.out.find("spawn: 3 of 10 threads began; first failure -6"), std::string::npos) << r.describe();
  EXPECT_NE(r.err.find("the most --max-threads allows"), std::string::npos) << r.describe();
}

TEST(Threads, WasmtimeThreadsFlagsAreAccepted) {
  const ChildResult r = run_threads({"-W", "threads=y", "-S", "threads=y"}, {"spawn", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_NE(r.out.find("spawn: 2 of 2 threads began"), std::string::npos) << r.describe();
  const ChildResult off = run_threads({"-S", "threads=n"}, {"spawn", "2"});
  EXPECT_NE(off.exit_code, 0) << off.describe();
}

}  // namespace
}  // namespace wasinn_it
