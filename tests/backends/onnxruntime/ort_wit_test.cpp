// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Named tensors through WIT components (wasi:nn@0.2.0-rc-2024-10-28) on real ONNX Runtime: the
// component guests wit_run_model and wit_classify_digits on `wasinn run`, outputs compared by
// name with ONNX Runtime's C++ API called directly (a session with the plugin's settings), names
// with `wasinn models inspect`, and the digits answers with the witx guest classify_digits. ONNX
// names every input and output: those are the names.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <onnxruntime_cxx_api.h>

#include <cstring>

#include "plugin_harness.h"
#include "wit_guest.h"

namespace wasinn_test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

struct NativeOutput {
  std::string name;
  std::vector<uint8_t> bytes;
};

// One native ORT run: inputs by name (f32 or i64 [1, 3]), every output in the session's order.
std::vector<NativeOutput> native_run(const std::string& model, const std::vector<float>& a,
                                     const std::vector<int64_t>& b) {
  static Ort::Env env(ORT_LOGGING_LEVEL_WARNING, "wasinn-wit-test");
  Ort::SessionOptions options;
  options.SetIntraOpNumThreads(1);
  options.SetGraphOptimizationLevel(GraphOptimizationLevel::ORT_ENABLE_ALL);
  Ort::Session session(env, model.c_str(), options);
  const auto memory = Ort::MemoryInfo::CreateCpu(OrtDeviceAllocator, OrtMemTypeDefault);
  const int64_t dims[] = {1, 3};
  std::vector<Ort::Value> in;
  in.push_back(Ort::Value::CreateTensor<float>(memory, const_cast<float*>(a.data()), a.size(), dims, 2));
  in.push_back(Ort::Value::CreateTensor<int64_t>(memory, const_cast<int64_t*>(b.data()), b.size(), dims, 2));
  const char* in_names[] = {"a", "b"};
  Ort::AllocatorWithDefaultOptions alloc;
  std::vector<std::string> names;
  for (size_t i = 0; i < session.GetOutputCount(); ++i) names.push_back(session.GetOutputNameAllocated(i, alloc).get());
  std::vector<const char*> out_names;
  for (const auto& n : names) out_names.push_back(n.c_str());
  auto outs = session.Run(Ort::RunOptions{nullptr}, in_names, in.data(), in.size(), out_names.data(), out_names.size());
  std::vector<NativeOutput> result;
  for (size_t i = 0; i < outs.size(); ++i) {
    const auto info = outs[i].GetTensorTypeAndShapeInfo();
    const size_t elem = info.GetElementType() == ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64 ? 8 : 4;
    const auto* p = static_cast<const uint8_t*>(outs[i].GetTensorRawData());
    result.push_back({names[i], {p, p + info.GetElementCount() * elem}});
  }
  return result;
}

// two_inputs.onnx: (a f32 [1, 3], b i64 [1, 3]) -> (sum, b_times_2), inputs by name in either
// order, outputs under the model's names in its order, equal to native ORT.
TEST(OrtWit, TwoInputsByNameMatchNative) {
  const std::string model = (fixtures_dir() / "types/two_inputs.onnx").string();
  const InspectedIo io = inspect_io({model});
  ASSERT_EQ(io.error, "");
  EXPECT_THAT(io.inputs, ElementsAre("a", "b"));
  EXPECT_THAT(io.outputs, ElementsAre("sum", "b_times_2"));

  const std::string in = scratch_dir("two_inputs_in");
  const std::vector<float> a = {0.5f, -2, 7};
  const std::vector<int64_t> b = {3, -4, 1000};
  write_file(in + "/a.f32", as_bytes(a));
  write_file(in + "/b.i64", as_bytes(b));
  const auto want = native_run(model, a, b);
  ASSERT_EQ(want.size(), 2u);
  const std::vector<std::string> host = {"--dir", fixtures_dir().string() + "::/fx", "--dir", in + "::/in"};
  const std::string in_a = wit_input("a", "fp32", {1, 3}, "/in/a.f32");
  const std::string in_b = wit_input("b", "i64", {1, 3}, "/in/b.i64");
  for (bool reversed : {false, true}) {
    const WitModelRun r = run_wit_model(
        reversed ? "two_inputs_ba" : "two_inputs_ab", host,
        {"--model", "/fx/types/two_inputs.onnx", "--input", reversed ? in_b : in_a, "--input", reversed ? in_a : in_b});
    ASSERT_EQ(r.run.exit_code, 0) << r.run.output;
    EXPECT_EQ(r.names(), io.outputs);
    ASSERT_EQ(r.outputs.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) {
      EXPECT_EQ(r.outputs[i].name, want[i].name);
      EXPECT_EQ(r.outputs[i].dims, "1x3") << want[i].name;
      EXPECT_TRUE(r.outputs[i].data == want[i].bytes) << want[i].name << " differs from native ORT";
    }
    EXPECT_EQ(r.outputs[0].type, "fp32");
    EXPECT_EQ(r.outputs[1].type, "i64");
  }
  // A wrong type for a named input: invalid-argument naming the inputs.
  const WitModelRun bad = run_wit_model("two_inputs_bad", host,
                                        {"--model", "/fx/types/two_inputs.onnx", "--input", in_a, "--input",
                                         wit_input("b", "fp32", {1, 3}, "/in/a.f32")});
  EXPECT_THAT(bad.run.output, HasSubstr("error invalid-argument"));
  EXPECT_THAT(bad.run.output, HasSubstr("input 'b' is f32, but the model takes i64"));
}

