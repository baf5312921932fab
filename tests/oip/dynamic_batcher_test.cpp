// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// DynamicBatcher (src/serve/oip/dynamic_batcher): which requests may share a compute, how their
// rows are concatenated along dimension 0 and split back, max_batch_size, errors reaching every
// request of a batch, leaving the queue, and many threads at once. The compute is a fake that
// records what it was given, so no backend is needed.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "serve/oip/dynamic_batcher.h"

namespace {

using namespace wasinn;
using oip_server::BatchExecution;
using oip_server::BatchingOptions;
using oip_server::DynamicBatcher;

// One request's input: `rows` rows of `width` floats, row r holding first + r in every column.
struct Rows {
  std::vector<uint32_t> dims;
  std::vector<float> values;
  Rows(uint32_t rows, uint32_t width, float first) : dims{rows, width} {
    for (uint32_t r = 0; r < rows; ++r)
      for (uint32_t c = 0; c < width; ++c) values.push_back(first + static_cast<float>(r));
  }
  std::span<const uint8_t> bytes() const {
    return {reinterpret_cast<const uint8_t*>(values.data()), values.size() * sizeof(float)};
  }
  NamedInput input(std::string_view name) const { return {name, TensorView{TensorType::f32, dims, bytes()}}; }
};

std::vector<float> floats(const OwnedTensor& t) {
  std::vector<float> out(t.data.size() / sizeof(float));
  std::memcpy(out.data(), t.data.data(), t.data.size());
  return out;
}

// y = x + 1 and z = w (the inputs as they arrive), and what each compute was given.
struct FakeModel {
  std::mutex mu;
  std::vector<std::vector<uint32_t>> computed_dims;  // x's dims per compute
  std::vector<BatchExecution> executions;
  std::atomic<bool> fail{false}, unsplittable{false};

