// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Many contexts of one graph: interleaved on one thread and concurrent on several, each with its
// own infer request on the shared compiled model; concurrent loads on one backend. Cancelling is
// in ov_cancel_test.cpp.
#include <atomic>
#include <thread>

#include "ov_test_support.h"

namespace wasinn_test {
namespace {

// Native logits for digits rows [first, first + batch), the reference every context must match.
std::vector<float> reference(const std::vector<float>& x, uint32_t first, uint32_t batch) {
  static auto native = native_compile(fixture_path("digits/openvino/model.xml"));
  return native_run(native, {batch, 64}, x.data() + first * 64);
}

TEST(OvConcurrency, InterleavedContextsKeepTheirOwnInputs) {
  Backend b(api(), kF32);
  Graph g = load_ir(b, "digits/openvino/model");
  const auto x = read_fixture_as<float>("digits/test_x.f32");
  Context c1(api(), g.ptr), c2(api(), g.ptr);
  Diag d;
  ASSERT_EQ(set_input_of(c1.ptr, by_index(0), WASINN_TYPE_F32, {5, 64}, x.data(), 5 * 64, d), WASINN_OK);
  ASSERT_EQ(set_input_of(c2.ptr, by_index(0), WASINN_TYPE_F32, {3, 64}, x.data() + 100 * 64, 3 * 64, d), WASINN_OK);
  ASSERT_EQ(api().compute(c2.ptr, &d), WASINN_OK) << d.detail;
  ASSERT_EQ(api().compute(c1.ptr, &d), WASINN_OK) << d.detail;
  EXPECT_EQ(output_as<float>(c1.ptr, by_index(0), WASINN_TYPE_F32), reference(x, 0, 5));
  EXPECT_EQ(output_as<float>(c2.ptr, by_index(0), WASINN_TYPE_F32), reference(x, 100, 3));
  // c2's view stays valid while c1 computes again.
  wasinn_tensor view{};
  const auto id0 = by_index(0);
  ASSERT_EQ(api().get_output(c2.ptr, &id0, &view, &d), WASINN_OK);
  ASSERT_EQ(api().compute(c1.ptr, &d), WASINN_OK);
  const auto want = reference(x, 100, 3);
  ASSERT_EQ(view.data_length, want.size() * sizeof(float));
  EXPECT_EQ(std::memcmp(view.data, want.data(), view.data_length), 0);
}

TEST(OvConcurrency, ContextsOnThreadsMatchReference) {
  Backend b(api(), kF32);
  Graph g = load_ir(b, "digits/openvino/model");
  const auto x = read_fixture_as<float>("digits/test_x.f32");
  constexpr int kThreads = 4, kRounds = 50;
  std::vector<std::vector<float>> want;
  for (int t = 0; t < kThreads; ++t) want.push_back(reference(x, 20 * t, 1 + t));
  std::atomic<int> mismatches{0}, failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      Context c(api(), g.ptr);
      Diag d;
      const uint32_t batch = 1 + t;
      for (int r = 0; r < kRounds; ++r) {
        if (set_input_of(c.ptr, by_index(0), WASINN_TYPE_F32, {batch, 64}, x.data() + 20 * t * 64, batch * 64, d) ||
            api().compute(c.ptr, &d)) {
          ++failures;
          return;
        }
        wasinn_tensor out{};
        const auto id0 = by_index(0);
        if (api().get_output(c.ptr, &id0, &out, &d) || out.data_length != want[t].size() * 4 ||
            std::memcmp(out.data, want[t].data(), out.data_length) != 0)
          ++mismatches;
      }
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(mismatches.load(), 0);
}

TEST(OvConcurrency, ConcurrentLoadsOnOneBackend) {
  Backend b(api(), kF32);
  const auto xml = read_fixture("digits/openvino/model.xml"), bin = read_fixture("digits/openvino/model.bin");
  std::atomic<int> ok{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 3; ++t)
    threads.emplace_back([&] {
      Graph g;
      Diag d;
      if (load_bytes(b, {xml, bin}, g, d) == WASINN_OK && g.ptr) ++ok;
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(ok.load(), 3);
}

}  // namespace
}  // namespace wasinn_test
