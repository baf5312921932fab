// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Interleaved timing of a native and a guest version of the same work, so that the noise of a
// shared machine lands on both sides alike: after warm-up, the two sides take turns running
// blocks of samples (which side goes first alternates per round), every sample is timed with
// std::chrono::steady_clock, and each side is summarised by its median and 90th percentile.
// A percentile bootstrap over the rounds gives 95% intervals for the ratio and difference of
// the medians, so a reader can tell a real gap from noise.
//
// Plain functions and values; nothing is shared between calls. The steps run on the calling
// thread, which must be the only one driving them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace wasinn::bench {

// One sample's work; returns false and sets *error when it fails (the timing stops).
using Step = std::function<bool(std::string* error)>;

struct TimingPlan {
  double seconds_per_side = 3.0;  // time budget of the timed samples, per side
  double block_seconds = 0.05;    // how long one side runs before the other takes its turn
  size_t min_samples = 40;        // per side, whatever the budget says
  size_t max_samples = 100000;    // per side
  size_t warmup_samples = 5;      // per side, untimed (ORT allocates arenas on first runs)
  uint32_t calls_per_sample = 1;  // inferences one step performs; times are per inference
};

struct SideStats {
  double median_us = 0;
  double p90_us = 0;
  double min_us = 0;
  size_t samples = 0;
};

struct Interval {
  double low = 0;
  double high = 0;
};

struct Comparison {
  SideStats native;
  SideStats guest;
  Interval ratio_95;     // bootstrap 95% interval of ratio(), resampling whole rounds
  Interval overhead_95;  // bootstrap 95% interval of overhead_us(), likewise
  double ratio() const { return guest.median_us / native.median_us; }        // guest / native
  double overhead_us() const { return guest.median_us - native.median_us; }  // guest - native
};

// Runs the plan. The block size and round count come from the slower side's warm-up times.
bool compare_interleaved(const TimingPlan& plan, const Step& native, const Step& guest, Comparison* out,
                         std::string* error);

// Median, p90 and min of per-inference times (microseconds); `times` is reordered.
SideStats summarize(std::vector<double>& times);

}  // namespace wasinn::bench
