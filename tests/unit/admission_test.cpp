// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Admission: the one policy both servers admit requests by (serve/admission.h): places, a
// bounded queue, refusals counted, a place passed to the oldest waiter, withdrawal, the drain.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "serve/admission.h"

namespace wasinn::unit {
namespace {

using Entry = Admission::Entry;

TEST(Admission, AdmitsUpToWorkersThenQueuesUpToMaxQueueThenRefuses) {
  Admission a(2, 1);
  EXPECT_EQ(a.enter([](bool) {}), Entry::admitted);
  EXPECT_EQ(a.enter([](bool) {}), Entry::admitted);
  EXPECT_EQ(a.enter([](bool) {}), Entry::queued);
  EXPECT_EQ(a.enter([](bool) {}), Entry::refused);
  const Admission::Gauges g = a.gauges();
  EXPECT_EQ(g.holding, 2u);
  EXPECT_EQ(g.queued, 1u);
  EXPECT_EQ(g.refused, 1u);
}

TEST(Admission, NoQueueMeansRefusedWhenEveryWorkerIsBusy) {
  Admission a(1, 0);
  EXPECT_EQ(a.enter([](bool) {}), Entry::admitted);
  EXPECT_EQ(a.enter([](bool) {}), Entry::refused);
}

TEST(Admission, APlaceGivenBackGoesToTheOldestWaiter) {
  Admission a(1, 3);
  std::vector<int> order;
  ASSERT_EQ(a.enter([](bool) {}), Entry::admitted);
  for (int i = 1; i <= 3; ++i)
    ASSERT_EQ(a.enter([&order, i](bool admitted) { order.push_back(admitted ? i : -i); }), Entry::queued);
  a.leave();
  EXPECT_EQ(order, (std::vector<int>{1}));
  EXPECT_EQ(a.gauges().holding, 1u);  // the place passed, not freed
  EXPECT_EQ(a.gauges().queued, 2u);
  a.leave();
  a.leave();
  EXPECT_EQ(order, (std::vector<int>{1, 2, 3}));
  a.leave();
  EXPECT_EQ(a.gauges().holding, 0u);
  // A free place and no waiter: the next request is admitted at once.
  EXPECT_EQ(a.enter([](bool) {}), Entry::admitted);
}

TEST(Admission, AWithdrawnWaiterIsNeverGrantedAndFreesItsQueueSlot) {
  Admission a(1, 1);
  bool granted = false;
  uint64_t ticket = 0;
  ASSERT_EQ(a.enter([](bool) {}), Entry::admitted);
  ASSERT_EQ(a.enter([&](bool) { granted = true; }, &ticket), Entry::queued);
  EXPECT_TRUE(a.withdraw(ticket));
  EXPECT_FALSE(a.withdraw(ticket));  // once
  EXPECT_EQ(a.gauges().queued, 0u);
  a.leave();
  EXPECT_FALSE(granted);
  EXPECT_EQ(a.gauges().holding, 0u);
}

TEST(Admission, WithdrawAfterTheGrantSaysSo) {
  Admission a(1, 1);
  uint64_t ticket = 0;
  ASSERT_EQ(a.enter([](bool) {}), Entry::admitted);
  ASSERT_EQ(a.enter([](bool) {}, &ticket), Entry::queued);
  a.leave();
  EXPECT_FALSE(a.withdraw(ticket));  // the waiter holds the place: it must give it back itself
  EXPECT_EQ(a.gauges().holding, 1u);
}

TEST(Admission, CloseEndsEveryWaitAndRefusesFromThenOn) {
  Admission a(1, 4);
  int ended = 0;
  ASSERT_EQ(a.enter([](bool) {}), Entry::admitted);
  for (int i = 0; i < 3; ++i) ASSERT_EQ(a.enter([&](bool admitted) { ended += admitted ? 100 : 1; }), Entry::queued);
  a.close();
  EXPECT_EQ(ended, 3);
  EXPECT_EQ(a.enter([](bool) {}), Entry::refused);
  a.leave();  // the holder finishing after the close grants nothing
  EXPECT_EQ(ended, 3);
}

TEST(Admission, APausedHolderLetsAWaiterInAndResumesPastWorkers) {
  Admission a(1, 1);
  bool granted = false;
  ASSERT_EQ(a.enter([](bool) {}), Entry::admitted);
  ASSERT_EQ(a.enter([&](bool admitted) { granted = admitted; }), Entry::queued);
  a.pause();  // waits for another's batch: its place goes to the waiter
  EXPECT_TRUE(granted);
  a.resume();  // back to hand over its answer: two hold one worker's places for that while
  EXPECT_EQ(a.gauges().holding, 2u);
  a.leave();
  a.leave();
  EXPECT_EQ(a.gauges().holding, 0u);
}

TEST(Admission, ResizeLetsWaitersInOldestFirstAndBoundsFromThenOn) {
  Admission a(1, 4);
  std::vector<int> order;
  ASSERT_EQ(a.enter([](bool) {}), Entry::admitted);
  for (int i = 1; i <= 3; ++i)
    ASSERT_EQ(a.enter([&order, i](bool admitted) { order.push_back(admitted ? i : -i); }), Entry::queued);
  a.resize(3);  // two more places: the two oldest waiters get them
  EXPECT_EQ(order, (std::vector<int>{1, 2}));
  EXPECT_EQ(a.gauges().holding, 3u);
  EXPECT_EQ(a.gauges().queued, 1u);
  a.resize(1);  // fewer: nobody is put out, but a place given back goes to nobody until below 1
  a.leave();
  EXPECT_EQ(order, (std::vector<int>{1, 2}));
  a.leave();
  a.leave();
  EXPECT_EQ(order, (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(a.gauges().holding, 1u);
  EXPECT_EQ(a.enter([](bool) {}), Entry::queued);
}

TEST(Admission, ManyThreadsNeverHoldMoreThanWorkersAndEveryRequestEnds) {
  constexpr size_t kWorkers = 3;
  Admission a(kWorkers, 1000);
  std::atomic<int> holding{0}, most{0}, done{0};
  auto work = [&] {
    const int now = ++holding;
    for (int seen = most.load(); now > seen && !most.compare_exchange_weak(seen, now);) {
    }
    --holding;
    ++done;
    a.leave();
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 100; ++i)
        if (a.enter([&](bool admitted) {
              if (admitted) work();
            }) == Entry::admitted)
          work();
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(done.load(), 800);
  EXPECT_LE(most.load(), static_cast<int>(kWorkers));
  EXPECT_EQ(a.gauges().holding, 0u);
  EXPECT_EQ(a.gauges().refused, 0u);
}

}  // namespace
}  // namespace wasinn::unit
