// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Contexts of one graph share its OrtSession and must compute at the same time; cancel() stops a
// running compute with WASINN_TIMEOUT and leaves the context usable.
#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>

#include "plugin_harness.h"

namespace wasinn_test {
namespace {

// Runs `rows` rows starting at `first` through ctx and returns the logits.
std::vector<float> run_digits(wasinn_context* ctx, const std::vector<float>& x, size_t first, uint32_t rows,
                              int* status) {
  const std::vector<float> batch(x.begin() + first * 64, x.begin() + (first + rows) * 64);
  Diag d;
  *status = set_input(ctx, by_index(0), WASINN_TYPE_F32, {rows, 64}, batch, d);
  if (*status == WASINN_OK) *status = api().compute(ctx, &d);
  if (*status != WASINN_OK) return {};
  wasinn_tensor t{};
  const auto id = by_index(0);
  *status = api().get_output(ctx, &id, &t, &d);
  if (*status != WASINN_OK) return {};
  const auto* p = static_cast<const float*>(t.data);
  return {p, p + t.data_length / sizeof(float)};
}

// digits' 450 rows of 64 features and its model, on one intra-op thread per run so that results
// are deterministic whatever runs beside them.
class OrtPluginConcurrency : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(x.size(), 450u * 64);
    ASSERT_NE(g.ptr, nullptr);
  }
  // `rounds` runs on each of two threads started together: run(thread, round, &status) gives the
  // logits, which must equal want(thread, round) bit for bit; no run may fail.
  template <class Run, class Want>
  static void on_two_threads(int rounds, Run run, Want want) {
    std::atomic<int> ready{0}, mismatches{0}, failures{0};
    auto worker = [&](int t) {
      ready.fetch_add(1);
      while (ready.load() < 2) std::this_thread::yield();
      for (int i = 0; i < rounds; ++i) {
        int st = 0;
        const std::vector<float> got = run(t, i, &st);
        const std::vector<float>& w = want(t, i);
        if (st != WASINN_OK)
          failures.fetch_add(1);
        else if (got.size() != w.size() || std::memcmp(got.data(), w.data(), got.size() * sizeof(float)) != 0)
          mismatches.fetch_add(1);
      }
    };
    std::thread t0(worker, 0), t1(worker, 1);
    t0.join();
    t1.join();
    EXPECT_EQ(failures.load(), 0);
    EXPECT_EQ(mismatches.load(), 0);
  }

  const std::vector<float> x = read_fixture_as<float>("digits/test_x.f32");
  TestBackend backend{R"({"intra_op_threads": 1})"};
  Graph g = load_fixture(backend, "digits/model.onnx");
};

TEST_F(OrtPluginConcurrency, TwoContextsComputeAtOnce) {
  // Reference answers, computed one at a time. Two disjoint row ranges, one per thread, so a
  // context that saw the other's inputs or outputs would give a wrong answer.
  constexpr uint32_t kRows = 25;
  std::vector<float> want[2];
  {
    TestContext ref(g.ptr);
    int st = 0;
    for (int t = 0; t < 2; ++t) {
      want[t] = run_digits(ref.ptr, x, t * 200, kRows, &st);
      ASSERT_EQ(st, WASINN_OK);
    }
  }

  TestContext ctx0(g.ptr), ctx1(g.ptr);
  wasinn_context* ctxs[2] = {ctx0.ptr, ctx1.ptr};
  on_two_threads(
      2000, [&](int t, int, int* st) { return run_digits(ctxs[t], x, t * 200, kRows, st); },
      [&](int t, int) -> const std::vector<float>& { return want[t]; });
}

// A server's guest makes a context per request: an ended context's input buffer goes to the graph's
// next context (input_buffers.h), often on the other thread. Batches of 25, 13 and 5 rows take
// turns, so kept buffers are both taken (13 rows fit 25's) and passed over (5 rows would more than
// halve one); every answer stays the one-context reference.
TEST_F(OrtPluginConcurrency, ContextPerRequestOnTwoThreads) {
  constexpr uint32_t kRows[3] = {25, 13, 5};
  std::vector<float> want[2][3];
  {
    TestContext ref(g.ptr);
    int st = 0;
    for (int t = 0; t < 2; ++t)
      for (int r = 0; r < 3; ++r) {
        want[t][r] = run_digits(ref.ptr, x, t * 200, kRows[r], &st);
        ASSERT_EQ(st, WASINN_OK);
      }
  }
  on_two_threads(
      600,
      [&](int t, int i, int* st) {
        TestContext c(g.ptr);  // a context per request
        return run_digits(c.ptr, x, t * 200, kRows[i % 3], st);
      },
      [&](int t, int i) -> const std::vector<float>& { return want[t][i % 3]; });
}

TEST_F(OrtPluginConcurrency, CancelStopsComputeWithTimeout) {
  // Mobilenet at one thread takes tens of milliseconds: long enough to be caught mid-run.
  Graph mobilenet = load_fixture(backend, "mobilenet_v2/model.onnx");
  ASSERT_NE(mobilenet.ptr, nullptr);
  const auto image = read_fixture_as<float>("mobilenet_v2/input.f32");
  TestContext c(mobilenet.ptr);
  Diag d;
  ASSERT_EQ(set_input(c.ptr, by_index(0), WASINN_TYPE_F32, {1, 3, 224, 224}, image, d), WASINN_OK) << d.detail;

  // A cancel before compute belongs to no run and must not stop the next one.
  api().cancel(c.ptr);
  ASSERT_EQ(api().compute(c.ptr, &d), WASINN_OK) << d.detail;

  // A run can end before this thread sends any cancel (descheduled for its whole length on a busy
  // machine, as a CI run once was): such a run proves nothing, so it is run again, up to 5 times; a
  // cancel that never stops a run fails all 5.
  int status = -1;
  Diag cd;
  for (int attempt = 0; attempt < 5 && status != WASINN_TIMEOUT; ++attempt) {
    std::atomic<bool> done{false};
    cd.detail.clear();
    std::thread runner([&] {
      status = api().compute(c.ptr, &cd);
      done.store(true);
    });
    // Keep cancelling until compute returns: the first cancel may land before compute clears the
    // flag left by an earlier run, which is by design.
    while (!done.load()) {
      api().cancel(c.ptr);
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    runner.join();
    ASSERT_TRUE(status == WASINN_TIMEOUT || status == WASINN_OK) << status << ": " << cd.detail;
  }
  EXPECT_EQ(status, WASINN_TIMEOUT) << cd.detail;
  EXPECT_FALSE(cd.detail.empty());

  // The context still works afterwards.
  ASSERT_EQ(api().compute(c.ptr, &d), WASINN_OK) << d.detail;
  wasinn_tensor out{};
  const auto id = by_index(0);
  ASSERT_EQ(api().get_output(c.ptr, &id, &out, &d), WASINN_OK) << d.detail;
  EXPECT_EQ(out.data_length, 1000 * sizeof(float));
}

}  // namespace
}  // namespace wasinn_test
