// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// External delegates through the plugin table, in this process: the test delegate
// (test_delegate/) takes the digits models' FULLY_CONNECTED nodes, its answers equal the CPU
// path's, its counters prove the nodes ran in it, and every way a delegate can fail is an error
// with its reason (or a CPU fallback when configured) after which the backend still serves.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "delegate_test_support.h"
#include "guest_runner.h"

namespace wasinn_test {
namespace {

const wasinn_backend_api& api() { return plugin_api("tensorflowlite"); }

struct Digits {
  std::string model;  // fixture
  int32_t type;       // input and output type
  std::vector<uint8_t> x;
  size_t row_bytes;
  size_t out_row_bytes;
};

Digits digits_f32() {
  return {"tflite/digits_f32.tflite", WASINN_TYPE_F32, read_fixture("digits/test_x.f32"), 64 * 4, 10 * 4};
}
Digits digits_int8() {
  return {"tflite/digits_int8.tflite", WASINN_TYPE_I8, read_fixture("tflite/digits_int8_input.i8"), 64, 10};
}

// Every row of `m`, one compute each, on a graph loaded from `b` with `target` and `config`.
std::vector<uint8_t> classify(Backend& b, const Digits& m, int32_t target, const std::string& config = "") {
  Graph g;
  Diag d;
  if (load(b, {read_fixture(m.model)}, g, d, target, config) != WASINN_OK) {
    ADD_FAILURE() << "load: " << d.detail;
    return {};
  }
  Context c(api(), g.ptr);
  std::vector<uint8_t> out;
  for (size_t i = 0; i < m.x.size() / m.row_bytes; ++i) {
    const std::vector<uint8_t> row(m.x.begin() + static_cast<std::ptrdiff_t>(i * m.row_bytes),
                                   m.x.begin() + static_cast<std::ptrdiff_t>((i + 1) * m.row_bytes));
    int st = 0;
    const auto o = run_once(api(), c.ptr, m.type, {1, 64}, row, m.type, st, d);
    if (st != WASINN_OK) {
      ADD_FAILURE() << "row " << i << ": " << d.detail;
      return {};
    }
    out.insert(out.end(), o.begin(), o.end());
  }
  return out;
}

template <typename T>
size_t argmax_disagreements(const std::vector<T>& a, const std::vector<T>& b, size_t classes) {
  size_t n = 0;
  for (size_t i = 0; i + classes <= std::min(a.size(), b.size()); i += classes)
    n += std::max_element(&a[i], &a[i] + classes) - &a[i] != std::max_element(&b[i], &b[i] + classes) - &b[i];
  return n;
}

// The host still serves after a failure: a CPU load and compute on the same backend work.
void expect_still_serving(Backend& b) {
  const Digits m = digits_f32();
  Graph g;
  Diag d;
  ASSERT_EQ(load(b, {read_fixture(m.model)}, g, d, WASINN_TARGET_CPU), WASINN_OK) << d.detail;
  Context c(api(), g.ptr);
  int st = 0;
  run_once(api(), c.ptr, m.type, {1, 64}, {m.x.begin(), m.x.begin() + 256}, m.type, st, d);
  EXPECT_EQ(st, WASINN_OK) << d.detail;
}

TEST(TfliteDelegate, DigitsFloatOnTheDelegateEqualsTheCpuPath) {
  const Digits m = digits_f32();
  Backend cpu(api());
  const auto want = as_vector<float>(classify(cpu, m, WASINN_TARGET_CPU));
  Backend npu(api(), test_delegate_config());
  const DelegateStats before = delegate_stats();
  const auto got = as_vector<float>(classify(npu, m, WASINN_TARGET_TPU));
  const DelegateStats after = delegate_stats();
  ASSERT_EQ(got.size(), want.size());
  double worst = 0;
  for (size_t i = 0; i < got.size(); ++i) worst = std::max(worst, double(std::abs(got[i] - want[i])));
  EXPECT_LT(worst, 1e-4) << "the delegate's float kernels against XNNPACK";
  EXPECT_EQ(argmax_disagreements(got, want, 10), 0u);
  // Two FULLY_CONNECTED nodes per compute, 450 computes: every one ran in the delegate.
  EXPECT_EQ(after.invocations - before.invocations, 2u * 450u);
  EXPECT_EQ(after.live, before.live) << "every delegate created was destroyed with its graph";
}

TEST(TfliteDelegate, DigitsInt8OnTheDelegateEqualsTheCpuPath) {
  const Digits m = digits_int8();
  Backend cpu(api());
  const auto want = as_vector<int8_t>(classify(cpu, m, WASINN_TARGET_CPU));
  Backend npu(api(), test_delegate_config());
  const DelegateStats before = delegate_stats();
  const auto got = as_vector<int8_t>(classify(npu, m, WASINN_TARGET_TPU));
  EXPECT_EQ(delegate_stats().invocations - before.invocations, 2u * 450u);
  ASSERT_EQ(got.size(), want.size());
  size_t differ = 0;
  int worst = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    differ += got[i] != want[i];
    worst = std::max(worst, std::abs(int(got[i]) - int(want[i])));
  }
  EXPECT_EQ(differ, 0u) << "int8 logits differing from XNNPACK's; worst by " << worst << " steps";
  EXPECT_LE(worst, 1);
  EXPECT_EQ(argmax_disagreements(got, want, 10), 0u);
}

TEST(TfliteDelegate, WholeBatchResizeRunsOnTheDelegate) {
  // [450, 64] into a [?, 64] model: LiteRT undoes and redoes the delegate for the new shape.
  const Digits m = digits_f32();
  Backend cpu(api()), npu(api(), test_delegate_config());
  auto run = [&](Backend& b, int32_t target) {
    Graph g;
    Diag d;
    EXPECT_EQ(load(b, {read_fixture(m.model)}, g, d, target), WASINN_OK) << d.detail;
    Context c(api(), g.ptr);
    int st = 0;
    auto o = as_vector<float>(run_once(api(), c.ptr, m.type, {450, 64}, m.x, m.type, st, d));
    EXPECT_EQ(st, WASINN_OK) << d.detail;
    return o;
  };
  const auto want = run(cpu, WASINN_TARGET_CPU);
  const uint64_t before = delegate_stats().invocations;
  const auto got = run(npu, WASINN_TARGET_TPU);
  EXPECT_EQ(delegate_stats().invocations - before, 2u);
  ASSERT_EQ(got.size(), want.size());
  EXPECT_EQ(argmax_disagreements(got, want, 10), 0u);
}

TEST(TfliteDelegate, MobilenetRunsPartlyOnTheDelegateAndPartlyOnXnnpack) {
  // The delegate takes MobileNetV2's 10 residual ADDs and its classifier (FULLY_CONNECTED);
  // XNNPACK, registered after it, takes the convolutions between them.
  const auto x = read_fixture("tflite/mobilenet_v2_input.f32");
  auto run = [&](Backend& b, int32_t target) {
    Graph g;
    Diag d;
    EXPECT_EQ(load(b, {read_fixture("tflite/mobilenet_v2.tflite")}, g, d, target), WASINN_OK) << d.detail;
    Context c(api(), g.ptr);
    int st = 0;
    auto o = as_vector<float>(run_once(api(), c.ptr, WASINN_TYPE_F32, {1, 224, 224, 3}, x, WASINN_TYPE_F32, st, d));
    EXPECT_EQ(st, WASINN_OK) << d.detail;
    return o;
  };
  Backend cpu(api()), npu(api(), test_delegate_config());
  const auto want = run(cpu, WASINN_TARGET_CPU);
  const uint64_t before = delegate_stats().invocations;
  const auto got = run(npu, WASINN_TARGET_TPU);
  EXPECT_EQ(delegate_stats().invocations - before, 11u) << "10 ADD and 1 FULLY_CONNECTED nodes";
  ASSERT_EQ(got.size(), want.size());
  ASSERT_FALSE(got.empty());
  double worst = 0;
  for (size_t i = 0; i < got.size(); ++i) worst = std::max(worst, double(std::abs(got[i] - want[i])));
  EXPECT_LT(worst, 1e-3);
  EXPECT_EQ(argmax_disagreements(got, want, got.size()), 0u);
}

TEST(TfliteDelegate, TargetCpuStaysOnTheCpuAndAutoPrefersTheNpuDelegate) {
  const Digits m = digits_f32();
  Backend plain(api()), b(api(), test_delegate_config());
  uint64_t before = delegate_stats().invocations;
  // With delegates configured LiteRT's CPU accelerator is registered by the plugin (after the
  // delegates' accelerator): target cpu must still give exactly what it gives without them.
  EXPECT_EQ(classify(b, m, WASINN_TARGET_CPU), classify(plain, m, WASINN_TARGET_CPU));
  EXPECT_EQ(delegate_stats().invocations, before) << "target cpu must not use the NPU delegate";
  classify(b, {m.model, m.type, {m.x.begin(), m.x.begin() + 256}, m.row_bytes, m.out_row_bytes}, WASINN_TARGET_AUTO);
  EXPECT_EQ(delegate_stats().invocations - before, 2u) << "auto takes the configured NPU delegate";
  // No GPU delegate and no GPU here: gpu is refused, naming how to configure one.
  Graph g;
  Diag d;
  EXPECT_EQ(load(b, {read_fixture(m.model)}, g, d, WASINN_TARGET_GPU), WASINN_UNSUPPORTED_OPERATION);
  EXPECT_TRUE(contains(d.detail, "no external delegate is configured") || contains(d.detail, "found no device"))
      << d.detail;
}

TEST(TfliteDelegate, OptionsReachTheDelegate) {
  const std::string file = scratch_dir("delegate_options") + "/count";
  Backend b(api(), test_delegate_config("\"count_file\": \"" + file + "\", \"answer\": 42, \"fast\": true"));
  const Digits m = digits_f32();
  classify(b, {m.model, m.type, {m.x.begin(), m.x.begin() + 256}, m.row_bytes, m.out_row_bytes}, WASINN_TARGET_TPU);
  const auto text = read_file(file);
  const std::string s(text.begin(), text.end());
  EXPECT_TRUE(contains(s, "answer=42") && contains(s, "fast=true")) << s;
  EXPECT_TRUE(contains(s, "count_file=" + file)) << s;
}

struct Failure {
  const char* what;
  std::string config;
  int status;
  std::vector<std::string> words;  // each must appear in the detail
};

TEST(TfliteDelegate, EveryFailureAtLoadIsAnErrorWithItsReason) {
  const std::vector<Failure> failures = {
      {"missing library",
       delegates_config({delegate_entry("gone", "/nonexistent/libnope.so", "tpu")}),
       WASINN_INVALID_ARGUMENT,
       {"delegate \"gone\"", "/nonexistent/libnope.so", "cannot be loaded"}},
      {"not a delegate",
       delegates_config({delegate_entry("plain", kNotADelegate, "tpu")}),
       WASINN_INVALID_ARGUMENT,
       {"delegate \"plain\"", kNotADelegate, "not a TensorFlow Lite external delegate",
        "tflite_plugin_create_delegate"}},
      {"not even a library",
       // A file that exists and is text (__FILE__ is relative in a unity build).
       delegates_config({delegate_entry("text", "/etc/passwd", "tpu")}),
       WASINN_INVALID_ARGUMENT,
       {"cannot be loaded"}},
      {"create fails",
       test_delegate_config("\"fail_create\": \"true\""),
       WASINN_RUNTIME_ERROR,
       {"delegate \"test\"", kTestDelegate, "creating it failed", "refused to create (fail_create)"}},
      {"claims no node",
       test_delegate_config("\"ops\": \"add\""),
       WASINN_INVALID_ARGUMENT,
       {"delegate \"test\"", "took none of the 2 nodes"}},
      {"prepare fails",
       test_delegate_config("\"fail_prepare\": \"true\""),
       WASINN_RUNTIME_ERROR,
       {"delegate \"test\"", "Prepare failed"}},
      {"opaque-API delegate",
       test_delegate_config("\"opaque\": \"true\""),
       WASINN_RUNTIME_ERROR,
       {"opaque delegate API"}},
  };
  for (const auto& f : failures) {
    Backend b(api(), f.config);
    ASSERT_NE(b.ptr, nullptr) << f.what << ": a delegate is opened at its first load, not at start";
    for (int attempt = 0; attempt < 2; ++attempt) {  // the same answer again, nothing cached wrong
      Graph g;
      Diag d;
      EXPECT_EQ(load(b, {read_fixture("tflite/digits_f32.tflite")}, g, d, WASINN_TARGET_TPU), f.status)
          << f.what << ": " << d.detail;
      EXPECT_EQ(g.ptr, nullptr) << f.what;
      for (const auto& w : f.words) EXPECT_TRUE(contains(d.detail, w)) << f.what << ": " << d.detail;
    }
    expect_still_serving(b);
  }
  EXPECT_EQ(delegate_stats().live, 0u) << "delegates of failed loads were destroyed";
}

TEST(TfliteDelegate, ThePrepareFailureQuotesTheDelegate) {
  // The delegate's own words come through LiteRT's log (TfLiteContext::ReportError).
  Backend b(api(), test_delegate_config("\"fail_prepare\": \"true\""));
  Graph g;
  Diag d;
  EXPECT_EQ(load(b, {read_fixture("tflite/digits_f32.tflite")}, g, d, WASINN_TARGET_TPU), WASINN_RUNTIME_ERROR);
  EXPECT_TRUE(contains(d.detail, "Prepare failed on purpose (fail_prepare)")) << d.detail;
}

TEST(TfliteDelegate, AFailingInvokeIsARuntimeErrorWithItsMessage) {
  Backend b(api(), test_delegate_config("\"fail_invoke\": \"true\""));
  const Digits m = digits_f32();
  Graph g;
  Diag d;
  ASSERT_EQ(load(b, {read_fixture(m.model)}, g, d, WASINN_TARGET_TPU), WASINN_OK) << d.detail;
  Context c(api(), g.ptr);
  for (int attempt = 0; attempt < 2; ++attempt) {
    int st = 0;
    run_once(api(), c.ptr, m.type, {1, 64}, {m.x.begin(), m.x.begin() + 256}, m.type, st, d);
    EXPECT_EQ(st, WASINN_RUNTIME_ERROR);
    EXPECT_TRUE(contains(d.detail, "invoke failed on purpose (fail_invoke)")) << d.detail;
  }
  expect_still_serving(b);
}

TEST(TfliteDelegate, FallbackCpuRunsTheModelWithoutTheDelegate) {
  const Digits m = digits_f32();
  Backend cpu(api());
  const auto want = classify(cpu, m, WASINN_TARGET_CPU);
  for (const char* failing : {"\"fail_create\": \"true\"", "\"ops\": \"add\"", "\"fail_prepare\": \"true\""}) {
    // Host-side: the delegate entry says "fallback": "cpu".
    Backend b(api(), test_delegate_config(failing, ", \"fallback\": \"cpu\""));
    const uint64_t before = delegate_stats().invocations;
    EXPECT_EQ(classify(b, m, WASINN_TARGET_TPU), want) << failing;
    EXPECT_EQ(delegate_stats().invocations, before) << failing;
    // Guest-side: the load config asks for it.
    Backend g(api(), test_delegate_config(failing));
    EXPECT_EQ(classify(g, m, WASINN_TARGET_TPU, "{\"fallback\": \"cpu\"}"), want) << failing;
  }
  // A missing library falls back too.
  Backend gone(api(),
               delegates_config({delegate_entry("gone", "/nonexistent/lib.so", "tpu", "", ", \"fallback\": \"cpu\"")}));
  EXPECT_EQ(classify(gone, m, WASINN_TARGET_TPU), want);
}

TEST(TfliteDelegate, AGraphConfigPicksAConfiguredDelegateByNameOnly) {
  const std::string a = scratch_dir("pick_a") + "/count", bfile = scratch_dir("pick_b") + "/count";
  Backend b(api(), delegates_config({delegate_entry("a", kTestDelegate, "tpu", "\"count_file\": \"" + a + "\""),
                                     delegate_entry("b", kTestDelegate, "tpu", "\"count_file\": \"" + bfile + "\""),
                                     delegate_entry("g", kTestDelegate, "gpu")}));
  const Digits m = digits_f32();
  const Digits one{m.model, m.type, {m.x.begin(), m.x.begin() + 256}, m.row_bytes, m.out_row_bytes};
  classify(b, one, WASINN_TARGET_TPU, "{\"delegate\": \"b\"}");
  EXPECT_FALSE(std::filesystem::exists(a)) << "delegate a was not asked for";
  EXPECT_TRUE(std::filesystem::exists(bfile));
  // The configured GPU delegate serves target gpu.
  uint64_t before = delegate_stats().invocations;
  classify(b, one, WASINN_TARGET_GPU);
  EXPECT_EQ(delegate_stats().invocations - before, 2u);

  struct Bad {
    int32_t target;
    std::string config;
    std::vector<std::string> words;
  } bad[] = {
      {WASINN_TARGET_TPU, "{\"delegate\": \"nope\"}", {"no delegate named \"nope\"", "a -> tpu", "g -> gpu"}},
      {WASINN_TARGET_TPU, "{\"delegate\": \"g\"}", {"serves target gpu, not tpu"}},
      {WASINN_TARGET_TPU, "{\"delegate\": \"none\"}", {"cannot serve target tpu"}},
      {WASINN_TARGET_TPU, "{\"path\": \"/tmp/evil.so\"}", {"\"path\" is host configuration"}},
      {WASINN_TARGET_TPU, "{\"delegates\": []}", {"host configuration"}},
      {WASINN_TARGET_TPU, "{\"delegate\": 3}", {"\"delegate\" must be a string"}},
      {WASINN_TARGET_TPU, "{\"fallback\": \"gpu\"}", {"\"fallback\" must be one of"}},
  };
  for (const auto& x : bad) {
    Graph g;
    Diag d;
    EXPECT_EQ(load(b, {read_fixture(m.model)}, g, d, x.target, x.config), WASINN_INVALID_ARGUMENT) << x.config;
    for (const auto& w : x.words) EXPECT_TRUE(contains(d.detail, w)) << x.config << ": " << d.detail;
  }
  // "none" with target cpu or auto: no delegate.
  before = delegate_stats().invocations;
  classify(b, one, WASINN_TARGET_AUTO, "{\"delegate\": \"none\"}");
  EXPECT_EQ(delegate_stats().invocations, before);
  expect_still_serving(b);
}

TEST(TfliteDelegate, BadBackendConfigsAreRefusedAtStart) {
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"{\"delegates\": {}}", "\"delegates\" must be an array"},
      {"{\"delegates\": [{\"name\": \"x\"}]}", "\"path\" (the delegate library's file) is required"},
      {"{\"delegates\": [{\"path\": \"/x.so\", \"target\": \"npu\"}]}", "\"target\" must be one of"},
      {"{\"delegates\": [{\"path\": \"/x.so\", \"options\": {\"k\": [1]}}]}", "option \"k\" must be"},
      {"{\"delegates\": [{\"path\": \"/x.so\", \"paths\": 1}]}", "unknown tensorflowlite setting \"paths\""},
      {"{\"delegates\": [{\"path\": \"/a/libx.so\"}, {\"path\": \"/b/libx.so\"}]}", "a second delegate named \"x\""},
      {"{\"threads\": 2}", "unknown tensorflowlite setting \"threads\" (known: delegates)"},
  };
  for (const auto& [config, words] : bad) {
    wasinn_backend* ptr = nullptr;
    Diag d;
    EXPECT_EQ(api().backend_create(config.data(), config.size(), &ptr, &d), WASINN_INVALID_ARGUMENT) << config;
    EXPECT_EQ(ptr, nullptr);
    EXPECT_TRUE(contains(d.detail, words)) << config << ": " << d.detail;
  }
}

}  // namespace
}  // namespace wasinn_test
