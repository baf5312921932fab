// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Named tensors through WIT components (wasi:nn@0.2.0-rc-2024-10-28) on real TensorFlow: the
// component guests wit_run_model and wit_classify_digits on `wasinn run`, outputs compared by
// name with TensorFlow's C API called directly, names with `wasinn models inspect`, and the
// digits answers with the witx guest classify_digits. A SavedModel's names are its serving
// signature's keys; a GraphDef's are its operations' ("op", "op:1" for a later port).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <tensorflow/c/tf_datatype.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "native_tensorflow.h"
#include "plugin_harness.h"
#include "wit_guest.h"

namespace wasinn_test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string fixture_path(const std::string& rel) { return (fixtures_dir() / rel).string(); }

// two_io: (offset i32 [3], x f32 [?, 3]) -> (count i64 [], total f32 [?, 3]), signature keys as
// names, in sorted-name order; each output equal to TensorFlow's own run and to the fixture's.
TEST(TensorflowWit, TwoIoSignatureNamesMatchNative) {
  const std::string pb = fixture_path("tensorflow/two_io/saved_model.pb");
  const InspectedIo io = inspect_io({pb});
  ASSERT_EQ(io.error, "");
  EXPECT_THAT(io.inputs, ElementsAre("offset", "x"));
  EXPECT_THAT(io.outputs, ElementsAre("count", "total"));

  std::ifstream sig_file(fixtures_dir() / "tensorflow/two_io_signature.json");
  const auto sig = nlohmann::json::parse(sig_file, nullptr, false);
  ASSERT_FALSE(sig.is_discarded());
  auto native = NativeTensorFlow::saved_model(fixture_path("tensorflow/two_io"));
  ASSERT_EQ(native->error(), "");
  const auto want =
      native->run({{sig["inputs"]["x"], {TF_FLOAT, {4, 3}, read_fixture("tensorflow/two_io_x.f32")}},
                   {sig["inputs"]["offset"], {TF_INT32, {3}, read_fixture("tensorflow/two_io_offset.i32")}}},
                  {sig["outputs"]["count"], sig["outputs"]["total"]});
  ASSERT_EQ(want.size(), 2u) << native->error();

  const std::vector<std::string> host = {"--dir", fixtures_dir().string() + "::/f", "--nn-preload",
                                         "two:tensorflow:cpu:" + pb};
  const std::string x = wit_input("x", "fp32", {4, 3}, "/f/tensorflow/two_io_x.f32");
  const std::string offset = wit_input("offset", "i32", {3}, "/f/tensorflow/two_io_offset.i32");
  for (bool reversed : {false, true}) {
    const WitModelRun r =
        run_wit_model(reversed ? "two_io_rev" : "two_io", host,
                      {"--name", "two", "--input", reversed ? offset : x, "--input", reversed ? x : offset});
    ASSERT_EQ(r.run.exit_code, 0) << r.run.output;
    EXPECT_EQ(r.names(), io.outputs);
    ASSERT_EQ(r.outputs.size(), 2u);
    EXPECT_EQ(r.outputs[0].type, "i64");
    EXPECT_EQ(r.outputs[0].dims, "-");
    EXPECT_EQ(r.outputs[1].type, "fp32");
    EXPECT_EQ(r.outputs[1].dims, "4x3");
    EXPECT_TRUE(r.outputs[0].data == want[0].bytes) << "count differs from native TensorFlow";
    EXPECT_TRUE(r.outputs[1].data == want[1].bytes) << "total differs from native TensorFlow";
    EXPECT_EQ(r.outputs[0].data, read_fixture("tensorflow/two_io_count.i64"));
    EXPECT_EQ(r.outputs[1].data, read_fixture("tensorflow/two_io_total.f32"));
  }

  // A name the signature lacks: invalid-argument naming the model's inputs.
  const WitModelRun bad =
      run_wit_model("two_io_bad", host,
                    {"--name", "two", "--input", x, "--input",
                     wit_input("serving_default_offset:0", "i32", {3}, "/f/tensorflow/two_io_offset.i32")});
  EXPECT_THAT(bad.run.output, HasSubstr("error invalid-argument"));
  EXPECT_THAT(bad.run.output, HasSubstr("no input named 'serving_default_offset:0'"));
}

// The frozen digits GraphDef through wit_classify_digits and the witx classify_digits: the same
// stdout and logits, byte for byte; the names are the ones inspect shows.
TEST(TensorflowWit, DigitsFrozenComponentMatchesWitxGuest) {
  const std::string pb = fixture_path("tensorflow/digits_frozen.pb");
  InspectedIo io;
  expect_digits_component_matches_witx("digits_frozen", "digits:tensorflow:cpu:" + pb, {pb}, {}, &io);
  EXPECT_THAT(io.inputs, ElementsAre("input"));
  EXPECT_THAT(io.outputs, ElementsAre("logits"));
}

}  // namespace
}  // namespace wasinn_test
