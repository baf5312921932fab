// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The cost the metrics add per compute: exactly what NnSession::run_bounded does around a
// compute (two steady_clock reads, GraphMetrics::count_compute), with 1 to 4 threads on one
// series. The other hooks (a set_input's or an output copy's bytes, a context's gauge) are one
// relaxed atomic add each.
#include <benchmark/benchmark.h>

#include <chrono>

#include "core/nn_metrics.h"

namespace {

wasinn::GraphMetrics& shared_series() {
  static wasinn::GraphMetrics series("bench", "graph");
  return series;
}

void BM_RecordCompute(benchmark::State& state) {
  wasinn::GraphMetrics& series = shared_series();
  const wasinn::Status ok;
  for (auto _ : state) {
    const auto started = std::chrono::steady_clock::now();
    series.count_compute(ok, std::chrono::steady_clock::now() - started);
  }
}
BENCHMARK(BM_RecordCompute)->Threads(1)->Threads(2)->Threads(4)->UseRealTime();

// The two clock reads alone, to tell them from the recording.
void BM_ClockReads(benchmark::State& state) {
  for (auto _ : state) {
    const auto started = std::chrono::steady_clock::now();
    benchmark::DoNotOptimize(std::chrono::steady_clock::now() - started);
  }
}
BENCHMARK(BM_ClockReads);

}  // namespace
