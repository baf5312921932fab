// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "interleaved_timing.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>

namespace wasinn::bench {

namespace {

using Clock = std::chrono::steady_clock;

// Runs `step` `count` times, appending each per-inference time in microseconds to `times`.
bool run_block(const Step& step, size_t count, uint32_t calls, std::vector<double>& times, std::string* error) {
  for (size_t i = 0; i < count; ++i) {
    const auto t0 = Clock::now();
    if (!step(error)) return false;
    const auto t1 = Clock::now();
    times.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / calls);
  }
  return true;
}

// The value below which `fraction` of the sorted samples lie (nearest rank).
double percentile(const std::vector<double>& sorted, double fraction) {
  const size_t rank = static_cast<size_t>(std::ceil(fraction * sorted.size()));
  return sorted[std::clamp<size_t>(rank, 1, sorted.size()) - 1];
}

double median_in_place(std::vector<double>& v) {
  const size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + mid, v.end());
  if (v.size() % 2) return v[mid];
  const double upper = v[mid];
  return (*std::max_element(v.begin(), v.begin() + mid) + upper) / 2;
}

// Percentile bootstrap over rounds: draw whole rounds with replacement (each holds `block`
// samples of both sides, taken back to back), take the medians' ratio and difference, and keep
// the middle 95%. Resampling rounds rather than single samples keeps the pairing in time, so a
// load change on the machine widens the interval instead of hiding in it. Fixed seed: the same
// samples always give the same interval.
void bootstrap(const std::vector<double>& native, const std::vector<double>& guest, size_t block, Comparison* out) {
  constexpr int kResamples = 400;
  const size_t rounds = native.size() / block;
  std::mt19937_64 rng(0x5eed);
  std::uniform_int_distribution<size_t> pick(0, rounds - 1);
  std::vector<double> a, b, ratios, diffs;
  a.reserve(native.size());
  b.reserve(guest.size());
  for (int r = 0; r < kResamples; ++r) {
    a.clear();
    b.clear();
    for (size_t i = 0; i < rounds; ++i) {
      const size_t k = pick(rng) * block;
      a.insert(a.end(), native.begin() + k, native.begin() + k + block);
      b.insert(b.end(), guest.begin() + k, guest.begin() + k + block);
    }
    const double ma = median_in_place(a), mb = median_in_place(b);
    ratios.push_back(mb / ma);
    diffs.push_back(mb - ma);
  }
  std::sort(ratios.begin(), ratios.end());
  std::sort(diffs.begin(), diffs.end());
  out->ratio_95 = {percentile(ratios, 0.025), percentile(ratios, 0.975)};
  out->overhead_95 = {percentile(diffs, 0.025), percentile(diffs, 0.975)};
}

}  // namespace

SideStats summarize(std::vector<double>& times) {
  SideStats s;
  s.samples = times.size();
  if (times.empty()) return s;
  std::sort(times.begin(), times.end());
  const size_t n = times.size();
  s.median_us = n % 2 ? times[n / 2] : (times[n / 2 - 1] + times[n / 2]) / 2;
  s.p90_us = percentile(times, 0.9);
  s.min_us = times.front();
  return s;
}

bool compare_interleaved(const TimingPlan& plan, const Step& native, const Step& guest, Comparison* out,
                         std::string* error) {
  const uint32_t calls = std::max<uint32_t>(plan.calls_per_sample, 1);
  std::vector<double> warm_native, warm_guest;
  for (size_t i = 0; i < std::max<size_t>(plan.warmup_samples, 1); ++i) {
    if (!run_block(native, 1, calls, warm_native, error)) return false;
    if (!run_block(guest, 1, calls, warm_guest, error)) return false;
  }
  // Size blocks by the slower side's typical sample, so both get the same number of samples.
  const double sample_us = std::max(summarize(warm_native).median_us, summarize(warm_guest).median_us) * calls;
  const double sample_s = std::max(sample_us, 0.01) * 1e-6;
  const size_t block = std::max<size_t>(1, static_cast<size_t>(plan.block_seconds / sample_s));
  size_t wanted = static_cast<size_t>(plan.seconds_per_side / sample_s);
  wanted = std::clamp(wanted, plan.min_samples, std::max(plan.min_samples, plan.max_samples));
  const size_t rounds = std::max<size_t>(1, (wanted + block - 1) / block);

  std::vector<double> t_native, t_guest;
  t_native.reserve(rounds * block);
  t_guest.reserve(rounds * block);
  for (size_t r = 0; r < rounds; ++r) {
    // Alternating who goes first keeps a side from always inheriting the other's cache state.
    const bool native_first = r % 2 == 0;
    if (!run_block(native_first ? native : guest, block, calls, native_first ? t_native : t_guest, error)) return false;
    if (!run_block(native_first ? guest : native, block, calls, native_first ? t_guest : t_native, error)) return false;
  }
  bootstrap(t_native, t_guest, block, out);
  out->native = summarize(t_native);
  out->guest = summarize(t_guest);
  return true;
}

}  // namespace wasinn::bench
