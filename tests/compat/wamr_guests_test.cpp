// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// C guests written against WAMR's two guest ABIs (guest/wamr): wasi_ephemeral_nn as WAMR >= 2.4
// lays it out (u8 type byte and three padding bytes, here garbage; ggml 5 / autodetect 6), and
// the legacy wasi_nn module (12-byte tensor, four-parameter load and get_output, output counted
// in f32 elements). Each classifies the held-out digits and must print native ONNX Runtime's
// answer.
#include <gtest/gtest.h>

#include "compat_env.h"
#include "guest_report.h"

namespace wasinn_compat {
namespace {

const std::vector<std::string> kF32{"--x", "/data/test_x.f32", "--y", "/data/test_y.u8"};
const std::vector<std::string> kU8{"--u8", "--x", "/data/test_x.u8", "--y", "/data/test_y.u8"};

std::vector<std::string> operator+(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

TEST(WamrEphemeral, GarbagePaddingAfterTheTypeByte) {
  const auto r = run_guest({}, "compat_wamr_ephemeral", std::vector<std::string>{"--model", "/data/model.onnx"} + kF32);
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  auto report = parse_report(r.out);
  EXPECT_EQ(report["tensor type sent"], "1 (padding a5 5a c3)");
  expect_answer(r.out, native_f32_answer());
  // Too small a buffer: too_large, with the size needed in bytes.
  EXPECT_EQ(report["small buffer"], "errno 7, size reported 40");
}

TEST(WamrEphemeral, U8IsThreeWithGarbagePadding) {
  const auto r =
      run_guest({}, "compat_wamr_ephemeral", std::vector<std::string>{"--model", "/data/digits_u8/model.onnx"} + kU8);
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_EQ(parse_report(r.out)["tensor type sent"], "3 (padding a5 5a c3)");
  expect_answer(r.out, native_u8_answer());
}

TEST(WamrEphemeral, EncodingSixIsWamrsAutodetect) {
  // 6 is autodetect for WAMR and ggml for WasmEdge: wasinn looks at the bytes and finds ONNX.
  const auto r = run_guest({}, "compat_wamr_ephemeral",
                           std::vector<std::string>{"--model", "/data/model.onnx", "--encoding", "6"} + kF32);
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  expect_answer(r.out, native_f32_answer());
}

TEST(WamrEphemeral, LoadByNameWithAPathRegisteredAsTheName) {
  // WAMR opens load_by_name's argument as a host file; wasinn serves only registered names, so
  // a WAMR guest's path is registered as the name.
  const auto r = run_guest({"--nn-preload", "/data/model.onnx:onnx:cpu:" + fixture("digits/model.onnx").string()},
                           "compat_wamr_ephemeral", std::vector<std::string>{"--name", "/data/model.onnx"} + kF32);
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  expect_answer(r.out, native_f32_answer());
}

TEST(WamrLegacy, ClassifiesWithOutputCountedInF32Elements) {
  const auto r = run_guest({}, "compat_wamr_legacy", std::vector<std::string>{"--model", "/data/model.onnx"} + kF32);
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  auto report = parse_report(r.out);
  EXPECT_EQ(report["tensor type sent"], "1");
  expect_answer(r.out, native_f32_answer());
  // Room for 5 of the 10 f32 elements: too_large in WAMR 2.4's numbering.
  EXPECT_EQ(report["small capacity"], "errno 7");
}

TEST(WamrLegacy, Up8IsTwo) {
  const auto r =
      run_guest({}, "compat_wamr_legacy", std::vector<std::string>{"--model", "/data/digits_u8/model.onnx"} + kU8);
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_EQ(parse_report(r.out)["tensor type sent"], "2");
  expect_answer(r.out, native_u8_answer());
}

TEST(WamrLegacy, LoadByName) {
  const auto r = run_guest({"--nn-preload", "digits:ONNX:CPU:" + fixture("digits/model.onnx").string()},
                           "compat_wamr_legacy", std::vector<std::string>{"--name", "digits"} + kF32);
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  expect_answer(r.out, native_f32_answer());
}

TEST(WamrMixed, OneModuleImportingBothModules) {
  // No WAMR build serves both; one wasinn process does, for the same guest.
  const auto r = run_guest({}, "compat_wamr_mixed", std::vector<std::string>{"--model", "/data/model.onnx"} + kF32);
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  expect_answer(r.out, native_f32_answer(), "legacy ");
  expect_answer(r.out, native_f32_answer(), "ephemeral ");
}

}  // namespace
}  // namespace wasinn_compat
