// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Cancelling computes, and when the plugin pays for being cancellable. A compute runs as
// start_async + wait (which OpenVINO can cancel) when the host may cancel (WASINN_LOAD_MAY_CANCEL,
// which it sets with a compute budget; a host too old to have the flags field counts as may) or
// when the config says "cancellable": true; otherwise it is infer() on the calling thread, which
// OpenVINO's CPU plugin runs to the end whatever cancel() says. A stream of cancel() calls during
// computes tells the two paths apart by their results, not by timing: some computes end in
// TIMEOUT, or every one ends OK with native OpenVINO's answer.
#include <atomic>
#include <chrono>
#include <cstddef>
#include <thread>

#include "ov_test_support.h"

namespace wasinn_test {
namespace {

const std::string kMobilenet = "mobilenet_v2/openvino/model";
// One inference thread: a mobilenet compute then takes 15-25 ms here, far longer than the 2 ms
// between cancels.
const std::string kOneThread = R"({"inference_precision":"f32","cache_dir":"","num_threads":1})";
constexpr int kComputes = 20;

const std::vector<float>& mobilenet_input() {
  static const auto x = read_fixture_as<float>("mobilenet_v2/input.f32");
  return x;
}

const std::vector<float>& native_answer() {
  static const auto want = [] {
    auto native = native_compile(fixture_path(kMobilenet + ".xml"), 1);
    return native_run(native, {1, 3, 224, 224}, mobilenet_input().data());
  }();
  return want;
}

Graph load_mobilenet(Backend& b, uint32_t flags, const std::string& graph_config = "") {
  LoadArgs a = model_args("openvino", {read_fixture(kMobilenet + ".xml"), read_fixture(kMobilenet + ".bin")});
  a.flags = flags;
  a.config = graph_config;
  Graph g;
  Diag d;
  EXPECT_EQ(load(b, a, g, d), WASINN_OK) << d.detail;
  return g;
}

struct CancelStorm {
  int ok = 0, cancelled = 0, other = 0;
  int wrong_answers = 0;  // computes that returned OK with outputs other than native's
  std::string detail;     // of the last failure that was not a cancel
};

// kComputes computes on one context while another thread calls cancel() every 2 ms, then one
// more compute without cancels, which must succeed with the native answer (a cancel leaves the
// context usable).
CancelStorm compute_under_cancels(wasinn_graph* g) {
  CancelStorm r;
  Context c(api(), g);
  Diag d;
  const auto& x = mobilenet_input();
  EXPECT_EQ(set_input_of(c.ptr, by_index(0), WASINN_TYPE_F32, {1, 3, 224, 224}, x.data(), x.size(), d), WASINN_OK)
      << d.detail;
  std::atomic<bool> stop{false};
  std::thread canceller([&] {
    while (!stop.load()) {
      api().cancel(c.ptr);
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  });
  for (int i = 0; i < kComputes; ++i) {
    const int st = api().compute(c.ptr, &d);
    if (st == WASINN_OK) {
      ++r.ok;
      r.wrong_answers += output_as<float>(c.ptr, by_index(0), WASINN_TYPE_F32) != native_answer();
    } else if (st == WASINN_TIMEOUT) {
      ++r.cancelled;
    } else {
      ++r.other;
      r.detail = d.detail;
    }
  }
  stop = true;
  canceller.join();
  EXPECT_EQ(api().compute(c.ptr, &d), WASINN_OK) << d.detail;
  EXPECT_EQ(output_as<float>(c.ptr, by_index(0), WASINN_TYPE_F32), native_answer());
  return r;
}

void expect_cancellable(const CancelStorm& r) {
  EXPECT_EQ(r.other, 0) << r.detail;
  EXPECT_EQ(r.wrong_answers, 0);
  EXPECT_GT(r.cancelled, 0) << "no compute was cancelled: the plugin ran them synchronously";
  ::testing::Test::RecordProperty("computes_ok", r.ok);
  ::testing::Test::RecordProperty("computes_cancelled", r.cancelled);
}

void expect_synchronous(const CancelStorm& r) {
  EXPECT_EQ(r.other, 0) << r.detail;
  EXPECT_EQ(r.cancelled, 0) << "a compute was cancelled: the plugin ran it asynchronously";
  EXPECT_EQ(r.ok, kComputes);
  EXPECT_EQ(r.wrong_answers, 0);
}

// As the host loads when it has a compute budget (and as the harness loads by default).
TEST(OvCancel, HostThatMayCancelGetsCancellableComputes) {
  Backend b(api(), kOneThread);
  Graph g = load_mobilenet(b, WASINN_LOAD_MAY_CANCEL);
  ASSERT_NE(g.ptr, nullptr);
  expect_cancellable(compute_under_cancels(g.ptr));
}

// No compute budget: the host never cancels, so the plugin saves the hand-off; a cancel() it
// gets anyway changes nothing.
TEST(OvCancel, WithoutMayCancelComputesRunToTheEnd) {
  Backend b(api(), kOneThread);
  Graph g = load_mobilenet(b, 0);
  ASSERT_NE(g.ptr, nullptr);
  expect_synchronous(compute_under_cancels(g.ptr));
}

TEST(OvCancel, GraphConfigCancellableTrueWinsOverTheHost) {
  Backend b(api(), kOneThread);
  Graph g = load_mobilenet(b, 0, R"({"cancellable": true})");
  ASSERT_NE(g.ptr, nullptr);
  expect_cancellable(compute_under_cancels(g.ptr));
}

TEST(OvCancel, BackendConfigCancellableFalseWinsOverTheHost) {
  Backend b(api(), R"({"inference_precision":"f32","cache_dir":"","num_threads":1,"cancellable":false})");
  Graph g = load_mobilenet(b, WASINN_LOAD_MAY_CANCEL);
  ASSERT_NE(g.ptr, nullptr);
  expect_synchronous(compute_under_cancels(g.ptr));
}

// A host built before the flags field passes a shorter struct: it may cancel, so computes must
// stay cancellable for it.
TEST(OvCancel, HostWithoutTheFlagsFieldGetsCancellableComputes) {
  Backend b(api(), kOneThread);
  const auto xml = read_fixture(kMobilenet + ".xml"), bin = read_fixture(kMobilenet + ".bin");
  const wasinn_bytes builders[] = {{xml.data(), xml.size()}, {bin.data(), bin.size()}};
  wasinn_load_request req{};
  req.struct_size = offsetof(wasinn_load_request, flags);
  req.encoding = "openvino";
  req.target = WASINN_TARGET_CPU;
  req.builders = builders;
  req.builder_count = 2;
  req.flags = 0;  // beyond struct_size: the plugin must not read it
  Graph g;
  g.api = &api();
  Diag d;
  ASSERT_EQ(api().graph_load(b.ptr, &req, &g.ptr, &d), WASINN_OK) << d.detail;
  expect_cancellable(compute_under_cancels(g.ptr));
}

}  // namespace
}  // namespace wasinn_test
