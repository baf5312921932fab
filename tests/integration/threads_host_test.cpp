// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// wasi-threads guests through the embedding API (include/wasinn/host.h): the handles of one
// guest are not visible to another guest running at the same time in the same Host.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "test_env.h"
#include "wasinn/host.h"

namespace wasinn_it {
namespace {

TEST(ThreadsHost, OneGuestsHandlesAreInvisibleToAnotherGuestRunningAtTheSameTime) {
  wasinn::HostOptions options;
  options.backend_dirs = {backend_dir().string()};
  std::string error;
  auto host = wasinn::Host::create(options, &error);
  ASSERT_TRUE(host) << error;

  wasinn::Program holder;  // loads graph 0 and computes with it on 4 threads for a while
  holder.wasm_path = guest("threads_nn");
  holder.args = {"parallel", "4", "/d/model.onnx", "/d/test_x.f32", "/d/test_y.u8"};
  holder.dirs = {{fixture("digits").string(), "/d"}};
  wasinn::Program intruder;  // uses graph handle 0 without loading it
  intruder.wasm_path = guest("threads_nn");
  intruder.args = {"foreign", "100"};

  std::atomic<bool> holder_done{false};
  int holder_exit = -1;
  std::thread t([&] {
    holder_exit = host->run(holder).exit_code;
    holder_done = true;
  });
  int intruder_runs = 0;
  while (!holder_done) {
    const auto r = host->run(intruder);
    ASSERT_EQ(r.exit_code, 0) << r.message;
    ++intruder_runs;
  }
  t.join();
  EXPECT_EQ(holder_exit, 0);
  EXPECT_GT(intruder_runs, 0);
}

}  // namespace
}  // namespace wasinn_it
