// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The digits classifier through classify_digits.wasm: its logits must equal native ONNX
// Runtime's bit for bit (same model, same inputs, one intra-op thread on both sides), and it
// must classify at least 95% of the held-out digits correctly.
#include <gtest/gtest.h>

#include <cstring>

#include "digits_reference.h"
#include "test_env.h"

namespace wasinn_it {
namespace {

// Runs the guest with `model_arg` (a guest path or name:NAME) and checks everything the
// issue asks of it; host_args select how the model reaches the host.
void check_guest_run(const std::vector<std::string>& host_args, const std::string& model_arg) {
  ScratchDir out;
  std::vector<std::string> args{"run"};
  args.insert(args.end(), host_args.begin(), host_args.end());
  const auto ort = single_thread_ort();
  args.insert(args.end(), ort.begin(), ort.end());
  args.insert(args.end(),
              {"--dir", fixture("digits").string() + "::/digits", "--dir", out.path().string() + "::/out",
               guest("classify_digits"), model_arg, "/digits/test_x.f32", "/digits/test_y.u8", "/out/logits.f32"});
  const ChildResult r = run_wasinn(args);
  ASSERT_EQ(r.exit_code, 0) << r.describe();

  const auto labels = read_bytes(fixture("digits/test_y.u8"));
  const auto guest_logits = read_array<float>(out / "logits.f32");
  const auto& native = native_digit_logits();
  ASSERT_EQ(labels.size(), 450u);
  ASSERT_EQ(guest_logits.size(), labels.size() * kDigitClasses);
  ASSERT_EQ(native.size(), guest_logits.size());

  size_t differing = 0, first = 0;
  for (size_t i = 0; i < native.size(); ++i) {
    if (std::memcmp(&native[i], &guest_logits[i], sizeof(float)) != 0 && differing++ == 0) first = i;
  }
  EXPECT_EQ(differing, 0u) << "first difference at logit " << first << ": guest " << guest_logits[first] << ", native "
                           << native[first];

  const size_t correct = correct_count(guest_logits, labels);
  EXPECT_GE(correct * 100, labels.size() * 95) << correct << "/" << labels.size() << " correct";
  // The guest's own count must agree with the one computed from the logits it wrote.
  const std::string expected_line = "accuracy: " + std::to_string(correct) + "/" + std::to_string(labels.size());
  EXPECT_NE(r.out.find(expected_line), std::string::npos) << r.describe();
}

TEST(Digits, LoadedByPathMatchesNativeOrtBitExactly) { check_guest_run({}, "/digits/model.onnx"); }

TEST(Digits, PreloadedByNameMatchesNativeOrtBitExactly) {
  check_guest_run({"--nn-preload", "digits:ONNX:AUTO:" + fixture("digits/model.onnx").string()}, "name:digits");
}

}  // namespace
}  // namespace wasinn_it
