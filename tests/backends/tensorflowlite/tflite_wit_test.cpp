// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Named tensors through WIT components (wasi:nn@0.2.0-rc-2024-10-28) on real LiteRT: the
// component guests wit_run_model and wit_classify_digits on `wasinn run`, outputs compared by
// name with LiteRT's C API called directly, names with `wasinn models inspect`, and the digits
// answers with the witx guest classify_digits. A tensor's name is its signature name, else its
// tensor name (which set_input/get_output also take).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "native_litert.h"
#include "plugin_harness.h"
#include "wit_guest.h"

namespace wasinn_test {
namespace {

using ::testing::ElementsAre;

// types_int: (b i64 [1, 4], a i32 [1, 4]) in interpreter order -> (b_out, a_out). Given a then b
// by name, the outputs come back as b_out, a_out, equal to native LiteRT's.
TEST(TfliteWit, IntTensorsByNameMatchNative) {
  const std::string model = (fixtures_dir() / "tflite/types_int.tflite").string();
  const InspectedIo io = inspect_io({model});
  ASSERT_EQ(io.error, "");
  EXPECT_THAT(io.inputs, ElementsAre("b", "a"));
  EXPECT_THAT(io.outputs, ElementsAre("b_out", "a_out"));

  const std::vector<int32_t> a = {1, -2, 300, 2000000};
  const std::vector<int64_t> b = {1, -2, 3000000000LL, -(1LL << 40)};
  const std::string in = scratch_dir("types_int_in");
  write_file(in + "/a.i32", as_bytes(a));
  write_file(in + "/b.i64", as_bytes(b));
  NativeLiteRt native(read_fixture("tflite/types_int.tflite"));
  ASSERT_EQ(native.error(), "");
  const auto want = native.run({{{1, 4}, as_bytes(b)}, {{1, 4}, as_bytes(a)}});
  ASSERT_EQ(want.size(), 2u) << native.error();

  const WitModelRun r = run_wit_model(
      "types_int", {"--dir", fixtures_dir().string() + "::/fx", "--dir", in + "::/in"},
      {"--model", "/fx/tflite/types_int.tflite", "--encoding", "tensorflowlite", "--input",
       wit_input("a", "i32", {1, 4}, "/in/a.i32"), "--input", wit_input("b", "i64", {1, 4}, "/in/b.i64")});
  ASSERT_EQ(r.run.exit_code, 0) << r.run.output;
  EXPECT_EQ(r.names(), io.outputs);
  ASSERT_EQ(r.outputs.size(), 2u);
  EXPECT_EQ(r.outputs[0].type, "i64");
  EXPECT_EQ(r.outputs[1].type, "i32");
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(r.outputs[i].dims, "1x4") << io.outputs[i];
    EXPECT_TRUE(r.outputs[i].data == want[i].bytes) << io.outputs[i] << " differs from native LiteRT";
  }
  EXPECT_EQ(as_vector<int32_t>(r.outputs[1].data), (std::vector<int32_t>{2, -7, 899, 5999999}));
}

// The float digits model through wit_classify_digits and the witx classify_digits: the same
// stdout and logits, byte for byte.
TEST(TfliteWit, DigitsComponentMatchesWitxGuest) {
  const std::string model = (fixtures_dir() / "tflite/digits_f32.tflite").string();
  InspectedIo io;
  expect_digits_component_matches_witx("digits_tflite", "digits:tensorflowlite:cpu:" + model, {model}, {}, &io);
  EXPECT_THAT(io.inputs, ElementsAre("input"));
  EXPECT_THAT(io.outputs, ElementsAre("logits"));
}

}  // namespace
}  // namespace wasinn_test
