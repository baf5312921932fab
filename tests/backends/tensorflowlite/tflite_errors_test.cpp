// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Bad models, bad tensors and unavailable targets: each must come back as an error with a
// detail naming what was wrong, never a crash. Driven through the plugin table, and through a
// guest where the errno a guest sees matters.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "guest_runner.h"
#include "plugin_harness.h"

namespace wasinn_test {
namespace {

const wasinn_backend_api& api() { return plugin_api("tensorflowlite"); }

int load_bytes(Backend& b, std::vector<std::vector<uint8_t>> builders, Graph& g, Diag& d,
               int32_t target = WASINN_TARGET_CPU, const std::string& config = "") {
  LoadArgs args = model_args("tensorflowlite", std::move(builders));
  args.target = target;
  args.config = config;
  return load(b, args, g, d);
}

Graph load_ok(Backend& b, const std::string& fixture) {
  Graph g;
  Diag d;
  EXPECT_EQ(load_bytes(b, {read_fixture(fixture)}, g, d), WASINN_OK) << d.detail;
  return g;
}

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

TEST(TfliteErrors, TypeMismatchNamesBothTypes) {
  Backend b(api());
  Graph g = load_ok(b, "tflite/digits_int8.tflite");
  Context c(api(), g.ptr);
  Diag d;
  const std::vector<uint8_t> f32(64 * 4);
  EXPECT_EQ(set_input(api(), c.ptr, by_index(0), WASINN_TYPE_F32, {1, 64}, f32, d), WASINN_INVALID_ARGUMENT);
  EXPECT_TRUE(has(d.detail, "i8 [?, 64]")) << d.detail;
  EXPECT_TRUE(has(d.detail, "f32 [1, 64]")) << d.detail;
  EXPECT_TRUE(has(d.detail, "zero point -128")) << "quantization shown: " << d.detail;
  // u8 is how a witx guest sends int8 bytes; i8 itself is accepted too.
  const std::vector<uint8_t> q(64);
  EXPECT_EQ(set_input(api(), c.ptr, by_index(0), WASINN_TYPE_U8, {1, 64}, q, d), WASINN_OK) << d.detail;
  EXPECT_EQ(set_input(api(), c.ptr, by_index(0), WASINN_TYPE_I8, {1, 64}, q, d), WASINN_OK) << d.detail;
}

TEST(TfliteErrors, ShapeMismatchNamesBothShapes) {
  Backend b(api());
  Graph g = load_ok(b, "tflite_mnist/MNISTnet_uint8_quant.tflite");
  Context c(api(), g.ptr);
  Diag d;
  const std::vector<uint8_t> img(784);
  EXPECT_EQ(set_input(api(), c.ptr, by_index(0), WASINN_TYPE_U8, {1, 28, 28}, img, d), WASINN_INVALID_ARGUMENT);
  EXPECT_TRUE(has(d.detail, "u8 [1, 28, 28, 1]") && has(d.detail, "u8 [1, 28, 28]")) << d.detail;
  EXPECT_EQ(set_input(api(), c.ptr, by_index(0), WASINN_TYPE_U8, {1, 28, 14, 2}, img, d), WASINN_INVALID_ARGUMENT);
  EXPECT_TRUE(has(d.detail, "[1, 28, 14, 2]")) << d.detail;
  // The right shape still works after the rejected ones.
  EXPECT_EQ(set_input(api(), c.ptr, by_index(0), WASINN_TYPE_U8, {1, 28, 28, 1}, img, d), WASINN_OK);
  EXPECT_EQ(api().compute(c.ptr, &d), WASINN_OK) << d.detail;
}

TEST(TfliteErrors, GpuAndTpuAreUnsupportedWithAReason) {
  Backend b(api());
  for (int32_t target : {WASINN_TARGET_GPU, WASINN_TARGET_TPU}) {
    Graph g;
    Diag d;
    const int st = load_bytes(b, {read_fixture("tflite/digits_f32.tflite")}, g, d, target);
    if (target == WASINN_TARGET_GPU && st == WASINN_OK) {
      // A Vulkan device Dawn accepts (a real GPU; Mesa 25's lavapipe): then it runs there.
      wasinn_property p{};
      ASSERT_EQ(api().graph_property_info(g.ptr, 0, &p), WASINN_OK);
      EXPECT_EQ(std::string(p.value).rfind("gpu: ", 0), 0u) << p.value;
      continue;
    }
    EXPECT_EQ(st, WASINN_UNSUPPORTED_OPERATION);
    // Refused up front when no device is there for it, or at compile time when the GPU
    // accelerator finds none it can open.
    EXPECT_TRUE(has(d.detail, target == WASINN_TARGET_GPU ? "no GPU" : "no NPU") ||
                has(d.detail, "found no device it could open"))
        << d.detail;
    EXPECT_TRUE(has(d.detail, "use target cpu")) << d.detail;
  }
  Graph g;
  Diag d;
  EXPECT_EQ(load_bytes(b, {read_fixture("tflite/digits_f32.tflite")}, g, d, WASINN_TARGET_AUTO), WASINN_OK)
      << "auto uses what is there: " << d.detail;
}

TEST(TfliteErrors, BrokenModelsAreRejected) {
  Backend b(api());
  const auto good = read_fixture("tflite/digits_f32.tflite");
  std::vector<uint8_t> garbage(4096);
  for (size_t i = 0; i < garbage.size(); ++i) garbage[i] = static_cast<uint8_t>(i * 2654435761u >> 13);
  std::vector<uint8_t> fake_header = garbage;  // right identifier, nonsense flatbuffer
  std::copy_n("TFL3", 4, fake_header.begin() + 4);
  struct Case {
    const char* what;
    std::vector<uint8_t> bytes;
  } cases[] = {{"empty", {}},
               {"garbage", garbage},
               {"fake header", fake_header},
               {"truncated to 8 bytes", {good.begin(), good.begin() + 8}},
               {"truncated to half", {good.begin(), good.begin() + good.size() / 2}},
               {"truncated by one byte", {good.begin(), good.end() - 1}}};
  for (const auto& c : cases) {
    Graph g;
    Diag d;
    EXPECT_EQ(load_bytes(b, {c.bytes}, g, d), WASINN_INVALID_ARGUMENT) << c.what;
    EXPECT_FALSE(d.detail.empty()) << c.what;
    EXPECT_EQ(g.ptr, nullptr) << c.what;
  }
  Graph g;
  Diag d;
  EXPECT_EQ(load_bytes(b, {good, good}, g, d), WASINN_INVALID_ARGUMENT);
  EXPECT_TRUE(has(d.detail, "got 2")) << d.detail;
}

TEST(TfliteErrors, IdsAndCallOrder) {
  Backend b(api());
  Graph g = load_ok(b, "tflite/digits_f32.tflite");
  Context c(api(), g.ptr);
  Diag d;
  EXPECT_EQ(api().compute(c.ptr, &d), WASINN_INVALID_ARGUMENT);
  EXPECT_TRUE(has(d.detail, "inputs not set: input 0 (\"input\")")) << d.detail;
  wasinn_tensor t{};
  wasinn_tensor_id out0 = by_index(0);
  EXPECT_EQ(api().get_output(c.ptr, &out0, &t, &d), WASINN_INVALID_ARGUMENT);
  EXPECT_TRUE(has(d.detail, "call compute first")) << d.detail;

  const std::vector<uint8_t> row(256);
  EXPECT_EQ(set_input(api(), c.ptr, by_index(1), WASINN_TYPE_F32, {1, 64}, row, d), WASINN_INVALID_ARGUMENT);
  EXPECT_TRUE(has(d.detail, "out of range")) << d.detail;
  EXPECT_EQ(set_input(api(), c.ptr, by_name("nope"), WASINN_TYPE_F32, {1, 64}, row, d), WASINN_INVALID_ARGUMENT);
  EXPECT_TRUE(has(d.detail, "\"input\"")) << "lists the names: " << d.detail;
  // Signature name and tensor name both address the input.
  EXPECT_EQ(set_input(api(), c.ptr, by_name("serving_default_input:0"), WASINN_TYPE_F32, {1, 64}, row, d), WASINN_OK)
      << d.detail;
  EXPECT_EQ(set_input(api(), c.ptr, by_name("input"), WASINN_TYPE_F32, {1, 64}, row, d), WASINN_OK);
  EXPECT_EQ(api().compute(c.ptr, &d), WASINN_OK) << d.detail;
  std::vector<uint32_t> dims;
  EXPECT_EQ(output_bytes(api(), c.ptr, by_name("logits"), WASINN_TYPE_F32, &dims).size(), 40u);
  EXPECT_EQ(dims, (std::vector<uint32_t>{1, 10}));
}

// An unknown tensor name is a bad argument, as in every backend, and the detail lists the names
// the model has, in index order (the interpreter's: b before a).
TEST(TfliteErrors, UnknownNamesAreInvalidArgumentsListingTheNames) {
  Backend b(api());
  Graph g = load_ok(b, "tflite/types_int.tflite");
  Context c(api(), g.ptr);
  Diag d;
  const std::vector<uint8_t> i64x4(32), i32x4(16);
  EXPECT_EQ(set_input(api(), c.ptr, by_name("c"), WASINN_TYPE_I32, {1, 4}, i32x4, d), WASINN_INVALID_ARGUMENT);
  EXPECT_TRUE(has(d.detail, "\"c\"") && has(d.detail, "\"b\", \"a\"")) << d.detail;

  ASSERT_EQ(set_input(api(), c.ptr, by_name("b"), WASINN_TYPE_I64, {1, 4}, i64x4, d), WASINN_OK) << d.detail;
  ASSERT_EQ(set_input(api(), c.ptr, by_name("a"), WASINN_TYPE_I32, {1, 4}, i32x4, d), WASINN_OK) << d.detail;
  ASSERT_EQ(api().compute(c.ptr, &d), WASINN_OK) << d.detail;
  const std::string unknown = "c_out";
  const wasinn_tensor_id id = by_name(unknown);
  wasinn_tensor t{};
  EXPECT_EQ(api().get_output(c.ptr, &id, &t, &d), WASINN_INVALID_ARGUMENT);
  EXPECT_TRUE(has(d.detail, "\"c_out\"") && has(d.detail, "\"b_out\", \"a_out\"")) << d.detail;
  // The known names still work after the refusals.
  EXPECT_EQ(output_bytes(api(), c.ptr, by_name("a_out"), WASINN_TYPE_I32).size(), 16u);
}

TEST(TfliteErrors, ConfigChoosesSignatureOrSaysWhy) {
  Backend b(api());
  Graph g;
  Diag d;
  EXPECT_EQ(load_bytes(b, {read_fixture("tflite/digits_f32.tflite")}, g, d, WASINN_TARGET_CPU,
                       R"({"signature":"serving_default"})"),
            WASINN_OK)
      << d.detail;
  Graph g2;
  EXPECT_EQ(
      load_bytes(b, {read_fixture("tflite/digits_f32.tflite")}, g2, d, WASINN_TARGET_CPU, R"({"signature":"train"})"),
      WASINN_NOT_FOUND);
  EXPECT_TRUE(has(d.detail, "\"serving_default\"")) << d.detail;
  Graph g3;
  EXPECT_EQ(load_bytes(b, {read_fixture("tflite/digits_f32.tflite")}, g3, d, WASINN_TARGET_CPU, R"({"threads":2})"),
            WASINN_INVALID_ARGUMENT);
  EXPECT_TRUE(has(d.detail, "threads")) << d.detail;
}

TEST(TfliteErrors, GuestSeesErrnoAndHostShowsDetail) {
  const std::string out = scratch_dir("errors");
  const std::string fix = fixtures_dir().string();
  write_file(out + "/row.f32", std::vector<uint8_t>(256));
  GuestRun gpu = run_guest({"--dir", fix + "::/f"}, "run_model",
                           {"--model", "/f/tflite/digits_f32.tflite", "--encoding", "4", "--target", "1"});
  EXPECT_EQ(gpu.exit_code, 6) << gpu.output;  // unsupported_operation
  EXPECT_TRUE(has(gpu.output, "errno 6 in load") && has(gpu.output, "no GPU")) << gpu.output;

  GuestRun mismatch =
      run_guest({"--dir", fix + "::/f", "--dir", out + "::/o"}, "run_model",
                {"--model", "/f/tflite/digits_int8.tflite", "--encoding", "4", "--input", "0:f32:1x64:/o/row.f32"});
  EXPECT_EQ(mismatch.exit_code, 1) << mismatch.output;  // invalid_argument
  EXPECT_TRUE(has(mismatch.output, "errno 1 in set_input")) << mismatch.output;
  EXPECT_TRUE(has(mismatch.output, "i8 [?, 64]") && has(mismatch.output, "f32 [1, 64]")) << mismatch.output;
}

}  // namespace
}  // namespace wasinn_test
