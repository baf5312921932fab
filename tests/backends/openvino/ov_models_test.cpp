// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Happy paths over the generated fixtures: the api table, io info, the digits classifier (IR and
// ONNX) against a native OpenVINO run of the same model, dynamic shapes, and every element type.
#include <cstring>
#include <filesystem>
#include <random>

#include "ov_test_support.h"

namespace wasinn_test {
namespace {

TEST(OvPlugin, ApiTable) {
  const wasinn_backend_api& a = api();
  EXPECT_EQ(a.abi_version, WASINN_PLUGIN_ABI_VERSION);
  EXPECT_EQ(a.struct_size, sizeof(wasinn_backend_api));
  EXPECT_STREQ(a.name, "openvino");
  EXPECT_EQ(std::string(a.framework_version()).rfind(ov::get_openvino_version().buildNumber, 0), 0u);
  EXPECT_EQ(a.compute_single, nullptr);
  EXPECT_NE(a.cancel, nullptr);
  EXPECT_TRUE(std::filesystem::exists(std::string(WASINN_BACKEND_DIR) + "/openvino.json"));
}

TEST(OvPlugin, IoInfoDigitsKeepsDynamicBatch) {
  Backend b(api(), kF32);
  Graph g = load_ir(b, "digits/openvino/model");
  ASSERT_NE(g.ptr, nullptr);
  ASSERT_EQ(api().graph_io_count(g.ptr, 0), 1u);
  ASSERT_EQ(api().graph_io_count(g.ptr, 1), 1u);
  wasinn_io_info in{}, out{};
  ASSERT_EQ(api().graph_io_info(g.ptr, 0, 0, &in), WASINN_OK);
  ASSERT_EQ(api().graph_io_info(g.ptr, 1, 0, &out), WASINN_OK);
  EXPECT_STREQ(in.name, "input");
  EXPECT_EQ(in.type, WASINN_TYPE_F32);
  ASSERT_EQ(in.rank, 2);
  EXPECT_EQ(in.dims[0], -1);
  EXPECT_EQ(in.dims[1], 64);
  EXPECT_STREQ(out.name, "logits");
  ASSERT_EQ(out.rank, 2);
  EXPECT_EQ(out.dims[0], -1);
  EXPECT_EQ(out.dims[1], 10);
  EXPECT_EQ(api().graph_io_info(g.ptr, 0, 1, &in), WASINN_INVALID_ARGUMENT);
}

// All 450 held-out digits in one batch, through the plugin and through native OpenVINO: the
// same compiled kernels on the same bytes, so the logits must be bit-identical.
void expect_digits_match_native(wasinn_graph* g, const std::string& native_model) {
  const auto x = read_fixture_as<float>("digits/test_x.f32");
  const auto y = read_fixture("digits/test_y.u8");
  ASSERT_EQ(x.size(), y.size() * 64);
  const uint32_t n = static_cast<uint32_t>(y.size());
  Context c(api(), g);
  Diag d;
  ASSERT_EQ(set_input_of(c.ptr, by_index(0), WASINN_TYPE_F32, {n, 64}, x.data(), x.size(), d), WASINN_OK) << d.detail;
  ASSERT_EQ(api().compute(c.ptr, &d), WASINN_OK) << d.detail;
  std::vector<uint32_t> dims;
  const auto got = output_as<float>(c.ptr, by_index(0), WASINN_TYPE_F32, &dims);
  EXPECT_EQ(dims, (std::vector<uint32_t>{n, 10}));

  auto native = native_compile(fixture_path(native_model));
  const auto want = native_run(native, {n, 64}, x.data());
  ASSERT_EQ(got.size(), want.size());
  EXPECT_EQ(std::memcmp(got.data(), want.data(), got.size() * sizeof(float)), 0)
      << "logits differ from native OpenVINO";
  const size_t correct = count_correct(got, y, 10);
  EXPECT_GE(correct * 100, n * 95u) << correct << "/" << n;
  ::testing::Test::RecordProperty("accuracy", std::to_string(correct) + "/" + std::to_string(n));
}

TEST(OvPlugin, DigitsIrMatchesNative) {
  Backend b(api(), kF32);
  Graph g = load_ir(b, "digits/openvino/model");
  ASSERT_NE(g.ptr, nullptr);
  expect_digits_match_native(g.ptr, "digits/openvino/model.xml");
}

// "cancellable": false runs infer() on the calling thread instead of start_async + wait.
TEST(OvPlugin, DigitsSynchronousComputeMatchesNative) {
  Backend b(api(), R"({"inference_precision":"f32","cache_dir":"","cancellable":false})");
  Graph g = load_ir(b, "digits/openvino/model");
  ASSERT_NE(g.ptr, nullptr);
  expect_digits_match_native(g.ptr, "digits/openvino/model.xml");
}

TEST(OvPlugin, DigitsOnnxInOneBuilderMatchesNative) {
  Backend b(api(), kF32);
  Graph g;
  Diag d;
  ASSERT_EQ(load_bytes(b, {read_fixture("digits/model.onnx")}, g, d), WASINN_OK) << d.detail;
  expect_digits_match_native(g.ptr, "digits/model.onnx");
}

// The dynamic batch is reshaped per set_input: batch 1 right after batch 450, on one context.
TEST(OvPlugin, DigitsBatchChangesOnOneContext) {
  Backend b(api(), kF32);
  Graph g = load_ir(b, "digits/openvino/model");
  const auto x = read_fixture_as<float>("digits/test_x.f32");
  auto native = native_compile(fixture_path("digits/openvino/model.xml"));
  Context c(api(), g.ptr);
  Diag d;
  for (uint32_t batch : {450u, 1u, 7u, 1u}) {
    ASSERT_EQ(set_input_of(c.ptr, by_name("input"), WASINN_TYPE_F32, {batch, 64}, x.data(), batch * 64, d), WASINN_OK)
        << d.detail;
    ASSERT_EQ(api().compute(c.ptr, &d), WASINN_OK) << d.detail;
    std::vector<uint32_t> dims;
    const auto got = output_as<float>(c.ptr, by_name("logits"), WASINN_TYPE_F32, &dims);
    EXPECT_EQ(dims, (std::vector<uint32_t>{batch, 10}));
    const auto want = native_run(native, {batch, 64}, x.data());
    ASSERT_EQ(got.size(), want.size());
    EXPECT_EQ(std::memcmp(got.data(), want.data(), got.size() * 4), 0) << "batch " << batch;
  }
}

// a: f32[?,?] -> y = 2a + 1; b: i32[?] -> z = b + 1. Two inputs, two outputs, any shapes.
TEST(OvPlugin, DynamicShapesKnownAnswers) {
  Backend b(api(), kF32);
  Graph g = load_ir(b, "tiny/openvino/dynamic");
  ASSERT_NE(g.ptr, nullptr);
  wasinn_io_info a{};
  ASSERT_EQ(api().graph_io_info(g.ptr, 0, 0, &a), WASINN_OK);
  ASSERT_EQ(a.rank, 2);
  EXPECT_EQ(a.dims[0], -1);
  EXPECT_EQ(a.dims[1], -1);
  Context c(api(), g.ptr);
  Diag d;
  for (auto [rows, cols] : {std::pair<uint32_t, uint32_t>{2, 3}, {4, 5}, {1, 1}, {3, 2}}) {
    std::vector<float> av(rows * cols);
    for (size_t i = 0; i < av.size(); ++i) av[i] = static_cast<float>(i) - 3.0f;
    std::vector<int32_t> bv(rows + cols);
    for (size_t i = 0; i < bv.size(); ++i) bv[i] = static_cast<int32_t>(i * 1000) - 2;
    ASSERT_EQ(set_input_of(c.ptr, by_index(0), WASINN_TYPE_F32, {rows, cols}, av.data(), av.size(), d), WASINN_OK)
        << d.detail;
    ASSERT_EQ(set_input_of(c.ptr, by_index(1), WASINN_TYPE_I32, {rows + cols}, bv.data(), bv.size(), d), WASINN_OK)
        << d.detail;
    ASSERT_EQ(api().compute(c.ptr, &d), WASINN_OK) << d.detail;
    std::vector<uint32_t> ydims, zdims;
    const auto yv = output_as<float>(c.ptr, by_index(0), WASINN_TYPE_F32, &ydims);
    const auto zv = output_as<int32_t>(c.ptr, by_name("z"), WASINN_TYPE_I32, &zdims);
    EXPECT_EQ(ydims, (std::vector<uint32_t>{rows, cols}));
    EXPECT_EQ(zdims, (std::vector<uint32_t>{rows + cols}));
    ASSERT_EQ(yv.size(), av.size());
    ASSERT_EQ(zv.size(), bv.size());
    for (size_t i = 0; i < av.size(); ++i) EXPECT_EQ(yv[i], av[i] * 2 + 1) << i;
    for (size_t i = 0; i < bv.size(); ++i) EXPECT_EQ(zv[i], bv[i] + 1) << i;
  }
}

const char* const kTypeNames[] = {"f16", "f32", "f64", "bf16", "u8", "i32", "i64"};
const int32_t kTypes[] = {WASINN_TYPE_F16, WASINN_TYPE_F32, WASINN_TYPE_F64, WASINN_TYPE_BF16,
                          WASINN_TYPE_U8,  WASINN_TYPE_I32, WASINN_TYPE_I64};
const size_t kSizes[] = {2, 4, 8, 2, 1, 4, 8};

// Random bytes through Identity for every type, inputs and outputs by index in model order.
// OpenVINO's CPU plugin runs i64 as i32, so i64 values are kept within the i32 range (a value
// beyond it comes back truncated: documented in docs/backends/openvino.md).
void expect_identity_all_types(wasinn_graph* g) {
  for (int is_output = 0; is_output < 2; ++is_output) {
    ASSERT_EQ(api().graph_io_count(g, is_output), 7u);
    for (size_t i = 0; i < 7; ++i) {
      wasinn_io_info info{};
      ASSERT_EQ(api().graph_io_info(g, is_output, i, &info), WASINN_OK);
      EXPECT_EQ(std::string(info.name), (is_output ? "out_" : "in_") + std::string(kTypeNames[i]));
      EXPECT_EQ(info.type, kTypes[i]) << info.name;
    }
  }
  Context c(api(), g);
  std::mt19937 rng(42);
  std::vector<std::vector<uint8_t>> data(7);
  const std::vector<uint32_t> dims{2, 3};
  Diag d;
  for (uint32_t i = 0; i < 7; ++i) {
    data[i].resize(6 * kSizes[i]);
    for (auto& byte : data[i]) byte = static_cast<uint8_t>(rng());
    if (kTypes[i] == WASINN_TYPE_I64)
      for (size_t k = 0; k < 6; ++k) {
        const int64_t v = static_cast<int32_t>(rng());
        std::memcpy(data[i].data() + k * 8, &v, 8);
      }
    const wasinn_tensor t{kTypes[i], 2, dims.data(), data[i].data(), data[i].size()};
    const auto id = by_index(i);
    ASSERT_EQ(api().set_input(c.ptr, &id, &t, &d), WASINN_OK) << kTypeNames[i] << ": " << d.detail;
  }
  ASSERT_EQ(api().compute(c.ptr, &d), WASINN_OK) << d.detail;
  for (uint32_t i = 0; i < 7; ++i) {
    std::vector<uint32_t> out_dims;
    const auto got = output_as<uint8_t>(c.ptr, by_index(i), kTypes[i], &out_dims);
    EXPECT_EQ(out_dims, dims) << kTypeNames[i];
    EXPECT_EQ(got, data[i]) << kTypeNames[i] << " not passed through bit-exactly";
  }
}

TEST(OvPlugin, IdentityAllTypesIr) {
  Backend b(api(), kF32);
  Graph g = load_ir(b, "types/openvino/identity_all");
  ASSERT_NE(g.ptr, nullptr);
  expect_identity_all_types(g.ptr);
}

TEST(OvPlugin, IdentityAllTypesOnnx) {
  Backend b(api(), kF32);
  Graph g;
  Diag d;
  ASSERT_EQ(load_bytes(b, {read_fixture("types/identity_all.onnx")}, g, d), WASINN_OK) << d.detail;
  expect_identity_all_types(g.ptr);
}

// The benchmark's model: plugin and native OpenVINO with the same threads agree bit for bit,
// and both are close to torch's answer from the fixture script.
TEST(OvPlugin, MobilenetMatchesNativeAndTorch) {
  Backend b(api(), R"({"inference_precision":"f32","cache_dir":"","num_threads":2})");
  Graph g = load_ir(b, "mobilenet_v2/openvino/model");
  ASSERT_NE(g.ptr, nullptr);
  const auto x = read_fixture_as<float>("mobilenet_v2/input.f32");
  const auto torch_out = read_fixture_as<float>("mobilenet_v2/expected.f32");
  ASSERT_EQ(x.size(), 3u * 224 * 224);
  Context c(api(), g.ptr);
  Diag d;
  ASSERT_EQ(set_input_of(c.ptr, by_index(0), WASINN_TYPE_F32, {1, 3, 224, 224}, x.data(), x.size(), d), WASINN_OK)
      << d.detail;
  ASSERT_EQ(api().compute(c.ptr, &d), WASINN_OK) << d.detail;
  const auto got = output_as<float>(c.ptr, by_index(0), WASINN_TYPE_F32);
  auto native = native_compile(fixture_path("mobilenet_v2/openvino/model.xml"), 2);
  const auto want = native_run(native, {1, 3, 224, 224}, x.data());
  ASSERT_EQ(got.size(), 1000u);
  ASSERT_EQ(want.size(), 1000u);
  EXPECT_EQ(std::memcmp(got.data(), want.data(), 4000), 0);
  // Torch's outputs of this randomly initialised net are ~1e-9: compare relative to their scale.
  float scale = 0, diff = 0;
  for (size_t i = 0; i < 1000; ++i) {
    scale = std::max(scale, std::abs(torch_out[i]));
    diff = std::max(diff, std::abs(got[i] - torch_out[i]));
  }
  EXPECT_LE(diff, 1e-3f * scale);
}

}  // namespace
}  // namespace wasinn_test
