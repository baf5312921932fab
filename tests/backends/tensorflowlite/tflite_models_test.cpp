// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Real .tflite models through real wasm guests, each answer compared with the native LiteRT
// runtime in this process (bit for bit: same runtime, same shapes) and with TensorFlow's own
// tf.lite.Interpreter answers the fixture script stored.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "guest_runner.h"
#include "native_litert.h"
#include "plugin_harness.h"

namespace wasinn_test {
namespace {

const std::string kFix = "/f";  // where the guests see the fixtures directory

std::vector<std::string> dirs(const std::string& out) {
  return {"--dir", fixtures_dir().string() + "::" + kFix, "--dir", out + "::/o"};
}

template <typename T>
size_t argmax(const T* row, size_t n) {
  return static_cast<size_t>(std::max_element(row, row + n) - row);
}

template <typename T>
double accuracy(const std::vector<T>& scores, const std::vector<uint8_t>& labels, size_t classes) {
  size_t right = 0;
  for (size_t i = 0; i < labels.size(); ++i) right += argmax(&scores[i * classes], classes) == labels[i];
  return labels.empty() ? 0.0 : static_cast<double>(right) / static_cast<double>(labels.size());
}

template <typename T>
double max_abs_diff(const std::vector<T>& a, const std::vector<T>& b) {
  EXPECT_EQ(a.size(), b.size());
  double m = 0;
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i)
    m = std::max(m, std::abs(static_cast<double>(a[i]) - static_cast<double>(b[i])));
  return m;
}

std::vector<uint8_t> slice(const std::vector<uint8_t>& v, size_t offset, size_t n) {
  return {v.begin() + static_cast<std::ptrdiff_t>(offset), v.begin() + static_cast<std::ptrdiff_t>(offset + n)};
}

TEST(TfliteModels, DigitsFloatOneRowAtATimeMatchesNative) {
  const std::string out = scratch_dir("digits_f32");
  auto host = dirs(out);
  host.insert(host.end(),
              {"--nn-preload", "digits:tensorflowlite:cpu:" + (fixtures_dir() / "tflite/digits_f32.tflite").string()});
  const GuestRun run =
      run_guest(host, "classify_digits",
                {"name:digits", kFix + "/digits/test_x.f32", kFix + "/digits/test_y.u8", "/o/logits.f32"});
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const auto guest = as_vector<float>(read_file(out + "/logits.f32"));
  const auto x = read_fixture("digits/test_x.f32");
  const auto labels = read_fixture("digits/test_y.u8");
  ASSERT_EQ(guest.size(), labels.size() * 10);

  NativeLiteRt native(read_fixture("tflite/digits_f32.tflite"));
  ASSERT_EQ(native.error(), "");
  std::vector<float> want;
  for (size_t i = 0; i < labels.size(); ++i) {
    const auto o = native.run({{{1, 64}, slice(x, i * 256, 256)}});
    ASSERT_EQ(o.size(), 1u) << native.error();
    const auto row = as_vector<float>(o[0].bytes);
    want.insert(want.end(), row.begin(), row.end());
  }
  EXPECT_EQ(guest, want) << "guest and native LiteRT differ, max |diff| " << max_abs_diff(guest, want);
  const auto tf = read_fixture_as<float>("tflite/digits_f32_expected.f32");
  EXPECT_LT(max_abs_diff(guest, tf), 1e-4) << "vs TensorFlow's tf.lite.Interpreter";
  EXPECT_GE(accuracy(guest, labels, 10), 0.95);
}

TEST(TfliteModels, DigitsFloatWholeBatchMatchesNative) {
  // 450 rows in one tensor: the model's batch dimension is dynamic (-1), so the plugin resizes.
  const std::string out = scratch_dir("digits_f32_batch");
  const GuestRun run = run_guest(dirs(out), "run_model",
                                 {"--model", kFix + "/tflite/digits_f32.tflite", "--encoding", "4", "--input",
                                  "0:f32:450x64:" + kFix + "/digits/test_x.f32", "--output", "0:/o/logits.f32"});
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const auto guest = as_vector<float>(read_file(out + "/logits.f32"));
  NativeLiteRt native(read_fixture("tflite/digits_f32.tflite"));
  const auto o = native.run({{{450, 64}, read_fixture("digits/test_x.f32")}});
  ASSERT_EQ(o.size(), 1u) << native.error();
  EXPECT_EQ(o[0].dims, (std::vector<uint32_t>{450, 10}));
  EXPECT_EQ(guest, as_vector<float>(o[0].bytes));
  EXPECT_GE(accuracy(guest, read_fixture("digits/test_y.u8"), 10), 0.95);
}

TEST(TfliteModels, DigitsInt8PassesRawIntegersAndMatchesNative) {
  // witx has no i8: the guest sends the int8 model its quantized bytes typed u8, and gets the
  // int8 logits back as raw bytes, with no dequantizing on the way.
  const std::string out = scratch_dir("digits_int8");
  const GuestRun run =
      run_guest(dirs(out), "run_model",
                {"--model", kFix + "/tflite/digits_int8.tflite", "--encoding", "4", "--input",
                 "0:u8:450x64:" + kFix + "/tflite/digits_int8_input.i8", "--output", "0:/o/logits.i8"});
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const auto guest = as_vector<int8_t>(read_file(out + "/logits.i8"));
  NativeLiteRt native(read_fixture("tflite/digits_int8.tflite"));
  const auto o = native.run({{{450, 64}, read_fixture("tflite/digits_int8_input.i8")}});
  ASSERT_EQ(o.size(), 1u) << native.error();
  EXPECT_EQ(guest, as_vector<int8_t>(o[0].bytes));
  const auto tf = read_fixture_as<int8_t>("tflite/digits_int8_expected.i8");
  EXPECT_LE(max_abs_diff(guest, tf), 1.0) << "vs TensorFlow's tf.lite.Interpreter, in int8 steps";
  EXPECT_GE(accuracy(guest, read_fixture("digits/test_y.u8"), 10), 0.9);
}

TEST(TfliteModels, CrateMnistUint8ClassifiesItsReferenceDigits) {
  // data/MNISTnet_uint8_quant.tflite and data/mnist10.bin of the crates.io crate tflite 0.9.8.
  const std::string out = scratch_dir("mnist_u8");
  const GuestRun run = run_guest(dirs(out), "classify_samples",
                                 {kFix + "/tflite_mnist/MNISTnet_uint8_quant.tflite", "4", "3", "1x28x28x1",
                                  kFix + "/tflite_mnist/mnist10.u8", "/o/scores.u8"});
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const auto guest = read_file(out + "/scores.u8");
  const auto labels = read_fixture("tflite_mnist/mnist10_labels.u8");
  ASSERT_EQ(guest.size(), 100u);
  EXPECT_EQ(accuracy(guest, labels, 10), 1.0) << "every reference digit classified right";

  const auto images = read_fixture("tflite_mnist/mnist10.u8");
  NativeLiteRt native(read_fixture("tflite_mnist/MNISTnet_uint8_quant.tflite"));
  for (size_t i = 0; i < 10; ++i) {
    const auto o = native.run({{{1, 28, 28, 1}, slice(images, i * 784, 784)}});
    ASSERT_EQ(o.size(), 1u) << native.error();
    EXPECT_EQ(slice(guest, i * 10, 10), o[0].bytes) << "digit " << i;
  }
  EXPECT_LE(max_abs_diff(guest, read_fixture("tflite_mnist/mnist10_expected.u8")), 1.0);
}

TEST(TfliteModels, MobilenetV2MatchesNative) {
  const std::string out = scratch_dir("mobilenet");
  const GuestRun run =
      run_guest(dirs(out), "run_model",
                {"--model", kFix + "/tflite/mobilenet_v2.tflite", "--encoding", "4", "--input",
                 "0:f32:1x224x224x3:" + kFix + "/tflite/mobilenet_v2_input.f32", "--output", "0:/o/logits.f32"});
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const auto guest = as_vector<float>(read_file(out + "/logits.f32"));
  NativeLiteRt native(read_fixture("tflite/mobilenet_v2.tflite"));
  const auto o = native.run({{{1, 224, 224, 3}, read_fixture("tflite/mobilenet_v2_input.f32")}});
  ASSERT_EQ(o.size(), 1u) << native.error();
  EXPECT_EQ(guest, as_vector<float>(o[0].bytes));
  const auto tf = read_fixture_as<float>("tflite/mobilenet_v2_expected.f32");
  ASSERT_EQ(guest.size(), 1000u);
  EXPECT_LT(max_abs_diff(guest, tf), 1e-3) << "vs TensorFlow's tf.lite.Interpreter";
  EXPECT_EQ(argmax(guest.data(), 1000), argmax(tf.data(), 1000));
}

TEST(TfliteModels, Int32AndInt64TensorsInInterpreterOrder) {
  // Index order is the subgraph's, as TFLite's interpreter reports: here b (i64) before a (i32).
  const auto& api = plugin_api("tensorflowlite");
  Backend b(api);
  Graph g;
  Diag d;
  ASSERT_EQ(load(b, model_args("tensorflowlite", {read_fixture("tflite/types_int.tflite")}), g, d), WASINN_OK)
      << d.detail;
  wasinn_io_info in0{}, in1{}, out0{};
  ASSERT_EQ(api.graph_io_info(g.ptr, 0, 0, &in0), WASINN_OK);
  ASSERT_EQ(api.graph_io_info(g.ptr, 0, 1, &in1), WASINN_OK);
  ASSERT_EQ(api.graph_io_info(g.ptr, 1, 0, &out0), WASINN_OK);
  EXPECT_STREQ(in0.name, "b");
  EXPECT_EQ(in0.type, WASINN_TYPE_I64);
  EXPECT_STREQ(in1.name, "a");
  EXPECT_EQ(in1.type, WASINN_TYPE_I32);
  EXPECT_STREQ(out0.name, "b_out");

  const std::vector<int32_t> a = {1, -2, 300, 2000000};
  const std::vector<int64_t> bv = {1, -2, 3000000000LL, -(1LL << 40)};
  const std::string out = scratch_dir("types_int");
  write_file(out + "/a.i32", as_bytes(a));
  write_file(out + "/b.i64", as_bytes(bv));
  const GuestRun run =
      run_guest(dirs(out), "run_model",
                {"--model", kFix + "/tflite/types_int.tflite", "--encoding", "4", "--input", "0:i64:1x4:/o/b.i64",
                 "--input", "1:i32:1x4:/o/a.i32", "--output", "0:/o/b_out.i64", "--output", "1:/o/a_out.i32"});
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_EQ(as_vector<int32_t>(read_file(out + "/a_out.i32")), (std::vector<int32_t>{2, -7, 899, 5999999}));
  EXPECT_EQ(as_vector<int64_t>(read_file(out + "/b_out.i64")),
            (std::vector<int64_t>{5000000002LL, 4999999996LL, 11000000000LL, 5000000000LL - (1LL << 41)}));
}

}  // namespace
}  // namespace wasinn_test
