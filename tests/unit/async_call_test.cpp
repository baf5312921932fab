// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// wasinn:nn-async's calls on a session (core/async_call.h, issue 54): a cancelled call's context
// makes the next caller wait instead of answering busy, a cancel that lands before the compute
// starts is not lost, and closing the session waits for the step in the framework. The fake's
// "fake:block" gate forgets a cancel from before its wait, as real backends do.
#include <atomic>
#include <chrono>
#include <future>
#include <thread>

#include "support/abi_fixture.h"

namespace wasinn::unit {
namespace {

class AsyncCallTest : public AbiTest {
 protected:
  void TearDown() override {
    FakePlugin::main().open_gate();  // never leave a worker stuck if an assertion failed early
    if (worker_.joinable()) worker_.join();
    AbiTest::TearDown();
  }
  uint32_t blocked_context() {
    const uint32_t ctx = context_on("fake:block");
    EXPECT_TRUE(has_errno(set_f32(ctx, {1, 4}, {1, 2, 3, 4}), 0));
    return ctx;
  }
  // compute(ctx) as a step of `call` on another thread; its outcome in the returned future.
  std::future<Status> compute_async(AsyncCall& call, uint32_t ctx) {
    auto done = std::make_shared<std::promise<Status>>();
    auto result = done->get_future();
    worker_ = std::thread([this, &call, ctx, done] {
      NnSession::AsyncScope step(*session_, call);
      done->set_value(session_->compute(ctx));
    });
    return result;
  }
  void cancel_as(AsyncCall& call, uint32_t ctx) {
    NnSession::AsyncScope step(*session_, call);
    ASSERT_TRUE(session_->cancel(ctx).ok());
  }
  std::thread worker_;
};

TEST_F(AsyncCallTest, TheCallAfterACancelWaitsForItInsteadOfBusy) {
  const uint32_t ctx = blocked_context();
  auto call = *session_->begin_async_call();
  auto computed = compute_async(*call, ctx);
  ASSERT_TRUE(FakePlugin::main().wait_blocked(1));
  EXPECT_TRUE(has_errno(set_f32(ctx, {1, 4}, {0, 0, 0, 0}), 4, "in use")) << "a running compute: busy";
  cancel_as(*call, ctx);
  EXPECT_TRUE(has_errno(set_f32(ctx, {1, 4}, {0, 0, 0, 0}), 0)) << "a cancelled one: waited for";
  const Status s = computed.get();
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, Errc::timeout);
}

TEST_F(AsyncCallTest, ACancelBeforeTheComputeStartsIsNotLost) {
  const uint32_t ctx = blocked_context();
  auto call = *session_->begin_async_call();
  cancel_as(*call, ctx);  // nothing runs yet: the call itself is marked
  NnSession::AsyncScope step(*session_, *call);
  const Status s = session_->compute(ctx);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, Errc::timeout);
  EXPECT_EQ(stats().blocked_now, 0) << "the backend never started it";
}

TEST_F(AsyncCallTest, ACancelRacingTheComputesStartLands) {
  const uint32_t ctx = blocked_context();
  for (int round = 0; round < 200; ++round) {
    auto call = *session_->begin_async_call();
    auto computed = compute_async(*call, ctx);
    if (round % 2) std::this_thread::yield();
    cancel_as(*call, ctx);
    // A cancel the gate forgot is repeated (ComputeWatchdog::hurry) until the compute returns.
    ASSERT_EQ(computed.wait_for(std::chrono::seconds(5)), std::future_status::ready) << "round " << round;
    worker_.join();
    EXPECT_EQ(computed.get().error().code, Errc::timeout) << "round " << round;
  }
}

TEST_F(AsyncCallTest, CloseWaitsForTheStepInTheFrameworkAndFreesTheContexts) {
  const uint32_t ctx = blocked_context();
  auto call = *session_->begin_async_call();
  auto computed = compute_async(*call, ctx);
  ASSERT_TRUE(FakePlugin::main().wait_blocked(1));
  session_->close_async_calls();
  EXPECT_EQ(computed.wait_for(std::chrono::seconds(0)), std::future_status::ready) << "close returned after it";
  EXPECT_EQ(computed.get().error().code, Errc::timeout);
  EXPECT_EQ(session_->live_contexts(), 0u);
  EXPECT_EQ(stats().live_contexts, 0) << "freed on the closing thread";
  EXPECT_FALSE(session_->begin_async_call().ok()) << "no call starts on a closed session";
  NnSession::AsyncScope late(*session_, *call);
  EXPECT_FALSE(late.entered());
}

}  // namespace
}  // namespace wasinn::unit
