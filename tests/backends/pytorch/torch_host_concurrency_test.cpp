// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The whole stack, not just the plugin: two guests run by one wasinn::Host on two threads share
// one preloaded graph, and their computes overlap. Wasmtime's own wasi-nn puts every call behind
// one mutex; nothing in wasinn's engine binding, ABI layer, core or plugin may.
#include <thread>

#include "guest_runner.h"
#include "host_tensor.h"
#include "wasinn/host.h"

namespace wasinn_test {
namespace {

TEST(TorchHostConcurrency, TwoGuestsComputeAtTheSameTime) {
  const std::string out = scratch_dir("host_concurrency");
  std::vector<float> values(64 * 64);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i % 13) - 6.0f;
  const HostTensor x = make_tensor<float>(WASINN_TYPE_F32, {64, 64}, values);
  write_file(out + "/x.f32", x.bytes);

  wasinn::HostOptions options;
  options.backend_dirs = {WASINN_BACKEND_DIR};
  options.backend_configs["pytorch"] = R"({"num_threads": 1})";
  options.preloads = {"probe:pytorch:cpu:" + (fixtures_dir() / "types/overlap_probe.pt").string()};
  std::string error;
  auto host = wasinn::Host::create(std::move(options), &error);
  ASSERT_NE(host, nullptr) << error;

  wasinn::RunOutcome outcomes[2];
  auto guest = [&](int k) {
    wasinn::Program p;
    p.wasm_path = std::string(WASINN_GUEST_DIR) + "/run_model.wasm";
    p.dirs = {{out, "/out"}};
    p.args = {"--name",   "probe",
              "--input",  input_arg(0, "f32", {64, 64}, "/out/x.f32"),
              "--output", "0:/out/y" + std::to_string(k),
              "--output", "1:/out/peak" + std::to_string(k),
              "--repeat", "40"};
    outcomes[k] = host->run(p);
  };
  std::thread t0(guest, 0), t1(guest, 1);
  t0.join();
  t1.join();

  int64_t peak = 0;
  for (int k = 0; k < 2; ++k) {
    ASSERT_EQ(outcomes[k].exit_code, 0) << outcomes[k].message;
    EXPECT_EQ(read_file(out + "/y" + std::to_string(k)), x.bytes);  // x times identity
    HostTensor p;
    p.bytes = read_file(out + "/peak" + std::to_string(k));
    peak = std::max(peak, p.as<int64_t>().at(0));
  }
  // The graph is shared (one preload, loaded once), so its counter saw both guests' calls.
  EXPECT_GE(peak, 2) << "the two guests' computes never overlapped";
}

}  // namespace
}  // namespace wasinn_test
