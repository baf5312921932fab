// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// tflite_delegate_timing: what an external delegate costs, measured through the plugin table as
// the host drives it. For each model: the median time to create a backend and load the model,
// and the median time of one set_input + compute + get_output, on the CPU path (XNNPACK) and
// with the test delegate as the NPU; for the delegate, also the part spent outside its kernels
// (the plugin, LiteRT and the interpreter dispatching to it), which is the cost of the route.
//
//   tflite_delegate_timing [SECONDS_PER_ROW]     (default 2)
// Not a test: it asserts nothing and prints a Markdown table for docs/backends/tensorflow.md.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "delegate_test_support.h"

namespace wasinn_test {
namespace {

using Clock = std::chrono::steady_clock;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

struct Case {
  const char* name;
  std::string model;
  int32_t type;
  std::vector<uint32_t> dims;
  std::vector<uint8_t> input;
};

struct Row {
  double load_ms, infer_us, outside_kernels_us;
  uint64_t nodes_per_infer;
};

Row measure(const Case& c, const std::string& config, int32_t target, double seconds) {
  const auto& api = plugin_api("tensorflowlite");
  const auto model = read_fixture(c.model);
  std::vector<double> loads;
  for (int i = 0; i < 15; ++i) {
    const auto t0 = Clock::now();
    Backend b(api, config);
    Graph g;
    Diag d;
    if (load(b, {model}, g, d, target) != WASINN_OK) {
      std::fprintf(stderr, "load failed: %s\n", d.detail.c_str());
      std::exit(1);
    }
    Context ctx(api, g.ptr);  // the first context takes the compiled model made at load
    loads.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
  }
  Backend b(api, config);
  Graph g;
  Diag d;
  load(b, {model}, g, d, target);
  Context ctx(api, g.ptr);
  std::vector<double> times, outside;
  const auto end = Clock::now() + std::chrono::duration<double>(seconds);
  uint64_t nodes = 0;
  for (int warm = 0; Clock::now() < end || times.size() < 50; ++warm) {
    const DelegateStats s0 = delegate_stats();
    const auto t0 = Clock::now();
    int st = 0;
    run_once(api, ctx.ptr, c.type, c.dims, c.input, c.type, st, d);
    const double us = std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
    const DelegateStats s1 = delegate_stats();
    if (st != WASINN_OK) {
      std::fprintf(stderr, "compute failed: %s\n", d.detail.c_str());
      std::exit(1);
    }
    if (warm < 20) continue;
    times.push_back(us);
    outside.push_back(us - static_cast<double>(s1.kernel_ns - s0.kernel_ns) / 1000.0);
    nodes = s1.invocations - s0.invocations;
  }
  return {median(loads), median(times), median(outside), nodes};
}

}  // namespace
}  // namespace wasinn_test

int main(int argc, char** argv) {
  using namespace wasinn_test;
  const double seconds = argc > 1 ? std::atof(argv[1]) : 2.0;
  const auto x = read_fixture("digits/test_x.f32");
  const auto q = read_fixture("tflite/digits_int8_input.i8");
  const std::vector<Case> cases = {
      {"digits (f32, 2 FC)", "tflite/digits_f32.tflite", WASINN_TYPE_F32, {1, 64}, {x.begin(), x.begin() + 256}},
      {"digits_int8 (2 FC)", "tflite/digits_int8.tflite", WASINN_TYPE_I8, {1, 64}, {q.begin(), q.begin() + 64}},
      {"mobilenet_v2 (10 ADD + 1 FC on the delegate)",
       "tflite/mobilenet_v2.tflite",
       WASINN_TYPE_F32,
       {1, 224, 224, 3},
       read_fixture("tflite/mobilenet_v2_input.f32")},
  };
  std::printf(
      "| model | path | load (median) | per inference (median) | outside the delegate's kernels | delegate node runs "
      "per inference |\n");
  std::printf("|---|---|---:|---:|---:|---:|\n");
  for (const auto& c : cases) {
    const Row cpu = measure(c, "", WASINN_TARGET_CPU, seconds);
    const Row npu = measure(c, test_delegate_config(), WASINN_TARGET_TPU, seconds);
    std::printf("| %s | CPU (XNNPACK) | %.2f ms | %.2f µs | - | 0 |\n", c.name, cpu.load_ms, cpu.infer_us);
    std::printf("| %s | test delegate as tpu | %.2f ms | %.2f µs | %.2f µs | %llu |\n", c.name, npu.load_ms,
                npu.infer_us, npu.outside_kernels_us, static_cast<unsigned long long>(npu.nodes_per_infer));
    std::fflush(stdout);
  }
  return 0;
}
