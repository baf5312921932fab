// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Contexts of one graph used from several threads at once (the plugin ABI allows it): each
// context owns its interpreter, so every thread must get exactly the single-threaded answers.
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "plugin_harness.h"

namespace wasinn_test {
namespace {

TEST(TfliteConcurrency, ContextsOfOneGraphRunInParallel) {
  const auto& api = plugin_api("tensorflowlite");
  Backend b(api);
  Graph g;
  Diag d;
  ASSERT_EQ(load(b, model_args("tensorflowlite", {read_fixture("tflite/digits_f32.tflite")}), g, d), WASINN_OK)
      << d.detail;
  const auto x = read_fixture("digits/test_x.f32");
  const size_t rows = 100;

  auto classify = [&](size_t first, std::vector<uint8_t>& out) {
    Context c(api, g.ptr);
    Diag cd;
    for (size_t i = first; i < first + rows; ++i) {
      const std::vector<uint8_t> row(x.begin() + static_cast<std::ptrdiff_t>(i * 256),
                                     x.begin() + static_cast<std::ptrdiff_t>(i * 256 + 256));
      if (set_input(api, c.ptr, by_index(0), WASINN_TYPE_F32, {1, 64}, row, cd) != WASINN_OK ||
          api.compute(c.ptr, &cd) != WASINN_OK) {
        ADD_FAILURE() << cd.detail;
        return;
      }
      const auto o = output_bytes(api, c.ptr, by_index(0), WASINN_TYPE_F32);
      out.insert(out.end(), o.begin(), o.end());
    }
  };
  std::vector<uint8_t> serial_a, serial_b, parallel_a, parallel_b;
  classify(0, serial_a);
  classify(rows, serial_b);
  std::thread ta([&] { classify(0, parallel_a); });
  std::thread tb([&] { classify(rows, parallel_b); });
  ta.join();
  tb.join();
  EXPECT_EQ(parallel_a, serial_a);
  EXPECT_EQ(parallel_b, serial_b);
  EXPECT_EQ(serial_a.size(), rows * 40);
}

}  // namespace
}  // namespace wasinn_test
