// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The run_model guest's own command line: rank-0 tensors, inputs and outputs named through an
// `wasinn models inspect --json` file (--io), and a clear one-line error with exit status 2 for
// every malformed argument. Real guest, real `wasinn`, real ONNX Runtime plugin.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "native_ort.h"
#include "test_env.h"

namespace wasinn_it {
namespace {

// types/scale_by_scalar.onnx (scripts/fixtures/onnx_graphs.py): inputs x f32 [?] and s i64 [],
// outputs y = x * float(s) f32 [?] and total = sum(y) f32 []. Every value below is exact in f32.
const std::vector<float> kX{1.5f, -2.0f, 4.0f};
constexpr int64_t kS = 3;
const std::vector<float> kY{4.5f, -6.0f, 12.0f};
constexpr float kTotal = 10.5f;

// A scratch directory the guest sees as /s, with the scale_by_scalar inputs in it; the types
// fixtures at /t and the digits fixtures at /d.
class RunModel : public ::testing::Test {
 protected:
  void SetUp() override {
    write_bytes(dir_ / "x.f32", kX.data(), kX.size() * sizeof(float));
    write_bytes(dir_ / "s.i64", &kS, sizeof kS);
  }

  ChildResult run(const std::vector<std::string>& guest_args, const std::vector<std::string>& host_args = {}) {
    std::vector<std::string> args{"run"};
    args.insert(args.end(), host_args.begin(), host_args.end());
    args.insert(args.end(), {"--dir", fixture("types").string() + "::/t", "--dir", fixture("digits").string() + "::/d",
                             "--dir", dir_.path().string() + "::/s", guest("run_model")});
    args.insert(args.end(), guest_args.begin(), guest_args.end());
    return run_wasinn(args);
  }

  // `wasinn models inspect --json MODEL > /s/NAME`, as the guide tells a user to make it.
  void write_io_file(const std::string& model_fixture, const std::string& name) {
    const ChildResult r = run_wasinn({"models", "inspect", "--json", fixture(model_fixture).string()});
    ASSERT_EQ(r.exit_code, 0) << r.describe();
    write_text(dir_ / name, r.out);
  }

  void expect_scale_by_scalar_answer(const std::string& y_file, const std::string& total_file) {
    EXPECT_EQ(read_array<float>(dir_ / y_file), kY);
    EXPECT_EQ(read_array<float>(dir_ / total_file), std::vector<float>{kTotal});
  }

