// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// MobileNetV2 through run_model.wasm: bit-exact with native ONNX Runtime (one intra-op thread
// on both sides) and within 1e-3 of the PyTorch output the fixture was exported from.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "native_ort.h"
#include "test_env.h"

namespace wasinn_it {
namespace {

TEST(MobileNetV2, MatchesNativeOrtBitExactlyAndTorchWithinTolerance) {
  ScratchDir out;
  std::vector<std::string> args{"run"};
  const auto ort = single_thread_ort();
  args.insert(args.end(), ort.begin(), ort.end());
  args.insert(args.end(), {"--dir", fixture("mobilenet_v2").string() + "::/m", "--dir", out.path().string() + "::/out",
                           guest("run_model"), "--model", "/m/model.onnx", "--input", "0:f32:1x3x224x224:/m/input.f32",
                           "--output", "0:/out/logits.f32"});
  const ChildResult r = run_wasinn(args);
  ASSERT_EQ(r.exit_code, 0) << r.describe();

  const auto guest_out = read_array<float>(out / "logits.f32");
  NativeOrtModel native_model(read_bytes(fixture("mobilenet_v2/model.onnx")), 1);
  const auto native = native_model.run(read_array<float>(fixture("mobilenet_v2/input.f32")), {1, 3, 224, 224});
  const auto torch = read_array<float>(fixture("mobilenet_v2/expected.f32"));
  ASSERT_EQ(guest_out.size(), 1000u);
  ASSERT_EQ(native.size(), 1000u);
  ASSERT_EQ(torch.size(), 1000u);

  EXPECT_EQ(std::memcmp(guest_out.data(), native.data(), native.size() * sizeof(float)), 0)
      << "the guest's output differs from native ONNX Runtime's";
  float worst = 0;
  for (size_t i = 0; i < torch.size(); ++i) worst = std::max(worst, std::fabs(guest_out[i] - torch[i]));
  EXPECT_LT(worst, 1e-3f) << "max |guest - torch|";
  const auto top = [](const std::vector<float>& v) { return std::max_element(v.begin(), v.end()) - v.begin(); };
  EXPECT_EQ(top(guest_out), top(torch));
}

}  // namespace
}  // namespace wasinn_it
