// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// External delegates through the wasinn command and real wasm guests: a model registered for
// target tpu runs on the test delegate configured as the NPU, its answers equal native LiteRT's
// CPU answers, the count file the delegate writes in the wasinn process proves its kernels ran
// and its options arrived, a guest's load config picks among the host's delegates (and cannot
// name a library), failures reach the guest as errnos with the reason in the host's log, a
// delegate that crashes is contained by the load isolation, and `models inspect` reports how
// many nodes a delegate took.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "delegate_test_support.h"
#include "guest_runner.h"
#include "native_litert.h"

namespace wasinn_test {
namespace {

const std::string kFix = "/f";

std::vector<std::string> host_args(const std::string& out, const std::string& backend_config,
                                   const std::string& preload) {
  return {"--dir",
          fixtures_dir().string() + "::" + kFix,
          "--dir",
          out + "::/o",
          "--backend-config",
          "tensorflowlite=" + backend_config,
          "--isolated-load-cache",
          "memory",  // each run checks its own config afresh
          "--nn-preload",
          preload};
}

std::string preload(const std::string& name, const std::string& target, const std::string& fixture) {
  return name + ":tensorflowlite:" + target + ":" + (fixtures_dir() / fixture).string();
}

// "invocations N" from the delegate's count file, or -1.
long long invocations_in(const std::string& file) {
  if (!std::filesystem::exists(file)) return -1;
  const auto bytes = read_file(file);
  const std::string s(bytes.begin(), bytes.end());
  const auto at = s.find("invocations ");
  return at == std::string::npos ? -1 : std::stoll(s.substr(at + 12));
}

std::string text_of(const std::string& file) {
  const auto bytes = read_file(file);
  return {bytes.begin(), bytes.end()};
}

// Native LiteRT on the CPU, one row at a time, as the guest runs it.
std::vector<uint8_t> native_rows(const std::string& model, const std::vector<uint8_t>& x, size_t row_bytes) {
  NativeLiteRt native(read_fixture(model));
  EXPECT_EQ(native.error(), "");
  std::vector<uint8_t> out;
  for (size_t i = 0; i < x.size() / row_bytes; ++i) {
    const std::vector<uint8_t> row(x.begin() + static_cast<std::ptrdiff_t>(i * row_bytes),
                                   x.begin() + static_cast<std::ptrdiff_t>((i + 1) * row_bytes));
    const auto o = native.run({{{1, 64}, row}});
    if (o.size() != 1) {
      ADD_FAILURE() << native.error();
      return {};
    }
    out.insert(out.end(), o[0].bytes.begin(), o[0].bytes.end());
  }
  return out;
}

TEST(TfliteDelegateGuest, DigitsFloatOnTargetTpuEqualsNativeCpu) {
  const std::string out = scratch_dir("guest_tpu_f32"), count = out + "/count";
  const GuestRun run =
      run_guest(host_args(out, test_delegate_config("\"count_file\": \"" + count + "\", \"tag\": \"from-host\""),
                          preload("digits", "tpu", "tflite/digits_f32.tflite")),
                "classify_samples", {"name:digits", "4", "1", "1x64", kFix + "/digits/test_x.f32", "/o/logits.f32"});
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const auto guest = as_vector<float>(read_file(out + "/logits.f32"));
  const auto want = as_vector<float>(native_rows("tflite/digits_f32.tflite", read_fixture("digits/test_x.f32"), 256));
  ASSERT_EQ(guest.size(), want.size());
  double worst = 0;
  size_t argmax_differ = 0;
  for (size_t i = 0; i < guest.size(); ++i) worst = std::max(worst, double(std::abs(guest[i] - want[i])));
  for (size_t r = 0; r + 10 <= guest.size(); r += 10)
    argmax_differ +=
        std::max_element(&guest[r], &guest[r] + 10) - &guest[r] != std::max_element(&want[r], &want[r] + 10) - &want[r];
  EXPECT_LT(worst, 1e-4);
  EXPECT_EQ(argmax_differ, 0u);
  EXPECT_EQ(invocations_in(count), 2 * 450) << text_of(count);
  EXPECT_TRUE(contains(text_of(count), "tag=from-host")) << text_of(count);
}

TEST(TfliteDelegateGuest, DigitsInt8OnTargetTpuEqualsNativeCpu) {
  const std::string out = scratch_dir("guest_tpu_int8"), count = out + "/count";
  // witx has no i8: the guest sends and receives the int8 bytes typed u8 (3).
  const GuestRun run = run_guest(
      host_args(out, test_delegate_config("\"count_file\": \"" + count + "\""),
                preload("digits8", "tpu", "tflite/digits_int8.tflite")),
      "classify_samples", {"name:digits8", "4", "3", "1x64", kFix + "/tflite/digits_int8_input.i8", "/o/logits.i8"});
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_EQ(read_file(out + "/logits.i8"),
            native_rows("tflite/digits_int8.tflite", read_fixture("tflite/digits_int8_input.i8"), 64));
  EXPECT_EQ(invocations_in(count), 2 * 450) << text_of(count);
}

TEST(TfliteDelegateGuest, AGuestPicksAHostDelegateByNameAndNeverAPath) {
  const std::string out = scratch_dir("guest_pick"), a = out + "/a", b = out + "/b";
  const std::string config =
      delegates_config({delegate_entry("a", kTestDelegate, "tpu", "\"count_file\": \"" + a + "\""),
                        delegate_entry("b", kTestDelegate, "tpu", "\"count_file\": \"" + b + "\"")});
  const auto host = host_args(out, config, preload("digits", "tpu", "tflite/digits_f32.tflite"));
  const std::vector<std::string> guest = {"name:digits",  "4", "1", "1x64", kFix + "/digits/test_x.f32",
                                          "/o/logits.f32"};
  auto with_config = [&](const std::string& c) {
    auto args = guest;
    args.push_back(c);
    return run_guest(host, "classify_samples", args);
  };
  const GuestRun picked = with_config("{\"delegate\": \"b\"}");
  ASSERT_EQ(picked.exit_code, 0) << picked.output;
  EXPECT_EQ(invocations_in(b), 2 * 450);
  EXPECT_EQ(invocations_in(a), -1) << "delegate a was never created";

  const GuestRun path = with_config("{\"path\": \"/tmp/libevil.so\"}");
  EXPECT_EQ(path.exit_code, 1) << path.output;  // invalid_argument
  EXPECT_TRUE(contains(path.output, "errno 1 in load_by_name_with_config")) << path.output;
  EXPECT_TRUE(contains(path.output, "\"path\" is host configuration")) << path.output;
  const GuestRun unknown = with_config("{\"delegate\": \"c\"}");
  EXPECT_EQ(unknown.exit_code, 1) << unknown.output;
  EXPECT_TRUE(contains(unknown.output, "no delegate named \"c\"")) << unknown.output;
}

TEST(TfliteDelegateGuest, AFailingDelegateIsAnErrnoAndTheHostSaysWhy) {
  const std::string out = scratch_dir("guest_fail");
  const std::vector<std::string> guest = {"name:digits",  "4", "1", "1x64", kFix + "/digits/test_x.f32",
                                          "/o/logits.f32"};
  const auto model = preload("digits", "tpu", "tflite/digits_f32.tflite");
  const GuestRun invoke =
      run_guest(host_args(out, test_delegate_config("\"fail_invoke\": \"true\""), model), "classify_samples", guest);
  EXPECT_EQ(invoke.exit_code, 5) << invoke.output;  // runtime_error
  EXPECT_TRUE(contains(invoke.output, "errno 5 in compute")) << invoke.output;
  EXPECT_TRUE(contains(invoke.output, "invoke failed on purpose")) << invoke.output;

  const GuestRun create =
      run_guest(host_args(out, test_delegate_config("\"fail_create\": \"true\""), model), "classify_samples", guest);
  EXPECT_EQ(create.exit_code, 5) << create.output;  // runtime_error at load_by_name
  EXPECT_TRUE(contains(create.output, "refused to create (fail_create)")) << create.output;

  const GuestRun missing =
      run_guest(host_args(out, delegates_config({delegate_entry("gone", "/nonexistent/libgone.so", "tpu")}), model),
                "classify_samples", guest);
  EXPECT_EQ(missing.exit_code, 1) << missing.output;
  EXPECT_TRUE(contains(missing.output, "/nonexistent/libgone.so")) << missing.output;
}

TEST(TfliteDelegateGuest, ADelegateThatCrashesIsContainedByTheLoadIsolation) {
  const std::string out = scratch_dir("guest_crash");
  const GuestRun run =
      run_guest(host_args(out, test_delegate_config("\"crash_prepare\": \"true\""),
                          preload("digits", "tpu", "tflite/digits_f32.tflite")),
                "classify_samples", {"name:digits", "4", "1", "1x64", kFix + "/digits/test_x.f32", "/o/logits.f32"});
  // The guest gets an errno and exits with it; wasinn itself did not crash (that would be 134).
  EXPECT_EQ(run.exit_code, 1) << run.output;
  EXPECT_TRUE(contains(run.output, "errno 1 in load_by_name")) << run.output;
  EXPECT_TRUE(contains(run.output, "crashed")) << run.output;
}

TEST(TfliteDelegateGuest, InspectReportsTheNodesADelegateTook) {
  // Loaded for target tpu, where the delegate is configured: `placement:` says what it took.
  const std::string model = (fixtures_dir() / "tflite/digits_f32.tflite").string();
  const std::string config = "tensorflowlite=" + test_delegate_config("", "", "tpu");
  const std::string took = "delegate \"test\" (" + kTestDelegate + ") took 2 of 2 nodes";
  const GuestRun run = run_wasinn(
      {"models", "inspect", "--backend-dir", WASINN_BACKEND_DIR, "--backend-config", config, "--target", "tpu", model},
      "inspect_delegate");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_TRUE(contains(run.output, "target tpu")) << run.output;
  EXPECT_TRUE(contains(run.output, "placement: " + took)) << run.output;

  const GuestRun json = run_wasinn({"models", "inspect", "--backend-dir", WASINN_BACKEND_DIR, "--backend-config",
                                    config, "--target", "tpu", "--json", model},
                                   "inspect_delegate_json");
  ASSERT_EQ(json.exit_code, 0) << json.output;
  EXPECT_TRUE(contains(json.output, "\"placement\": \"delegate \\\"test\\\"")) << json.output;

  // On the CPU the delegate takes nothing and there is nothing to report.
  const GuestRun cpu =
      run_wasinn({"models", "inspect", "--backend-dir", WASINN_BACKEND_DIR, "--backend-config", config, model},
                 "inspect_delegate_cpu");
  ASSERT_EQ(cpu.exit_code, 0) << cpu.output;
  EXPECT_TRUE(contains(cpu.output, "target cpu")) << cpu.output;
  EXPECT_FALSE(contains(cpu.output, "placement:")) << cpu.output;
}

TEST(TfliteDelegateGuest, BackendsCheckListsTheDelegatesAndTheTargetEachServes) {
  const GuestRun run = run_wasinn({"backends", "--check", "--backend-dir", WASINN_BACKEND_DIR, "--backend-config",
                                   "tensorflowlite=" + test_delegate_config("", "", "tpu")},
                                  "backends_check_delegate");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_TRUE(contains(run.output, "tensorflowlite: targets: cpu: ")) << run.output;
  EXPECT_TRUE(contains(run.output, "tpu: delegate test (" + kTestDelegate + "), CPU for the rest")) << run.output;
}

}  // namespace
}  // namespace wasinn_test