  ScratchDir dir_;
};

TEST_F(RunModel, RankZeroInputAndOutputWithEmptyDims) {
  // "1:i64::FILE": empty DIMS is a scalar, the case that used to print "cannot open (null)".
  const ChildResult r = run({"--model", "/t/scale_by_scalar.onnx", "--input", "0:f32:3:/s/x.f32", "--input",
                             "1:i64::/s/s.i64", "--output", "0:/s/y", "--output", "1:/s/total"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  expect_scale_by_scalar_answer("y", "total");
  EXPECT_NE(r.out.find("output 1: 4 bytes -> /s/total"), std::string::npos) << r.describe();
}

TEST_F(RunModel, EmptyDimsReachTheHostAsRankZero) {
  // x is [?]: a rank-0 x must reach the host as rank 0 and be refused there, with the guest's
  // usual "errno N in STEP" line and exit status N.
  const float one = 1.0f;
  write_bytes(dir_ / "x4", &one, sizeof one);
  const ChildResult rank0 =
      run({"--model", "/t/scale_by_scalar.onnx", "--input", "0:f32::/s/x4", "--input", "1:i64::/s/s.i64"});
  EXPECT_EQ(rank0.exit_code, 1) << rank0.describe();
  EXPECT_NE(rank0.out.find("errno 1 in set_input"), std::string::npos) << rank0.describe();
  EXPECT_NE(rank0.err.find("expected f32 [?], got f32 []"), std::string::npos) << rank0.describe();
}

TEST_F(RunModel, IoFileNamesInputsAndOutputsAndInfersTheDynamicDim) {
  write_io_file("types/scale_by_scalar.onnx", "io.json");
  const ChildResult r = run({"--model", "/t/scale_by_scalar.onnx", "--io", "/s/io.json", "--input", "x=/s/x.f32",
                             "--input", "s=/s/s.i64", "--output", "y=/s/y", "--output", "total=/s/total"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  expect_scale_by_scalar_answer("y", "total");
  // x's one dynamic dimension came from the file's 12 bytes; s is a scalar by the model's word.
  EXPECT_NE(r.out.find("input 0 'x': f32 [3] <- /s/x.f32"), std::string::npos) << r.describe();
  EXPECT_NE(r.out.find("input 1 's': i64 [] <- /s/s.i64"), std::string::npos) << r.describe();
  EXPECT_NE(r.out.find("output 1: 4 bytes -> /s/total"), std::string::npos) << r.describe();
}

TEST_F(RunModel, IoFileTakesIndexesAndExplicitDims) {
  // INDEX=FILE and REF:DIMS=FILE, given in the order opposite to the model's.
  write_io_file("types/scale_by_scalar.onnx", "io.json");
  const ChildResult r = run({"--model", "/t/scale_by_scalar.onnx", "--io", "/s/io.json", "--input", "1=/s/s.i64",
                             "--input", "x:3=/s/x.f32", "--output", "1=/s/total", "--output", "0=/s/y"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  expect_scale_by_scalar_answer("y", "total");
}

TEST_F(RunModel, IoFileRunOfDigitsEqualsTheExplicitRunAndNativeOrt) {
  // digits/model.onnx: input "input" f32 [?, 64], output "logits" f32 [?, 10]. The batch of 450
  // comes from test_x.f32's size.
  write_io_file("digits/model.onnx", "digits.json");
  const auto ort = single_thread_ort();
  const ChildResult by_name = run({"--model", "/d/model.onnx", "--io", "/s/digits.json", "--input",
                                   "input=/d/test_x.f32", "--output", "logits=/s/by_name.f32"},
                                  ort);
  ASSERT_EQ(by_name.exit_code, 0) << by_name.describe();
  EXPECT_NE(by_name.out.find("input 0 'input': f32 [450, 64]"), std::string::npos) << by_name.describe();
  const ChildResult explicit_form =
      run({"--model", "/d/model.onnx", "--input", "0:f32:450x64:/d/test_x.f32", "--output", "0:/s/explicit.f32"}, ort);
  ASSERT_EQ(explicit_form.exit_code, 0) << explicit_form.describe();

  const auto got = read_array<float>(dir_ / "by_name.f32");
  ASSERT_EQ(got.size(), 450u * 10u);
  EXPECT_EQ(got, read_array<float>(dir_ / "explicit.f32"));
  NativeOrtModel native(read_bytes(fixture("digits/model.onnx")), 1);
  EXPECT_EQ(got, native.run(read_array<float>(fixture("digits/test_x.f32")), {450, 64}));
}

TEST_F(RunModel, HandWrittenIoFileWithColonsInNamesAndExtraKeys) {
  // What other backends' inspect output looks like: names with ':' (TensorFlow's "x:0"),
  // "framework_type", escapes, keys run_model does not use. The names only map to indexes, so
  // the real model need not share them.
  write_text(dir_ / "io.json",
             R"({"backend": "tensorflow", "files": ["/m/a.pb"], "extra": {"n": [1, 2.5e3, true, null]},
    "inputs": [
      {"index": 0, "name": "\u0078:0", "type": "f32", "shape": [-1], "framework_type": "DT_FLOAT"},
      {"framework_type": "TorchScript int", "shape": [], "type": "i64", "name": "s:0", "index": 1}
    ],
    "outputs": [{"index": 0, "name": "y:0", "type": "f32", "shape": null},
                {"index": 1, "name": "total", "type": "f32", "shape": []}]})");
  const ChildResult r = run({"--model", "/t/scale_by_scalar.onnx", "--io", "/s/io.json", "--input", "x:0:3=/s/x.f32",
                             "--input", "s:0=/s/s.i64", "--output", "y:0=/s/y", "--output", "total=/s/total"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  expect_scale_by_scalar_answer("y", "total");
}

TEST_F(RunModel, HelpPrintsUsageAndExitsZero) {
  const ChildResult r = run({"--help"});
  EXPECT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_EQ(r.out.rfind("usage: run_model", 0), 0u) << r.describe();
  EXPECT_NE(r.out.find("--io IO.json"), std::string::npos) << r.describe();
  EXPECT_TRUE(r.err.empty()) << r.describe();
}

struct BadCase {
  std::vector<std::string> args;
  std::string message;  // expected in the one stderr line, after "run_model: "
};

// Each mistake: exit status 2, exactly one line on stderr saying what is wrong, no wasi-nn call
// (no "errno" line), no trap.
TEST_F(RunModel, EveryMalformedArgumentIsOneLineAndExitTwo) {
  write_io_file("types/scale_by_scalar.onnx", "io.json");
  write_text(dir_ / "text.json", "backend: onnxruntime\n");
  write_text(dir_ / "truncated.json", R"({"inputs": [{"index": 0, "name": "x")");
  write_text(dir_ / "trailing.json", R"({"inputs": [], "outputs": []} x)");
  write_text(dir_ / "no_outputs.json", R"({"inputs": []})");
  write_text(dir_ / "no_shape.json", R"({"inputs": [{"index": 0, "name": "x", "type": "f32"}], "outputs": []})");
  write_text(dir_ / "bf16.json",
             R"({"inputs": [{"index": 0, "name": "x", "type": "bf16", "shape": [3]}], "outputs": []})");
  write_text(dir_ / "two_dynamic.json",
             R"({"inputs": [{"index": 0, "name": "x", "type": "f32", "shape": [-1, -1]}], "outputs": []})");
  write_text(dir_ / "undeclared.json",
             R"({"inputs": [{"index": 0, "name": "x", "type": "f32", "shape": null}], "outputs": []})");
  const std::vector<float> five(5, 1.0f);
  write_bytes(dir_ / "five.f32", five.data(), five.size() * sizeof(float));

  const std::string m = "/t/scale_by_scalar.onnx";
  std::string dims65 = "1";
  for (int i = 1; i < 65; ++i) dims65 += "x1";
  const BadCase cases[] = {
      // --input, explicit form
      {{"--model", m, "--input", "1:i64"}, "--input '1:i64': expected INDEX:TYPE:DIMS:FILE"},
      {{"--model", m, "--input", "1:i64::"}, "--input '1:i64::': no FILE after DIMS"},
      {{"--model", m, "--input", "one:i64::/s/s.i64"}, "INDEX 'one' is not a number"},
      {{"--model", m, "--input", "4294967296:i64::/s/s.i64"}, "INDEX '4294967296' is not a number"},
      {{"--model", m, "--input", "1:int64::/s/s.i64"},
       "unknown TYPE 'int64' (f16 f32 f64 u8 i32 i64, or a number 0-255)"},
      {{"--model", m, "--input", "1:256::/s/s.i64"}, "unknown TYPE '256'"},
      {{"--model", m, "--input", "0:f32:3y1:/s/x.f32"}, "DIMS '3y1': dimension 1 ('3y1') is not a number"},
      {{"--model", m, "--input", "0:f32:3x:/s/x.f32"}, "DIMS '3x': dimension 2 ('') is not a number"},
      {{"--model", m, "--input", "0:f32:-3:/s/x.f32"}, "DIMS '-3': dimension 1 ('-3') is not a number"},
      {{"--model", m, "--input", "0:f32:?:/s/x.f32"}, "DIMS '?': dimension 1 is '?'; give its size"},
      {{"--model", m, "--input", "0:f32:" + dims65 + ":/s/x.f32"}, "more than 64 dimensions"},
      {{"--model", m, "--input", "0:f32:3:/s/missing.f32"}, "cannot open input file /s/missing.f32: No such file"},
      // --input, REF=FILE form
      {{"--model", m, "--input", "x=/s/x.f32"}, "REF=FILE takes type and shape from --io IO.json, and no --io"},
      {{"--model", m, "--io", "/s/io.json", "--input", "=/s/x.f32"}, "no NAME or INDEX before '='"},
      {{"--model", m, "--io", "/s/io.json", "--input", "x="}, "no FILE after '='"},
      {{"--model", m, "--io", "/s/io.json", "--input", "z=/s/x.f32"},
       "/s/io.json lists no input 'z' (inputs: 0 'x', 1 's')"},
      {{"--model", m, "--io", "/s/io.json", "--input", "7=/s/x.f32"}, "/s/io.json lists no input '7'"},
      {{"--model", m, "--io", "/s/io.json", "--input", "s=/s/x.f32"},
       "input 's' i64 [] needs 8 bytes, /s/x.f32 has 12"},
      {{"--model", m, "--io", "/s/io.json", "--input", "x=/s/s.i64", "--input", "s=/s/five.f32"},
       "input 's' i64 [] needs 8 bytes, /s/five.f32 has 20"},
      {{"--model", m, "--io", "/s/io.json", "--input", "x:4=/s/x.f32"},
       "input 'x' f32 [4] needs 16 bytes, /s/x.f32 has 12"},
      {{"--model", m, "--io", "/s/io.json", "--input", "x:1x3=/s/x.f32"}, "DIMS [1, 3] do not fit input 'x' f32 [?]"},
      {{"--model", m, "--io", "/s/io.json", "--input", "s:1=/s/s.i64"}, "DIMS [1] do not fit input 's' i64 []"},
      {{"--model", m, "--io", "/s/two_dynamic.json", "--input", "x=/s/x.f32"},
       "input 'x' f32 [?, ?] has 2 dynamic dimensions; give them all: --input x:DIMS=/s/x.f32"},
      {{"--model", m, "--io", "/s/undeclared.json", "--input", "x=/s/x.f32"},
       "the model does not declare the shape of input 'x'; give it: --input x:DIMS=/s/x.f32"},
      {{"--model", m, "--io", "/s/bf16.json", "--input", "x=/s/x.f32"},
       "input 0 'x' is of type 'bf16', which no witx tensor type carries"},
      // --io files that are not inspect's JSON
      {{"--model", m, "--io", "/s/missing.json"}, "cannot open --io file /s/missing.json: No such file"},
      {{"--model", m, "--io", "/s/text.json"}, "--io /s/text.json: line 1, column 1: expected '{'"},
      {{"--model", m, "--io", "/s/truncated.json"}, "--io /s/truncated.json: line 1, column 37: expected ',' or '}'"},
      {{"--model", m, "--io", "/s/trailing.json"},
       "--io /s/trailing.json: line 1, column 31: text after the JSON object"},
      {{"--model", m, "--io", "/s/no_outputs.json"}, "no \"inputs\" or no \"outputs\" list"},
      {{"--model", m, "--io", "/s/no_shape.json"}, "a tensor needs \"index\", \"name\", \"type\" and \"shape\""},
      // --output
      {{"--model", m, "--output", "0"}, "--output '0': expected INDEX:FILE[:MAX_BYTES], or REF=FILE[:MAX_BYTES]"},
      {{"--model", m, "--output", "0:"}, "--output '0:': no FILE"},
      {{"--model", m, "--output", "0:/s/y:lots"}, "MAX_BYTES 'lots' is not a u32"},
      {{"--model", m, "--output", "y=/s/y"}, "--output 'y=/s/y': a NAME needs --io IO.json"},
      {{"--model", m, "--io", "/s/io.json", "--output", "logits=/s/y"}, "/s/io.json lists no output 'logits'"},
      // the other flags
      {{"--model", m, "--encoding", "onxx"}, "--encoding 'onxx': not a number nor one of openvino onnx"},
      {{"--model", m, "--encoding", "-1"}, "--encoding '-1': not a number"},
      {{"--model", m, "--target", "cpu0"}, "--target 'cpu0': not a number nor one of cpu gpu tpu auto"},
      {{"--model", m, "--repeat", "0"}, "--repeat '0': expected a whole number of at least 1"},
      {{"--model", m, "--repeat", "2x"}, "--repeat '2x': expected a whole number of at least 1"},
      {{"--model", m, "--repeat", "4294967296"}, "--repeat '4294967296': expected a whole number"},
      {{"--model", m, "--inputs", "0:f32:3:/s/x.f32"}, "unknown option '--inputs' (run_model --help lists them)"},
      {{"--model", m, "extra"}, "unknown option 'extra'"},
      {{"--model", m, "--input"}, "--input needs a value"},
      {{"--model", m, "--model", m}, "--model given twice"},
      {{}, "give --model FILE or --name NAME"},
      {{"--model", m, "--name", "digits"}, "give --model FILE or --name NAME, one of them"},
      {{"--name", "digits", "--encoding", "onnx"}, "--encoding and --target apply to --model, not --name"},
      {{"--model", "/t/missing.onnx"}, "cannot open model file /t/missing.onnx: No such file"},
      {{"--model", m + ","}, "an empty file name"},
  };
  for (const BadCase& c : cases) {
    std::string label;
    for (const auto& a : c.args) label += a + " ";
    const ChildResult r = run(c.args);
    EXPECT_EQ(r.exit_code, 2) << label << "\n" << r.describe();
    EXPECT_EQ(r.err.rfind("run_model: ", 0), 0u) << label << "\n" << r.describe();
    EXPECT_NE(r.err.find(c.message), std::string::npos) << label << "\n" << r.describe();
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << label << "\n" << r.describe();
    EXPECT_EQ(r.out.find("errno"), std::string::npos) << label << "\n" << r.describe();
  }
}

}  // namespace
}  // namespace wasinn_it