// The digits model through wit_classify_digits and the witx classify_digits, both on a preload
// (name:digits): the same stdout and logits, byte for byte.
TEST(OrtWit, DigitsComponentMatchesWitxGuest) {
  const std::string model = (fixtures_dir() / "digits/model.onnx").string();
  InspectedIo io;
  expect_digits_component_matches_witx("digits_onnx", "digits:onnx:cpu:" + model, {model},
                                       {"--backend-config", R"(onnxruntime={"intra_op_threads": 1})"}, &io);
  EXPECT_THAT(io.inputs, ElementsAre("input"));
  EXPECT_THAT(io.outputs, ElementsAre("logits"));
}

// large/model.onnx: 64 MiB of weights loaded by bytes (one list<u8> of 64 MiB), a 16 MiB input
// tensor and a 16 MiB output, far past the ~2 MiB that Wasmtime's C API values once allowed: the
// output equals native ONNX Runtime's, byte for byte.
TEST(OrtWit, A64MiBModelByBytesAnd16MiBTensorsMatchNative) {
  const std::string dir = (fixtures_dir() / "large").string();
  const auto x = read_file(dir + "/x.f32");
  ASSERT_EQ(x.size(), 16u << 20);
  std::vector<float> xs(x.size() / 4);
  std::memcpy(xs.data(), x.data(), x.size());

  static Ort::Env env(ORT_LOGGING_LEVEL_WARNING, "wasinn-wit-large");
  Ort::SessionOptions options;
  options.SetIntraOpNumThreads(1);
  Ort::Session session(env, (dir + "/model.onnx").c_str(), options);
  const auto memory = Ort::MemoryInfo::CreateCpu(OrtDeviceAllocator, OrtMemTypeDefault);
  const int64_t dims[] = {static_cast<int64_t>(xs.size())};
  Ort::Value in = Ort::Value::CreateTensor<float>(memory, xs.data(), xs.size(), dims, 1);
  const char *in_name = "x", *out_name = "y";
  auto outs = session.Run(Ort::RunOptions{nullptr}, &in_name, &in, 1, &out_name, 1);
  const auto* y = static_cast<const uint8_t*>(outs[0].GetTensorRawData());
  const std::vector<uint8_t> want(y, y + x.size());

  const WitModelRun r = run_wit_model(
      "large_by_bytes", {"--dir", dir + "::/l", "--backend-config", R"(onnxruntime={"intra_op_threads": 1})"},
      {"--model", "/l/model.onnx", "--input", wit_input("x", "fp32", {static_cast<uint32_t>(xs.size())}, "/l/x.f32")});
  ASSERT_EQ(r.run.exit_code, 0) << r.run.output;
  ASSERT_EQ(r.outputs.size(), 1u);
  EXPECT_EQ(r.outputs[0].name, "y");
  EXPECT_EQ(r.outputs[0].data.size(), want.size());
  EXPECT_TRUE(r.outputs[0].data == want) << "y differs from native ORT";
}

// Past --max-tensor-bytes and --max-model-bytes a component gets too-large with a detail (the
// tensor's refusal comes from the compute that uses it), never a trap, and computes right after.
TEST(OrtWit, PastTheSizeLimitsIsTooLargeThenTheGuestComputes) {
  const std::string digits = (fixtures_dir() / "digits").string();
  const GuestRun r =
      run_guest({"--max-tensor-bytes", "4096", "--max-model-bytes", "1048576", "--dir", digits + "::/d"},
                "wit_errors.component", {"/d/model.onnx", "/d/test_x.f32", "--limits", "4096", "1048576"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("case too-large-tensor: too-large: tensor of 4352 bytes exceeds the tensor limit "
                                  "of 4096 (--max-tensor-bytes)"));
  EXPECT_THAT(r.output, HasSubstr("case too-large-model: too-large: model of 1048577 bytes exceeds the limit of "
                                  "1048576 bytes"));
  EXPECT_THAT(r.output, HasSubstr("errors: 9/9 cases failed as they should, 9/9 recoveries right"));
}

}  // namespace
}  // namespace wasinn_test
