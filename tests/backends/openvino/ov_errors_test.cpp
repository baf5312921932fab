// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Error paths at plugin level: each is a documented status with a detail, and the backend keeps
// working afterwards (every test ends by loading and running a good model on the same backend).
#include <cstdlib>
#include <filesystem>

#include "ov_test_support.h"

namespace wasinn_test {
namespace {

using ::testing::HasSubstr;

// A good load and inference on `b` after whatever failed before.
void expect_still_works(Backend& b) {
  Graph g = load_ir(b, "tiny/openvino/dynamic");
  ASSERT_NE(g.ptr, nullptr);
  Context c(api(), g.ptr);
  Diag d;
  const float a[2] = {1, 2};
  const int32_t bb[1] = {41};
  ASSERT_EQ(set_input_of(c.ptr, by_index(0), WASINN_TYPE_F32, {1, 2}, a, 2, d), WASINN_OK) << d.detail;
  ASSERT_EQ(set_input_of(c.ptr, by_index(1), WASINN_TYPE_I32, {1}, bb, 1, d), WASINN_OK) << d.detail;
  ASSERT_EQ(api().compute(c.ptr, &d), WASINN_OK) << d.detail;
  EXPECT_EQ(output_as<int32_t>(c.ptr, by_index(1), WASINN_TYPE_I32), std::vector<int32_t>{42});
}

int load_status(Backend& b, const std::vector<std::vector<uint8_t>>& builders, Diag& d,
                int32_t target = WASINN_TARGET_CPU, const std::string& config = "") {
  Graph g;
  const int st = load_bytes(b, builders, g, d, target, config);
  EXPECT_EQ(st == WASINN_OK, g.ptr != nullptr);
  return st;
}

TEST(OvErrors, OneBuilderOfXml) {
  Backend b(api(), kF32);
  Diag d;
  EXPECT_EQ(load_status(b, {read_fixture("digits/openvino/model.xml")}, d), WASINN_INVALID_ARGUMENT);
  EXPECT_THAT(d.detail, HasSubstr("needs two graph builders"));
  EXPECT_THAT(d.detail, HasSubstr(".bin"));
  expect_still_works(b);
}

TEST(OvErrors, BuilderCounts) {
  Backend b(api(), kF32);
  Diag d;
  EXPECT_EQ(load_status(b, {}, d), WASINN_INVALID_ARGUMENT);
  EXPECT_THAT(d.detail, HasSubstr("no graph builders"));
  const auto xml = read_fixture("digits/openvino/model.xml"), bin = read_fixture("digits/openvino/model.bin");
  EXPECT_EQ(load_status(b, {xml, bin, bin}, d), WASINN_INVALID_ARGUMENT);
  EXPECT_THAT(d.detail, HasSubstr("3 graph builders"));
  EXPECT_EQ(load_status(b, {bin, xml}, d), WASINN_INVALID_ARGUMENT);
  EXPECT_THAT(d.detail, HasSubstr("builder 0 is not XML"));
  expect_still_works(b);
}

TEST(OvErrors, CorruptXml) {
  Backend b(api(), kF32);
  Diag d;
  EXPECT_EQ(load_status(b, {read_fixture("corrupt/openvino_bad.xml"), read_fixture("digits/openvino/model.bin")}, d),
            WASINN_INVALID_ARGUMENT);
  EXPECT_THAT(d.detail, HasSubstr("the OpenVINO IR cannot be read"));
  EXPECT_THAT(d.detail, HasSubstr("parsing"));
  EXPECT_THAT(d.detail, ::testing::Not(HasSubstr("Exception from src/")));
  expect_still_works(b);
}

TEST(OvErrors, WeightsOfWrongSize) {
  Backend b(api(), kF32);
  Diag d;
  EXPECT_EQ(load_status(b, {read_fixture("digits/openvino/model.xml"), read_fixture("corrupt/openvino_short.bin")}, d),
            WASINN_INVALID_ARGUMENT);
  EXPECT_THAT(d.detail, HasSubstr("Incorrect weights"));
  // And no weights at all for an IR that has constants.
  EXPECT_EQ(load_status(b, {read_fixture("digits/openvino/model.xml"), {}}, d), WASINN_INVALID_ARGUMENT);
  EXPECT_THAT(d.detail, HasSubstr("the OpenVINO IR cannot be read"));
  expect_still_works(b);
}

TEST(OvErrors, GarbageAndEmptyInOneBuilder) {
  Backend b(api(), kF32);
  Diag d;
  EXPECT_EQ(load_status(b, {read_fixture("corrupt/garbage.onnx")}, d), WASINN_INVALID_ARGUMENT);
  EXPECT_THAT(d.detail, HasSubstr("OpenVINO cannot read the model"));
  EXPECT_EQ(load_status(b, {read_fixture("corrupt/truncated.onnx")}, d), WASINN_INVALID_ARGUMENT);
  EXPECT_EQ(load_status(b, {std::vector<uint8_t>{}}, d), WASINN_INVALID_ARGUMENT);
  expect_still_works(b);
}

bool native_has(const std::string& device) {
  for (const auto& d : native_core().get_available_devices())
    if (d == device || d.rfind(device + ".", 0) == 0) return true;
  return false;
}

// gpu -> GPU and tpu -> NPU: on a machine without them, UNSUPPORTED_OPERATION naming what
// OpenVINO found, never a silent run on the CPU.
TEST(OvErrors, MissingDevices) {
  Backend b(api(), kF32);
  std::string found;
  for (const auto& dev : native_core().get_available_devices()) found += (found.empty() ? "" : ", ") + dev;
  // The device report lists what OpenVINO found, each with the target that reaches it.
  std::string reported;
  for (size_t i = 0; i < api().backend_device_count(b.ptr); ++i) {
    wasinn_device dev{};
    ASSERT_EQ(api().backend_device_info(b.ptr, i, &dev), WASINN_OK);
    reported += std::string(dev.api) + " -> " + std::to_string(dev.target) + "; ";
  }
  EXPECT_THAT(reported, HasSubstr("OpenVINO CPU -> 0"));
  for (auto [target, device] :
       {std::pair<int32_t, const char*>{WASINN_TARGET_GPU, "GPU"}, {WASINN_TARGET_TPU, "NPU"}}) {
    const char* why = api().backend_target_unavailable(b.ptr, target);
    EXPECT_EQ(why == nullptr, native_has(device)) << device;
    Diag d;
    const int st = load_status(
        b, {read_fixture("digits/openvino/model.xml"), read_fixture("digits/openvino/model.bin")}, d, target, kF32);
    if (native_has(device)) {
      EXPECT_EQ(st, WASINN_OK) << d.detail;
      continue;
    }
    EXPECT_EQ(st, WASINN_UNSUPPORTED_OPERATION) << device;
    EXPECT_THAT(d.detail, HasSubstr(std::string("OpenVINO device ") + device));
    EXPECT_THAT(d.detail, HasSubstr("OpenVINO found: " + found));
    // What the device needs, and what to do instead.
    EXPECT_THAT(d.detail, HasSubstr(target == WASINN_TARGET_GPU ? "OpenCL" : "NPU and its driver"));
    EXPECT_THAT(d.detail, HasSubstr("use target cpu or auto"));
  }
  Diag d;
  EXPECT_EQ(
      load_status(b, {read_fixture("digits/openvino/model.xml"), read_fixture("digits/openvino/model.bin")}, d, 7),
      WASINN_INVALID_ARGUMENT);
  EXPECT_THAT(d.detail, HasSubstr("unknown execution target 7"));
  expect_still_works(b);
}

// AUTO exists wherever any device does, and picks one itself.
TEST(OvErrors, AutoTargetRuns) {
  Backend b(api(), kF32);
  Graph g = load_ir(b, "digits/openvino/model", kF32, WASINN_TARGET_AUTO);
  ASSERT_NE(g.ptr, nullptr);
  const auto x = read_fixture_as<float>("digits/test_x.f32");
  const auto y = read_fixture("digits/test_y.u8");
  Context c(api(), g.ptr);
  Diag d;
  const uint32_t n = static_cast<uint32_t>(y.size());
  ASSERT_EQ(set_input_of(c.ptr, by_index(0), WASINN_TYPE_F32, {n, 64}, x.data(), x.size(), d), WASINN_OK) << d.detail;
  ASSERT_EQ(api().compute(c.ptr, &d), WASINN_OK) << d.detail;
  EXPECT_GE(count_correct(output_as<float>(c.ptr, by_index(0), WASINN_TYPE_F32), y, 10) * 100, n * 95u);
}

TEST(OvErrors, WrongTypeOrShapeNamesExpectedAndReceived) {
  Backend b(api(), kF32);
  Graph g = load_ir(b, "digits/openvino/model");
  Context c(api(), g.ptr);
  Diag d;
  std::vector<float> x(2 * 64, 0.5f);
  std::vector<uint16_t> half(64);
  EXPECT_EQ(set_input_of(c.ptr, by_index(0), WASINN_TYPE_F16, {1, 64}, half.data(), half.size(), d),
            WASINN_INVALID_ARGUMENT);
  EXPECT_THAT(d.detail, HasSubstr("input 0 (\"input\"): expected f32 [?, 64], got f16 [1, 64]"));
  EXPECT_EQ(set_input_of(c.ptr, by_index(0), WASINN_TYPE_F32, {1, 63}, x.data(), 63, d), WASINN_INVALID_ARGUMENT);
  EXPECT_THAT(d.detail, HasSubstr("expected f32 [?, 64], got f32 [1, 63]"));
  EXPECT_EQ(set_input_of(c.ptr, by_index(0), WASINN_TYPE_F32, {64}, x.data(), 64, d), WASINN_INVALID_ARGUMENT);
  EXPECT_THAT(d.detail, HasSubstr("got f32 [64]"));
  // data_length disagreeing with the dims (the host checks too; the plugin does not trust it).
  const std::vector<uint32_t> dims{2, 64};
  const wasinn_tensor t{WASINN_TYPE_F32, 2, dims.data(), x.data(), 64 * sizeof(float)};
  const auto id0 = by_index(0);
  EXPECT_EQ(api().set_input(c.ptr, &id0, &t, &d), WASINN_INVALID_ARGUMENT);
  EXPECT_THAT(d.detail, HasSubstr("needs 512"));
  EXPECT_EQ(set_input_of(c.ptr, by_index(1), WASINN_TYPE_F32, {1, 64}, x.data(), 64, d), WASINN_INVALID_ARGUMENT);
  EXPECT_THAT(d.detail, HasSubstr("input index 1 is out of range: the only valid index is 0"));
  EXPECT_EQ(set_input_of(c.ptr, by_name("pixels"), WASINN_TYPE_F32, {1, 64}, x.data(), 64, d), WASINN_INVALID_ARGUMENT);
  EXPECT_THAT(d.detail, HasSubstr("no input named \"pixels\": the model's inputs are \"input\""));

  // A static shape: mobilenet's input is exactly [1,3,224,224].
  Graph m = load_ir(b, "mobilenet_v2/openvino/model");
  Context mc(api(), m.ptr);
  std::vector<float> img(3 * 224 * 225);
  EXPECT_EQ(set_input_of(mc.ptr, by_index(0), WASINN_TYPE_F32, {1, 3, 224, 225}, img.data(), img.size(), d),
            WASINN_INVALID_ARGUMENT);
  EXPECT_THAT(d.detail, HasSubstr("expected f32 [1, 3, 224, 224], got f32 [1, 3, 224, 225]"));
  expect_still_works(b);
}

TEST(OvErrors, OrderOfCalls) {
  Backend b(api(), kF32);
  Graph g = load_ir(b, "tiny/openvino/dynamic");
  Context c(api(), g.ptr);
  Diag d;
  EXPECT_EQ(api().compute(c.ptr, &d), WASINN_INVALID_ARGUMENT);
  EXPECT_THAT(d.detail, HasSubstr("inputs not set: input 0 (\"a\"), input 1 (\"b\")"));
  wasinn_tensor out{};
  const auto id0 = by_index(0);
  EXPECT_EQ(api().get_output(c.ptr, &id0, &out, &d), WASINN_INVALID_ARGUMENT);
  EXPECT_THAT(d.detail, HasSubstr("call compute first"));
  const float a[1] = {1};
  ASSERT_EQ(set_input_of(c.ptr, by_index(0), WASINN_TYPE_F32, {1, 1}, a, 1, d), WASINN_OK) << d.detail;
  EXPECT_EQ(api().compute(c.ptr, &d), WASINN_INVALID_ARGUMENT);
  EXPECT_THAT(d.detail, HasSubstr("inputs not set: input 1 (\"b\")"));
  const int32_t bv[1] = {1};
  ASSERT_EQ(set_input_of(c.ptr, by_index(1), WASINN_TYPE_I32, {1}, bv, 1, d), WASINN_OK) << d.detail;
  ASSERT_EQ(api().compute(c.ptr, &d), WASINN_OK) << d.detail;
  const auto id2 = by_index(2);
  EXPECT_EQ(api().get_output(c.ptr, &id2, &out, &d), WASINN_INVALID_ARGUMENT);
  EXPECT_THAT(d.detail, HasSubstr("output index 2 is out of range: valid indices are 0..1"));
}

// A name the model does not have, for an input and for an output: INVALID_ARGUMENT (the rule of
// backend_plugin.h) with a detail listing the model's names.
TEST(OvErrors, UnknownNamesAreInvalidArgumentListingTheModelsNames) {
  Backend b(api(), kF32);
  Graph g = load_ir(b, "tiny/openvino/dynamic");
  ASSERT_NE(g.ptr, nullptr);
  Context c(api(), g.ptr);
  Diag d;
  const float a[2] = {1, 2};
  const int32_t bv[1] = {41};
  EXPECT_EQ(set_input_of(c.ptr, by_name("nope"), WASINN_TYPE_F32, {1, 2}, a, 2, d), WASINN_INVALID_ARGUMENT);
  EXPECT_THAT(d.detail, HasSubstr("no input named \"nope\": the model's inputs are \"a\", \"b\""));
  ASSERT_EQ(set_input_of(c.ptr, by_name("a"), WASINN_TYPE_F32, {1, 2}, a, 2, d), WASINN_OK) << d.detail;
  ASSERT_EQ(set_input_of(c.ptr, by_name("b"), WASINN_TYPE_I32, {1}, bv, 1, d), WASINN_OK) << d.detail;
  ASSERT_EQ(api().compute(c.ptr, &d), WASINN_OK) << d.detail;
  wasinn_tensor out{};
  const std::string unknown = "nope";
  const auto id = by_name(unknown);
  EXPECT_EQ(api().get_output(c.ptr, &id, &out, &d), WASINN_INVALID_ARGUMENT);
  EXPECT_THAT(d.detail, HasSubstr("no output named \"nope\": the model's outputs are \"y\", \"z\""));
  // The context still serves the names it has.
  EXPECT_EQ(output_as<int32_t>(c.ptr, by_name("z"), WASINN_TYPE_I32), std::vector<int32_t>{42});
}

TEST(OvErrors, BadConfigs) {
  const char* bad[] = {"{",
                       "[1]",
                       R"({"num_threads":-1})",
                       R"({"num_threads":1.5})",
                       R"({"inference_precision":"f8"})",
                       R"({"cache_dir":3})",
                       R"({"performance_hint":"fast"})",
                       R"({"cancellable":"yes"})"};
  for (const char* cfg : bad) {
    wasinn_backend* ptr = nullptr;
    Diag d;
    EXPECT_EQ(api().backend_create(cfg, std::strlen(cfg), &ptr, &d), WASINN_INVALID_ARGUMENT) << cfg;
    EXPECT_THAT(d.detail, HasSubstr("openvino backend config")) << cfg;
    EXPECT_EQ(ptr, nullptr);
  }
  Backend b(api(), kF32);
  const auto xml = read_fixture("digits/openvino/model.xml"), bin = read_fixture("digits/openvino/model.bin");
  Diag d;
  EXPECT_EQ(load_status(b, {xml, bin}, d, WASINN_TARGET_CPU, R"({"num_threads":"two"})"), WASINN_INVALID_ARGUMENT);
  EXPECT_THAT(d.detail, HasSubstr("graph config: \"num_threads\" must be"));
  // A cache directory the config names but that cannot be made is an error, not a silent no-cache.
  EXPECT_EQ(load_status(b, {xml, bin}, d, WASINN_TARGET_CPU, R"({"cache_dir":"/proc/wasinn-no-such/dir"})"),
            WASINN_INVALID_ARGUMENT);
  EXPECT_THAT(d.detail, HasSubstr("cannot be created"));
  expect_still_works(b);
}

}  // namespace
}  // namespace wasinn_test
