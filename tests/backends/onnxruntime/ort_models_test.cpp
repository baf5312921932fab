// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Happy paths over the generated fixtures: the api table, io info, bit-exact type pass-through,
// known answers, and digits against a native ORT run of the same model.
#include <onnxruntime_cxx_api.h>

#include <cstring>
#include <filesystem>
#include <random>

#include "plugin_harness.h"

namespace wasinn_test {
namespace {

TEST(OrtPlugin, ApiTable) {
  const wasinn_backend_api& a = api();
  EXPECT_EQ(a.abi_version, WASINN_PLUGIN_ABI_VERSION);
  EXPECT_EQ(a.struct_size, sizeof(wasinn_backend_api));
  EXPECT_STREQ(a.name, "onnxruntime");
  EXPECT_STREQ(a.framework_version(), "1.29.0");
  EXPECT_EQ(a.compute_single, nullptr);
  EXPECT_EQ(a.get_output_single, nullptr);
  EXPECT_EQ(a.fini_single, nullptr);
  EXPECT_NE(a.cancel, nullptr);
  EXPECT_TRUE(std::filesystem::exists(std::string(WASINN_BACKEND_DIR) + "/onnxruntime.json"));
}

TEST(OrtPlugin, IoInfoDigits) {
  TestBackend b;
  Graph g = load_fixture(b, "digits/model.onnx");
  ASSERT_NE(g.ptr, nullptr);
  ASSERT_EQ(api().graph_io_count(g.ptr, 0), 1u);
  ASSERT_EQ(api().graph_io_count(g.ptr, 1), 1u);
  wasinn_io_info in{}, out{};
  ASSERT_EQ(api().graph_io_info(g.ptr, 0, 0, &in), WASINN_OK);
  ASSERT_EQ(api().graph_io_info(g.ptr, 1, 0, &out), WASINN_OK);
  EXPECT_STREQ(in.name, "input");
  EXPECT_EQ(in.type, WASINN_TYPE_F32);
  ASSERT_EQ(in.rank, 2);
  EXPECT_EQ(in.dims[0], -1);  // symbolic "batch"
  EXPECT_EQ(in.dims[1], 64);
  EXPECT_STREQ(out.name, "logits");
  EXPECT_EQ(out.type, WASINN_TYPE_F32);
  ASSERT_EQ(out.rank, 2);
  EXPECT_EQ(out.dims[0], -1);
  EXPECT_EQ(out.dims[1], 10);
}

const char* const kTypeNames[] = {"f16", "f32", "f64", "bf16", "u8", "i32", "i64"};
const int32_t kTypes[] = {WASINN_TYPE_F16, WASINN_TYPE_F32, WASINN_TYPE_F64, WASINN_TYPE_BF16,
                          WASINN_TYPE_U8,  WASINN_TYPE_I32, WASINN_TYPE_I64};
const size_t kSizes[] = {2, 4, 8, 2, 1, 4, 8};

TEST(OrtPlugin, IoInfoIdentityAll) {
  TestBackend b;
  Graph g = load_fixture(b, "types/identity_all.onnx");
  ASSERT_NE(g.ptr, nullptr);
  for (int is_output = 0; is_output < 2; ++is_output) {
    ASSERT_EQ(api().graph_io_count(g.ptr, is_output), 7u);
    for (size_t i = 0; i < 7; ++i) {
      wasinn_io_info info{};
      ASSERT_EQ(api().graph_io_info(g.ptr, is_output, i, &info), WASINN_OK);
      EXPECT_EQ(std::string(info.name), (is_output ? "out_" : "in_") + std::string(kTypeNames[i]));
      EXPECT_EQ(info.type, kTypes[i]) << info.name;
      ASSERT_EQ(info.rank, 2);
      EXPECT_EQ(info.dims[0], 2);
      EXPECT_EQ(info.dims[1], 3);
    }
  }
}

// Random bytes through Identity for every type: NaN payloads, subnormals and bf16 included,
// so any conversion anywhere would show.
TEST(OrtPlugin, IdentityAllTypesBitExact) {
  TestBackend b;
  Graph g = load_fixture(b, "types/identity_all.onnx");
  ASSERT_NE(g.ptr, nullptr);
  TestContext c(g.ptr);
  std::mt19937 rng(42);
  std::vector<std::vector<uint8_t>> data(7);
  for (uint32_t i = 0; i < 7; ++i) {
    data[i].resize(6 * kSizes[i]);
    for (auto& byte : data[i]) byte = static_cast<uint8_t>(rng());
    Diag d;
    // Alternate index and name addressing.
    const std::string name = std::string("in_") + kTypeNames[i];
    ASSERT_EQ(set_input(c.ptr, i % 2 ? by_name(name) : by_index(i), kTypes[i], {2, 3}, data[i], d), WASINN_OK)
        << d.detail;
  }
  Diag d;
  ASSERT_EQ(api().compute(c.ptr, &d), WASINN_OK) << d.detail;
  for (uint32_t i = 0; i < 7; ++i) {
    std::vector<uint32_t> dims;
    auto got = output_as<uint8_t>(c.ptr, by_index(i), kTypes[i], &dims);
    EXPECT_EQ(dims, (std::vector<uint32_t>{2, 3})) << kTypeNames[i];
    EXPECT_EQ(got, data[i]) << kTypeNames[i];
    auto by_name_got = output_as<uint8_t>(c.ptr, by_name(std::string("out_") + kTypeNames[i]), kTypes[i]);
    EXPECT_EQ(by_name_got, data[i]) << kTypeNames[i];
  }
}

TEST(OrtPlugin, TwoInputs) {
  TestBackend b;
  Graph g = load_fixture(b, "types/two_inputs.onnx");
  ASSERT_NE(g.ptr, nullptr);
  TestContext c(g.ptr);
  const std::vector<float> a = {0.5f, -1.25f, 3.0f};
  const std::vector<int64_t> bv = {7, -3, int64_t{1} << 40};
  Diag d;
  // Set in reverse order, by name: order of set_input must not matter.
  ASSERT_EQ(set_input(c.ptr, by_name("b"), WASINN_TYPE_I64, {1, 3}, bv, d), WASINN_OK) << d.detail;
  ASSERT_EQ(set_input(c.ptr, by_name("a"), WASINN_TYPE_F32, {1, 3}, a, d), WASINN_OK) << d.detail;
  ASSERT_EQ(api().compute(c.ptr, &d), WASINN_OK) << d.detail;
  auto sum = output_as<float>(c.ptr, by_name("sum"), WASINN_TYPE_F32);
  auto twice = output_as<int64_t>(c.ptr, by_index(1), WASINN_TYPE_I64);
  ASSERT_EQ(sum.size(), 3u);
  ASSERT_EQ(twice.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(sum[i], a[i] + static_cast<float>(bv[i])) << i;
    EXPECT_EQ(twice[i], bv[i] * 2) << i;
  }
}

// Also exercises the steady-state set_input path: same shape, so the context reuses its buffer
// and OrtValue, and the second run must see the new bytes.
TEST(OrtPlugin, TinyKnownAnswerAndRepeat) {
  TestBackend b;
  Graph g = load_fixture(b, "tiny/model.onnx");
  ASSERT_NE(g.ptr, nullptr);
  TestContext c(g.ptr);
  for (float base : {0.0f, 10.0f, -2.5f}) {
    const std::vector<float> x = {base, base + 1, base + 2, base + 3};
    Diag d;
    ASSERT_EQ(set_input(c.ptr, by_name("x"), WASINN_TYPE_F32, {1, 4}, x, d), WASINN_OK) << d.detail;
    ASSERT_EQ(api().compute(c.ptr, &d), WASINN_OK) << d.detail;
    std::vector<uint32_t> dims;
    auto y = output_as<float>(c.ptr, by_name("y"), WASINN_TYPE_F32, &dims);
    EXPECT_EQ(dims, (std::vector<uint32_t>{1, 4}));
    EXPECT_EQ(y, (std::vector<float>{base + 1, base + 3, base + 5, base + 7})) << base;
  }
}

// The same model, inputs and thread count through the plain ORT C++ API.
std::vector<float> native_digits(const std::vector<uint8_t>& model, const float* x, size_t rows) {
  static Ort::Env env(ORT_LOGGING_LEVEL_WARNING, "native");
  Ort::SessionOptions opts;
  opts.SetIntraOpNumThreads(1);
  opts.SetGraphOptimizationLevel(ORT_ENABLE_ALL);
  Ort::Session session(env, model.data(), model.size(), opts);
  const auto mem = Ort::MemoryInfo::CreateCpu(OrtDeviceAllocator, OrtMemTypeDefault);
  const int64_t shape[] = {static_cast<int64_t>(rows), 64};
  Ort::Value in = Ort::Value::CreateTensor<float>(mem, const_cast<float*>(x), rows * 64, shape, 2);
  const char* in_names[] = {"input"};
  const char* out_names[] = {"logits"};
  auto outs = session.Run(Ort::RunOptions{}, in_names, &in, 1, out_names, 1);
  const float* p = outs[0].GetTensorData<float>();
  return {p, p + rows * 10};
}

TEST(OrtPlugin, DigitsMatchesNativeOrt) {
  const auto model = read_fixture("digits/model.onnx");
  const auto x = read_fixture_as<float>("digits/test_x.f32");
  const auto y = read_fixture("digits/test_y.u8");
  ASSERT_EQ(x.size(), 450u * 64);
  ASSERT_EQ(y.size(), 450u);

  TestBackend b(R"({"intra_op_threads": 1})");
  Graph g;
  Diag d;
  ASSERT_EQ(load(b, {model}, g, d), WASINN_OK) << d.detail;
  TestContext c(g.ptr);
  // Batch 1, the full 450, then 1 again: the input buffer grows, then is reused smaller.
  for (uint32_t rows : {1u, 450u, 7u, 1u}) {
    const std::vector<float> batch(x.begin(), x.begin() + rows * 64);
    ASSERT_EQ(set_input(c.ptr, by_index(0), WASINN_TYPE_F32, {rows, 64}, batch, d), WASINN_OK) << d.detail;
    ASSERT_EQ(api().compute(c.ptr, &d), WASINN_OK) << d.detail;
    std::vector<uint32_t> dims;
    auto got = output_as<float>(c.ptr, by_name("logits"), WASINN_TYPE_F32, &dims);
    EXPECT_EQ(dims, (std::vector<uint32_t>{rows, 10}));
    const auto want = native_digits(model, batch.data(), rows);
    ASSERT_EQ(got.size(), want.size());
    EXPECT_EQ(std::memcmp(got.data(), want.data(), got.size() * sizeof(float)), 0)
        << "batch " << rows << " differs from native ORT";
    if (rows == 450) {
      size_t correct = 0;
      for (size_t r = 0; r < rows; ++r) {
        size_t best = 0;
        for (size_t k = 1; k < 10; ++k)
          if (got[r * 10 + k] > got[r * 10 + best]) best = k;
        correct += best == y[r];
      }
      EXPECT_GT(correct, 0.9 * rows) << "accuracy " << double(correct) / rows;
    }
  }
}

TEST(OrtPlugin, ConfigKeysAccepted) {
  TestBackend b(R"({"intra_op_threads": 2, "inter_op_threads": 1,
                "graph_optimization_level": "basic", "some_other_backend_key": [1, 2]})");
  ASSERT_NE(b.ptr, nullptr);
  for (const char* level : {"disable", "basic", "extended", "all"}) {
    const std::string cfg = std::string(R"({"intra_op_threads": 1, "graph_optimization_level": ")") + level + "\"}";
    Graph g = load_fixture(b, "tiny/model.onnx", cfg);
    ASSERT_NE(g.ptr, nullptr) << level;
    TestContext c(g.ptr);
    Diag d;
    ASSERT_EQ(set_input(c.ptr, by_index(0), WASINN_TYPE_F32, {1, 4}, std::vector<float>{1, 1, 1, 1}, d), WASINN_OK);
    ASSERT_EQ(api().compute(c.ptr, &d), WASINN_OK) << d.detail;
    EXPECT_EQ(output_as<float>(c.ptr, by_index(0), WASINN_TYPE_F32), (std::vector<float>{2, 3, 4, 5}));
  }
}

TEST(OrtPlugin, AutoTargetRunsOnCpu) {
  TestBackend b;
  Graph g;
  Diag d;
  ASSERT_EQ(load(b, {read_fixture("tiny/model.onnx")}, g, d, WASINN_TARGET_AUTO), WASINN_OK) << d.detail;
}

// Tolerance, not bit-exactness: the reference is torch's, computed with different kernels.
TEST(OrtPlugin, MobilenetCloseToTorch) {
  TestBackend b;
  Graph g = load_fixture(b, "mobilenet_v2/model.onnx");
  ASSERT_NE(g.ptr, nullptr);
  const auto x = read_fixture_as<float>("mobilenet_v2/input.f32");
  const auto want = read_fixture_as<float>("mobilenet_v2/expected.f32");
  ASSERT_EQ(x.size(), 3u * 224 * 224);
  TestContext c(g.ptr);
  Diag d;
  ASSERT_EQ(set_input(c.ptr, by_index(0), WASINN_TYPE_F32, {1, 3, 224, 224}, x, d), WASINN_OK) << d.detail;
  ASSERT_EQ(api().compute(c.ptr, &d), WASINN_OK) << d.detail;
  auto got = output_as<float>(c.ptr, by_index(0), WASINN_TYPE_F32);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-3f) << i;
}

}  // namespace
}  // namespace wasinn_test
