// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Contexts of one graph computing at the same time from several threads: results stay right,
// and the forwards really overlap (the plugin holds no lock around forward).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

#include "native_torch.h"

namespace wasinn_test {
namespace {

HostTensor digits_rows(size_t first, size_t count) {
  const auto all = read_fixture("digits/test_x.f32");
  const size_t row = 64 * sizeof(float);
  HostTensor t;
  t.type = WASINN_TYPE_F32;
  t.dims = {static_cast<uint32_t>(count), 64};
  t.bytes.assign(all.begin() + first * row, all.begin() + (first + count) * row);
  return t;
}

TEST(TorchConcurrency, TwoContextsOnTwoThreadsMatchNative) {
  native_set_threads(1);
  const std::string path = (fixtures_dir() / "digits/model.pt").string();
  const HostTensor inputs[2] = {digits_rows(0, 200), digits_rows(200, 250)};
  const HostTensor want[2] = {native_forward(path, {inputs[0]})[0], native_forward(path, {inputs[1]})[0]};
  Backend b(api());
  Graph g = load_model(b, "digits/model.pt");
  ASSERT_NE(g.ptr, nullptr);
  std::atomic<int> mismatches{0}, failures{0};
  auto worker = [&](int k) {
    Context c(api(), g.ptr);
    for (int i = 0; i < 40; ++i) {
      Diag d;
      if (set_input(c.ptr, by_index(0), inputs[k], d) != WASINN_OK || compute(c.ptr, d) != WASINN_OK) {
        ++failures;
        continue;
      }
      if (output(c.ptr, by_index(0)).bytes != want[k].bytes) ++mismatches;
    }
  };
  std::thread t0(worker, 0), t1(worker, 1);
  t0.join();
  t1.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(mismatches.load(), 0);
}

// overlap_probe.pt reports the most of its forwards ever running at once. A lock around forward
// would keep that at 1; two threads computing freely reach 2. Each call takes milliseconds, so
// even one shared core time-slices them into overlapping; on a loaded machine that may take a
// while (60 calls each once saw no overlap during the whole suite), so they try for up to 10 s.
TEST(TorchConcurrency, ForwardsOfOneGraphOverlap) {
  native_set_threads(1);
  Backend b(api());
  Graph g = load_model(b, "types/overlap_probe.pt");
  ASSERT_NE(g.ptr, nullptr);
  std::vector<float> values(64 * 64);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i % 97) - 48.5f;
  const HostTensor x = make_tensor<float>(WASINN_TYPE_F32, {64, 64}, values);
  std::atomic<int64_t> peak{0};
  std::atomic<int> failures{0}, wrong{0};
  auto worker = [&] {
    Context c(api(), g.ptr);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (peak.load() < 2 && std::chrono::steady_clock::now() < deadline) {
      Diag d;
      if (set_input(c.ptr, by_index(0), x, d) != WASINN_OK || compute(c.ptr, d) != WASINN_OK) {
        ++failures;
        continue;
      }
      if (output(c.ptr, by_index(0)).bytes != x.bytes) ++wrong;  // x times identity, 300 times
      const int64_t reported = output(c.ptr, by_index(1)).as<int64_t>().at(0);
      int64_t seen = peak.load();
      while (reported > seen && !peak.compare_exchange_weak(seen, reported)) {
      }
    }
  };
  std::thread t0(worker), t1(worker);
  t0.join();
  t1.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_GE(peak.load(), 2) << "no two forwards ever ran at the same time";
}

}  // namespace
}  // namespace wasinn_test
