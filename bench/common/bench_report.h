// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Turns benchmark results into the Markdown table rows docs/benchmarks.md shows and a JSON
// document for tools. Plain functions over values.
#pragma once

#include <string>
#include <vector>

#include "interleaved_timing.h"

namespace wasinn::bench {

struct BenchRow {
  std::string backend;  // "onnxruntime"
  std::string model;    // "mobilenet_v2"
  int threads = 1;      // the framework's intra-op threads, the same on both sides
  Comparison result;
};

// The table's two header lines, each ending in '\n'.
std::string markdown_header();
// One table line: model, threads, medians, ratio and overhead with their 95% intervals, p90s,
// samples per side.
std::string markdown_row(const BenchRow& row);
// {"rows": [{"backend", "model", "threads", "native": {...}, "guest": {...}, "ratio",
//  "ratio_95": [low, high], "overhead_us", "overhead_us_95": [low, high]}, ...]}; times in µs.
std::string to_json(const std::vector<BenchRow>& rows);

// The time of a run as the sections of docs/benchmarks.md state it: "2026-11-24 12:57 UTC".
std::string now_utc();

// "12.34 ms" above a millisecond, else "5.67 µs".
std::string format_duration(double us);

}  // namespace wasinn::bench
