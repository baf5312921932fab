// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Threads of one guest: a context in use answers busy (4) to a second thread at once,
// distinct contexts compute at the same time, and releasing handles during a compute is safe.
// Blocking uses the fake's "fake:block" gate, so nothing here depends on timing luck.
#include <atomic>
#include <chrono>
#include <set>
#include <thread>

#include "support/abi_fixture.h"

namespace wasinn::unit {
namespace {

class AbiConcurrency : public AbiTest {
 protected:
  void TearDown() override {
    FakePlugin::main().open_gate();  // never leave a worker stuck if an assertion failed early
    for (auto& t : workers_) t.join();
    AbiTest::TearDown();
  }
  // Starts compute(ctx) on another thread; its errno lands in *result.
  void compute_in_background(uint32_t ctx, std::atomic<int32_t>* result) {
    workers_.emplace_back([this, ctx, result] { result->store(nn::errno_of(nn::compute(call(), ctx))); });
  }
  void join_all() {
    for (auto& t : workers_) t.join();
    workers_.clear();
  }
  uint32_t blocked_context() {
    const uint32_t ctx = context_on("fake:block");
    EXPECT_TRUE(has_errno(set_f32(ctx, {1, 4}, {1, 2, 3, 4}), 0));
    return ctx;
  }
  std::vector<std::thread> workers_;
};

TEST_F(AbiConcurrency, SecondThreadGetsBusy) {
  const uint32_t ctx = blocked_context();
  std::atomic<int32_t> first{-1};
  compute_in_background(ctx, &first);
  ASSERT_TRUE(FakePlugin::main().wait_blocked(1));

  const uint32_t tensor = guest_.f32_tensor({1, 4}, {0, 0, 0, 0});
  const uint32_t buf = guest_.buffer(64), written = guest_.out_u32();
  const char* busy = "execution context is in use by another thread";
  EXPECT_TRUE(has_errno(nn::set_input(call(), ctx, 0, tensor), 4, busy));
  EXPECT_TRUE(has_errno(nn::compute(call(), ctx), 4, busy));
  EXPECT_TRUE(has_errno(nn::get_output(call(), ctx, 0, buf, 64, written), 4, busy));
  EXPECT_TRUE(has_errno(nn::compute_single(call(), ctx), 4, busy));
  EXPECT_TRUE(has_errno(nn::get_output_single(call(), ctx, 0, buf, 64, written), 4, busy));
  EXPECT_TRUE(has_errno(nn::fini_single(call(), ctx), 4, busy));
  EXPECT_EQ(guest_.u32_at(written), kSentinel);

  FakePlugin::main().open_gate();
  join_all();
  EXPECT_EQ(first.load(), 0);
  auto o = get_output(ctx, 0, 16);
  ASSERT_TRUE(has_errno(o.status, 0)) << "the context is free again";
  EXPECT_EQ(guest_.f32s_at(o.buffer, 4), (std::vector<float>{2, 3, 4, 5})) << "the busy set_input changed nothing";
}

TEST_F(AbiConcurrency, DistinctContextsComputeAtTheSameTime) {
  const uint32_t a = blocked_context();
  const uint32_t b = new_context(0);  // same graph as a
  ASSERT_TRUE(has_errno(set_f32(b, {1}, {10}), 0));
  const uint32_t c = blocked_context();  // another graph
  ASSERT_TRUE(has_errno(set_f32(c, {1}, {20}), 0));
  std::atomic<int32_t> ra{-1}, rb{-1}, rc{-1};
  compute_in_background(a, &ra);
  compute_in_background(b, &rb);
  compute_in_background(c, &rc);
  EXPECT_TRUE(FakePlugin::main().wait_blocked(3)) << "three computes are inside the backend at once";
  FakePlugin::main().open_gate();
  join_all();
  EXPECT_EQ(ra.load(), 0);
  EXPECT_EQ(rb.load(), 0);
  EXPECT_EQ(rc.load(), 0);
  EXPECT_EQ(guest_.f32s_at(get_output(b, 0, 4).buffer, 1), std::vector<float>{11});
  EXPECT_EQ(guest_.f32s_at(get_output(c, 0, 4).buffer, 1), std::vector<float>{21});
}

TEST_F(AbiConcurrency, FinalizeAndUnloadDuringACompute) {
  const uint32_t ctx = blocked_context();
  std::atomic<int32_t> result{-1};
  compute_in_background(ctx, &result);
  ASSERT_TRUE(FakePlugin::main().wait_blocked(1));
  EXPECT_TRUE(has_errno(nn::finalize_execution_context(call(), ctx), 0));
  EXPECT_TRUE(has_errno(nn::unload(call(), 0), 0));
  EXPECT_TRUE(has_errno(nn::compute(call(), ctx), 1, "was already released")) << "the handle is gone at once";
  EXPECT_EQ(stats().live_contexts, 1) << "but the object lives until its compute returns";
  EXPECT_EQ(stats().live_graphs, 1);
  FakePlugin::main().open_gate();
  join_all();
  EXPECT_EQ(result.load(), 0);
  EXPECT_EQ(stats().live_contexts, 0);
  EXPECT_EQ(stats().live_graphs, 0);
}

TEST_F(AbiConcurrency, ComputeBudgetCancelsAStuckCompute) {
  Limits limits;
  limits.max_compute_ms = 50;
  start(limits);
  const uint32_t ctx = blocked_context();
  // No one opens the gate: only the watchdog's cancel can end this compute.
  EXPECT_TRUE(has_errno(nn::compute(call(), ctx), 5, "compute exceeded its budget of 50 ms and was stopped"));
  const uint32_t quick = context_on("fake:add1");
  ASSERT_TRUE(has_errno(set_f32(quick, {1}, {1}), 0));
  EXPECT_TRUE(has_errno(nn::compute(call(), quick), 0)) << "a compute within budget is untouched";
  EXPECT_TRUE(has_errno(set_f32(ctx, {1}, {1}), 0)) << "the stopped context is free and usable again";
}

// wasinn serve's --request-timeout for a 0.2 request: the session's deadline stops a compute that
// has no max_compute_ms budget, and no compute starts once it has passed.
TEST_F(AbiConcurrency, RequestDeadlineCancelsAStuckCompute) {
  const uint32_t ctx = blocked_context();
  session_->set_deadline(std::chrono::steady_clock::now() + std::chrono::milliseconds(50));
  EXPECT_TRUE(has_errno(nn::compute(call(), ctx), 5, "compute ran past the request's deadline and was stopped"));
  EXPECT_TRUE(has_errno(nn::compute(call(), ctx), 5, "the request's deadline has passed"));
}

// The deadline bounds set_input too: none starts once it has passed, and one that ends past it
// (a backend's set_input no cancel reaches) is refused rather than taken as if in time.
TEST_F(AbiConcurrency, RequestDeadlineBoundsSetInput) {
  const uint32_t slow = context_on("fake:slow_input:300");
  session_->set_deadline(std::chrono::steady_clock::now() + std::chrono::milliseconds(100));
  EXPECT_TRUE(has_errno(set_f32(slow, {1}, {1}), 5, "set_input of input 0 ran past the request's deadline"));
  EXPECT_TRUE(has_errno(set_f32(slow, {1}, {1}), 5, "the request's deadline has passed; no set_input starts"));
  const uint32_t quick = context_on("fake:add1");
  EXPECT_TRUE(has_errno(set_f32(quick, {1}, {1}), 5, "no set_input starts after it"));
}

TEST_F(AbiConcurrency, ContendedContextOnlyEverSaysOkOrBusy) {
  const uint32_t ctx = context_on("fake:add1");
  const uint32_t tensor = guest_.f32_tensor({1, 4}, {1, 2, 3, 4});
  constexpr int kThreads = 4, kRounds = 300;
  std::vector<uint32_t> bufs, writtens;
  for (int t = 0; t < kThreads; ++t) {
    bufs.push_back(guest_.buffer(16));
    writtens.push_back(guest_.out_u32());
  }
  std::atomic<int> ok{0}, busy{0}, no_output{0}, other{0};
  for (int t = 0; t < kThreads; ++t) {
    workers_.emplace_back([&, t] {
      for (int i = 0; i < kRounds; ++i) {
        for (int32_t e : {nn::errno_of(nn::set_input(call(), ctx, 0, tensor)), nn::errno_of(nn::compute(call(), ctx)),
                          nn::errno_of(nn::get_output(call(), ctx, 0, bufs[t], 16, writtens[t]))}) {
          if (e == 0)
            ++ok;
          else if (e == 4)
            ++busy;
          // Another thread's set_input came between compute and get_output: no outputs yet, invalid_argument.
          else if (e == 1)
            ++no_output;
          else
            ++other;
        }
      }
    });
  }
  join_all();
  EXPECT_EQ(other.load(), 0);
  EXPECT_GT(ok.load(), 0);
  EXPECT_EQ(ok.load() + busy.load() + no_output.load(), kThreads * kRounds * 3);
  for (uint32_t buf : bufs) {
    const auto got = guest_.f32s_at(buf, 4);
    EXPECT_TRUE(got == (std::vector<float>{2, 3, 4, 5}) || guest_.bytes_at(buf, 16) == std::vector<uint8_t>(16, 0xEE))
        << "each buffer holds a whole output or nothing";
  }
}

TEST_F(AbiConcurrency, ConcurrentLoadsGetDistinctHandles) {
  const uint32_t arr = guest_.builders({"fake:add1"});
  constexpr int kThreads = 4, kEach = 50;
  std::vector<std::vector<uint32_t>> handles(kThreads);
  std::vector<uint32_t> outs;
  for (int t = 0; t < kThreads; ++t) outs.push_back(guest_.out_u32());
  std::atomic<int> failures{0};
  for (int t = 0; t < kThreads; ++t) {
    workers_.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i) {
        if (!nn::load(call(), arr, 1, 1, 0, outs[t]).ok()) ++failures;
        handles[t].push_back(guest_.u32_at(outs[t]));
      }
    });
  }
  join_all();
  EXPECT_EQ(failures.load(), 0);
  std::set<uint32_t> all;
  for (const auto& h : handles) all.insert(h.begin(), h.end());
  EXPECT_EQ(all.size(), static_cast<size_t>(kThreads * kEach));
  EXPECT_EQ(*all.rbegin(), static_cast<uint32_t>(kThreads * kEach - 1));
  EXPECT_EQ(stats().live_graphs, 1) << "one model's bytes: one graph behind every handle";
}

}  // namespace
}  // namespace wasinn::unit
