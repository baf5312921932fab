// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// HandleTable: handles count up from 0, are never reused, respect the live limit, and say in
// their error whether a handle was never created or already released.
#include <algorithm>
#include <set>
#include <thread>
#include <vector>

#include "core/handle_table.h"
#include "support/abi_fixture.h"

namespace wasinn::unit {
namespace {

TEST(HandleTable, CountsUpFromZero) {
  HandleTable<int> table("graph", 10, "--max-graphs");
  for (uint32_t expected = 0; expected < 5; ++expected) {
    auto h = table.insert(std::make_shared<int>(static_cast<int>(expected)));
    ASSERT_TRUE(h.ok());
    EXPECT_EQ(*h, expected);
  }
  auto v = table.get(0);
  ASSERT_TRUE(v.ok()) << "handle 0 is a valid handle";
  EXPECT_EQ(**v, 0);
  EXPECT_EQ(table.size(), 5u);
}

TEST(HandleTable, NeverReusesAReleasedHandle) {
  HandleTable<int> table("graph", 10, "--max-graphs");
  ASSERT_EQ(*table.insert(std::make_shared<int>(0)), 0u);
  ASSERT_EQ(*table.insert(std::make_shared<int>(1)), 1u);
  ASSERT_TRUE(table.erase(0).ok());
  ASSERT_TRUE(table.erase(1).ok());
  auto h = table.insert(std::make_shared<int>(2));
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(*h, 2u);
  EXPECT_TRUE(has_errno(table.get(0), 1, "graph handle 0 was already released"));
}

TEST(HandleTable, MissingHandleDetailSaysWhy) {
  HandleTable<int> table("execution context", 10, "--max-contexts");
  ASSERT_TRUE(table.insert(std::make_shared<int>(1)).ok());
  ASSERT_TRUE(table.erase(0).ok());
  EXPECT_TRUE(has_errno(table.get(0), 1, "execution context handle 0 was already released"));
  EXPECT_TRUE(has_errno(table.get(1), 1, "execution context handle 1 was never created"));
  EXPECT_TRUE(has_errno(table.get(UINT32_MAX), 1, "handle 4294967295 was never created"));
  EXPECT_TRUE(has_errno(table.erase(0), 1, "was already released"));
  EXPECT_TRUE(has_errno(table.erase(7), 1, "was never created"));
}

TEST(HandleTable, EraseHandsBackTheObject) {
  HandleTable<int> table("graph", 10, "--max-graphs");
  auto obj = std::make_shared<int>(42);
  ASSERT_TRUE(table.insert(obj).ok());
  EXPECT_EQ(obj.use_count(), 2);
  auto erased = table.erase(0);
  ASSERT_TRUE(erased.ok());
  EXPECT_EQ(**erased, 42);
  erased = Error{Errc::unknown, ""};
  EXPECT_EQ(obj.use_count(), 1) << "the table keeps no reference after erase";
}

TEST(HandleTable, LiveLimit) {
  HandleTable<int> graphs("graph", 2, "--max-graphs");
  ASSERT_TRUE(graphs.insert(std::make_shared<int>(0)).ok());
  ASSERT_TRUE(graphs.insert(std::make_shared<int>(1)).ok());
  auto obj = std::make_shared<int>(2);
  EXPECT_TRUE(has_errno(graphs.insert(obj), 7, "too many live graphs: the limit is 2 (see --max-graphs)"));
  EXPECT_EQ(obj.use_count(), 1) << "a refused object is not kept";
  ASSERT_TRUE(graphs.erase(0).ok());
  auto h = graphs.insert(obj);
  ASSERT_TRUE(h.ok()) << "the limit counts live handles, not handles ever made";
  EXPECT_EQ(*h, 2u);

  HandleTable<int> contexts("execution context", 0, "--max-contexts");
  EXPECT_TRUE(has_errno(contexts.insert(std::make_shared<int>(0)), 7,
                        "too many live execution contexts: the limit is 0 (see --max-contexts)"));
}

TEST(HandleTable, ConcurrentInsertsGetDistinctHandles) {
  HandleTable<int> table("graph", 100000, "--max-graphs");
  constexpr int kThreads = 4, kEach = 2000;
  std::vector<std::vector<uint32_t>> got(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i) {
        auto h = table.insert(std::make_shared<int>(i));
        if (h.ok()) got[t].push_back(*h);
        if (i % 3 == 0 && h.ok()) (void)table.erase(*h);  // churn: erases must not free a number
      }
    });
  }
  for (auto& th : threads) th.join();
  std::set<uint32_t> all;
  for (const auto& v : got) {
    EXPECT_EQ(v.size(), static_cast<size_t>(kEach));
    all.insert(v.begin(), v.end());
  }
  EXPECT_EQ(all.size(), static_cast<size_t>(kThreads * kEach));
  EXPECT_EQ(*all.begin(), 0u);
  EXPECT_EQ(*all.rbegin(), static_cast<uint32_t>(kThreads * kEach - 1));
}

}  // namespace
}  // namespace wasinn::unit
