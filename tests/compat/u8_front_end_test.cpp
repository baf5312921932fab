// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The u8 variant of the digits model (u8_front_end.h) must be the f32 model exactly, or the u8
// guests' answers would prove nothing; and bytes that are not a model must be refused.
#include <gtest/gtest.h>

#include <stdexcept>

#include "compat_env.h"
#include "digits_reference.h"
#include "u8_front_end.h"

namespace wasinn_compat {
namespace {

TEST(U8FrontEnd, ReproducesTheF32ModelExactly) {
  const auto& f32 = native_f32_answer();
  const auto& u8 = native_u8_answer();
  EXPECT_EQ(u8.predictions, f32.predictions);
  EXPECT_EQ(u8.correct, f32.correct);
  EXPECT_EQ(u8.logits0, f32.logits0);
  EXPECT_GE(f32.correct * 100, f32.total * 95) << "the fixture classifier should be at least 95% right";
}

TEST(U8FrontEnd, RefusesWhatIsNotTheExpectedModel) {
  const std::vector<uint8_t> garbage{0x0a, 0xff, 0x01};
  EXPECT_THROW(make_u8_front_end(garbage, "input", kPixelScale), std::runtime_error);
  const auto model = read_bytes(fixture("digits/model.onnx"));
  EXPECT_THROW(make_u8_front_end(model, "no_such_input", kPixelScale), std::runtime_error);
  EXPECT_THROW(unscale_features({0.5f / 16}, kPixelScale), std::runtime_error);
}

}  // namespace
}  // namespace wasinn_compat