  DynamicBatcher make(BatchingOptions options) {
    return DynamicBatcher(
        options,
        [this](std::span<const NamedInput> inputs) -> Result<std::vector<NamedTensor>> {
          if (fail) return make_error(Errc::runtime_error, "the backend failed");
          std::vector<NamedTensor> out;
          for (const auto& in : inputs) {
            OwnedTensor t{in.tensor.type,
                          {in.tensor.dims.begin(), in.tensor.dims.end()},
                          {in.tensor.data.begin(), in.tensor.data.end()}};
            if (in.name == "x") {
              std::lock_guard lock(mu);
              computed_dims.push_back(t.dims);
              for (size_t i = 0; i < t.data.size(); i += 4) {
                float v;
                std::memcpy(&v, &t.data[i], 4);
                v += 1;
                std::memcpy(&t.data[i], &v, 4);
              }
              out.push_back({"y", std::move(t)});
            } else {
              out.push_back({"z", std::move(t)});
            }
          }
          if (unsplittable) out.push_back({"scalar", OwnedTensor{TensorType::f32, {}, {0, 0, 0, 0}}});
          return out;
        },
        [this](const BatchExecution& e) {
          std::lock_guard lock(mu);
          executions.push_back(e);
        });
  }
};

const NamedTensor& output(const std::vector<NamedTensor>& outs, const std::string& name) {
  for (const auto& t : outs)
    if (t.name == name) return t;
  throw std::runtime_error("no output " + name);
}

TEST(DynamicBatcher, JoinsOnlyWhatCanShareACompute) {
  FakeModel model;
  auto batcher = model.make({4, 0, 64});
  const Rows one(1, 4, 0), three(3, 4, 0), five(5, 4, 0), wide(1, 32, 0);
  std::vector<uint32_t> scalar_dims;
  const float scalar = 1;
  const NamedInput rank0{
      "x", TensorView{TensorType::f32, scalar_dims, {reinterpret_cast<const uint8_t*>(&scalar), sizeof scalar}}};
  EXPECT_FALSE(batcher.join({}));                    // no input
  EXPECT_FALSE(batcher.join(std::span(&rank0, 1)));  // rank 0: no batch dimension
  const NamedInput mixed[] = {one.input("x"), three.input("w")};
  EXPECT_FALSE(batcher.join(mixed));  // rows differ between inputs
  const NamedInput too_many = five.input("x");
  EXPECT_FALSE(batcher.join(std::span(&too_many, 1)));  // 5 rows > max_batch_size 4
  const NamedInput too_big = wide.input("x");
  EXPECT_FALSE(batcher.join(std::span(&too_big, 1)));  // 128 bytes > max_input_bytes 64
  NamedInput short_data = three.input("x");
  short_data.tensor.data = short_data.tensor.data.first(8);
  EXPECT_FALSE(batcher.join(std::span(&short_data, 1)));  // bytes do not fill the shape
  EXPECT_EQ(batcher.queued(), 0u);
  const NamedInput fits = three.input("x");
  auto ticket = batcher.join(std::span(&fits, 1));
  EXPECT_TRUE(ticket);
  EXPECT_EQ(batcher.queued(), 1u);
  ticket = {};  // dropped before a worker took it: it leaves the queue
  EXPECT_EQ(batcher.queued(), 0u);
  EXPECT_TRUE(model.computed_dims.empty());
  EXPECT_FALSE(DynamicBatcher({0, 0, 0}, nullptr, nullptr).join(std::span(&fits, 1)));  // batching off
}

TEST(DynamicBatcher, ConcatenatesAlongDimensionZeroAndSplitsBack) {
  FakeModel model;
  auto batcher = model.make({16, 0, 0});
  // Three requests of 1, 2 and 3 rows, two inputs each, given in either order.
  const Rows x1(1, 4, 10), x2(2, 4, 20), x3(3, 4, 30);
  const Rows w1(1, 2, 100), w2(2, 2, 200), w3(3, 2, 300);
  const NamedInput in1[] = {x1.input("x"), w1.input("w")};
  const NamedInput in2[] = {w2.input("w"), x2.input("x")};
  const NamedInput in3[] = {x3.input("x"), w3.input("w")};
  auto t1 = batcher.join(in1), t2 = batcher.join(in2), t3 = batcher.join(in3);
  ASSERT_TRUE(t1 && t2 && t3);
  auto r2 = batcher.take(t2);  // any of them gathers all three
  ASSERT_TRUE(r2) << r2.error().detail;
  auto r1 = batcher.take(t1), r3 = batcher.take(t3);
  ASSERT_TRUE(r1 && r3);
  ASSERT_EQ(model.computed_dims.size(), 1u);
  EXPECT_EQ(model.computed_dims[0], (std::vector<uint32_t>{6, 4}));
  ASSERT_EQ(model.executions.size(), 1u);
  EXPECT_EQ(model.executions[0].rows, 6u);
  EXPECT_EQ(model.executions[0].requests, 3u);
  EXPECT_TRUE(model.executions[0].ok);
  EXPECT_EQ(r3->execution.rows, 6u);
  const std::pair<Result<oip_server::BatchedOutputs>*, const Rows*> each[] = {{&r1, &x1}, {&r2, &x2}, {&r3, &x3}};
  for (const auto& [r, x] : each) {
    const auto& y = output((*r)->tensors, "y").tensor;
    EXPECT_EQ(y.dims, x->dims);
    std::vector<float> want = x->values;
    for (float& v : want) v += 1;
    EXPECT_EQ(floats(y), want);
    EXPECT_EQ(output((*r)->tensors, "z").tensor.dims[0], x->dims[0]);
  }
  EXPECT_EQ(floats(output(r3->tensors, "z").tensor), w3.values);
  EXPECT_FALSE(batcher.take(t1));  // taken already: the ticket is empty
}

TEST(DynamicBatcher, ComputesDifferentShapesAndDatatypesApart) {
  FakeModel model;
  auto batcher = model.make({16, 0, 0});
  const Rows a(1, 4, 0), b(1, 8, 0), c(2, 4, 0);
  NamedInput as_int = c.input("x");
  as_int.tensor.type = TensorType::i32;
  const NamedInput ia = a.input("x"), ib = b.input("x"), other = a.input("v");
  auto ta = batcher.join(std::span(&ia, 1)), tb = batcher.join(std::span(&ib, 1));
  auto tc = batcher.join(std::span(&as_int, 1)), td = batcher.join(std::span(&other, 1));
  for (auto* t : {&ta, &tb, &tc, &td}) EXPECT_TRUE(batcher.take(*t));
  EXPECT_EQ(model.executions.size(), 4u);  // width, datatype and name each make a kind of its own
}

TEST(DynamicBatcher, KeepsToMaxBatchSize) {
  FakeModel model;
  auto batcher = model.make({2, 0, 0});
  const Rows r(1, 4, 0);
  const NamedInput in = r.input("x");
  std::vector<DynamicBatcher::Ticket> tickets;
  for (int i = 0; i < 5; ++i) tickets.push_back(batcher.join(std::span(&in, 1)));
  for (auto& t : tickets) ASSERT_TRUE(batcher.take(t));
  ASSERT_EQ(model.computed_dims.size(), 3u);  // 2 + 2 + 1 rows
  EXPECT_EQ(model.computed_dims[0][0], 2u);
  EXPECT_EQ(model.computed_dims[2][0], 1u);
}

TEST(DynamicBatcher, GivesEveryRequestOfABatchItsError) {
  FakeModel model;
  auto batcher = model.make({8, 0, 0});
  const Rows r(1, 4, 0);
  const NamedInput in = r.input("x");
  model.fail = true;
  auto t1 = batcher.join(std::span(&in, 1)), t2 = batcher.join(std::span(&in, 1));
  auto r1 = batcher.take(t1), r2 = batcher.take(t2);
  ASSERT_FALSE(r1);
  ASSERT_FALSE(r2);
  EXPECT_EQ(r2.error().detail, "the backend failed");
  model.fail = false;
  model.unsplittable = true;  // an output without the batch's rows in dimension 0
  t1 = batcher.join(std::span(&in, 1));
  t2 = batcher.join(std::span(&in, 1));
  r1 = batcher.take(t1);
  r2 = batcher.take(t2);
  ASSERT_FALSE(r1);
  ASSERT_FALSE(r2);
  EXPECT_NE(r1.error().detail.find("cannot be split"), std::string::npos) << r1.error().detail;
  EXPECT_EQ(model.executions.size(), 2u);
  EXPECT_FALSE(model.executions[1].ok);
}

TEST(DynamicBatcher, WaitsUpToTheDelayForMoreRows) {
  FakeModel model;
  auto batcher = model.make({2, 200'000, 0});  // 200 ms, or 2 rows
  const Rows r(1, 4, 0);
  const NamedInput in = r.input("x");
  auto first = batcher.join(std::span(&in, 1));
  std::thread late([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    auto second = batcher.join(std::span(&in, 1));
    EXPECT_TRUE(batcher.take(second));
  });
  const auto started = std::chrono::steady_clock::now();
  EXPECT_TRUE(batcher.take(first));
  late.join();
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::milliseconds(190));  // full before the delay
  ASSERT_EQ(model.computed_dims.size(), 1u);
  EXPECT_EQ(model.computed_dims[0][0], 2u);
}

TEST(DynamicBatcher, ManyThreadsShareFewerComputes) {
  FakeModel model;
  auto batcher = model.make({64, 20'000, 0});
  constexpr int kRequests = 64;
  std::vector<Rows> rows;
  for (int i = 0; i < kRequests; ++i) rows.emplace_back(1 + i % 3, 4, static_cast<float>(i * 10));
  std::atomic<int> right{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < kRequests; ++i)
    threads.emplace_back([&, i] {
      const NamedInput in = rows[i].input("x");
      auto t = batcher.join(std::span(&in, 1));
      auto r = batcher.take(t);
      if (!r) return;
      std::vector<float> want = rows[i].values;
      for (float& v : want) v += 1;
      if (floats(output(r->tensors, "y").tensor) == want) ++right;
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(right.load(), kRequests);
  EXPECT_LT(model.executions.size(), static_cast<size_t>(kRequests));
  uint64_t total = 0;
  for (const auto& e : model.executions) {
    EXPECT_LE(e.rows, 64u);
    total += e.requests;
  }
  EXPECT_EQ(total, static_cast<uint64_t>(kRequests));
  EXPECT_EQ(batcher.queued(), 0u);
}

// Counts what take() tells the worker pool of the thread it runs on.
struct CountingListener : oip_server::WaitListener {
  std::atomic<int> waits{0}, resumes{0};
  void waiting() override { ++waits; }
  void resumed() override { ++resumes; }
};

TEST(DynamicBatcher, TellsThePoolWhileWaitingForAnotherWorkersBatch) {
  // Two requests in one batch, computed by the first's thread: the second's thread, with
  // nothing left to gather, tells its pool it waits (so the pool may run another job) and
  // that it is back once its rows are done. The first's thread computes, so it tells nothing.
  FakeModel model;
  std::atomic<bool> release{false}, computing{false};
  DynamicBatcher batcher(
      {8, 0, 0},
      [&](std::span<const NamedInput> inputs) -> Result<std::vector<NamedTensor>> {
        computing = true;
        while (!release) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        const auto& in = inputs[0].tensor;
        return std::vector<NamedTensor>{
            {"y", OwnedTensor{in.type, {in.dims.begin(), in.dims.end()}, {in.data.begin(), in.data.end()}}}};
      },
      nullptr);
  const Rows r(1, 4, 3);
  const NamedInput in = r.input("x");
  auto first = batcher.join(std::span(&in, 1));
  auto second = batcher.join(std::span(&in, 1));
  CountingListener first_pool, second_pool;
  std::thread gatherer([&] {
    oip_server::set_thread_wait_listener(&first_pool);
    EXPECT_TRUE(batcher.take(first));
    oip_server::set_thread_wait_listener(nullptr);
  });
  while (!computing) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  std::thread waiter([&] {
    oip_server::set_thread_wait_listener(&second_pool);
    auto got = batcher.take(second);
    ASSERT_TRUE(got);
    EXPECT_EQ(got->execution.rows, 2u);
    oip_server::set_thread_wait_listener(nullptr);
  });
  while (second_pool.waits == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_EQ(second_pool.resumes.load(), 0);  // still waiting: the batch has not been computed
  release = true;
  gatherer.join();
  waiter.join();
  EXPECT_EQ(second_pool.waits.load(), 1);
  EXPECT_EQ(second_pool.resumes.load(), 1);
  EXPECT_EQ(first_pool.waits.load(), 0);
}

TEST(DynamicBatcher, DroppedTicketsLeaveOrWaitForTheirBatch) {
  // Half the requests are refused by the pool after joining (their ticket is dropped untaken)
  // while the other half gather and compute: nobody waits forever, nothing is left queued.
  FakeModel model;
  auto batcher = model.make({8, 2'000, 0});
  const Rows r(1, 4, 5);
  std::atomic<int> right{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 32; ++i)
    threads.emplace_back([&, i] {
      const NamedInput in = r.input("x");
      auto t = batcher.join(std::span(&in, 1));
      if (i % 2) {
        std::this_thread::sleep_for(std::chrono::microseconds(100 * (i % 5)));
        t = {};
        return;
      }
      if (auto got = batcher.take(t); got && floats(output(got->tensors, "y").tensor) == std::vector<float>(4, 6.f))
        ++right;
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(right.load(), 16);
  EXPECT_EQ(batcher.queued(), 0u);
  uint64_t computed = 0;
  for (const auto& e : model.executions) computed += e.requests;
  EXPECT_GE(computed, 16u);
  EXPECT_LE(computed, 32u);
}

}  // namespace
