// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "soak_meter.h"

#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <fstream>

namespace wasinn_soak {

namespace {

uint64_t now_ns() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

}  // namespace

void hold_malloc_thresholds() {
  mallopt(M_MMAP_THRESHOLD, 128 * 1024);
  mallopt(M_TRIM_THRESHOLD, 128 * 1024);
}

uint64_t resident_kib() {
  std::ifstream statm("/proc/self/statm");
  uint64_t size_pages = 0, resident_pages = 0;
  if (!(statm >> size_pages >> resident_pages)) return 0;
  return resident_pages * static_cast<uint64_t>(sysconf(_SC_PAGESIZE)) / 1024;
}

uint64_t open_fds() {
  std::error_code ec;
  uint64_t n = 0;
  for (auto it = std::filesystem::directory_iterator("/proc/self/fd", ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec))
    ++n;
  return n > 0 ? n - 1 : 0;  // the iterator's own descriptor
}

uint64_t thread_count() {
  std::ifstream status("/proc/self/status");
  std::string key;
  uint64_t value = 0;
  while (status >> key) {
    if (key == "Threads:" && status >> value) return value;
    status.ignore(1 << 20, '\n');
  }
  return 0;
}

SoakMeter::SoakMeter(std::string label, uint64_t total_cycles, double warmup_percent, std::FILE* trace)
    : label_(std::move(label)),
      total_cycles_(total_cycles),
      warmup_cycles_(static_cast<uint64_t>(std::ceil(total_cycles * warmup_percent / 100.0))),
      trace_(trace),
      start_ns_(now_ns()) {
  next_progress_ = std::max<uint64_t>(1, total_cycles_ / 10);
}

double SoakMeter::elapsed() const { return (now_ns() - start_ns_) / 1e9; }

void SoakMeter::record(uint64_t cycles_done) {
  const Sample s{cycles_done, resident_kib(), elapsed(), open_fds(), thread_count()};
  samples_.push_back(s);
  if (trace_) std::fprintf(trace_, "%" PRIu64 ",%" PRIu64 ",%.3f\n", s.cycles, s.rss_kib, s.seconds);
  if (cycles_done >= next_progress_ || cycles_done == total_cycles_) {
    std::printf("[soak %s] %" PRIu64 "/%" PRIu64 " cycles, RSS %" PRIu64 " KiB, %.1f s, %.1f cycles/s\n",
                label_.c_str(), cycles_done, total_cycles_, s.rss_kib, s.seconds,
                s.seconds > 0 ? cycles_done / s.seconds : 0.0);
    std::fflush(stdout);
    while (next_progress_ <= cycles_done) next_progress_ += std::max<uint64_t>(1, total_cycles_ / 10);
  }
}

SoakFigures SoakMeter::figures() const {
  SoakFigures f;
  if (samples_.empty()) return f;
  // The first sample at or past the warm-up is the baseline.
  auto warm =
      std::find_if(samples_.begin(), samples_.end(), [&](const Sample& s) { return s.cycles >= warmup_cycles_; });
  if (warm == samples_.end()) warm = samples_.end() - 1;
  const Sample& last = samples_.back();
  f.cycles = last.cycles;
  f.warmup_cycles = warm->cycles;
  // The baseline is the highest RSS seen up to the warm-up's end: RSS moves in steps either way
  // (arenas, framework caches), and a dip at the one sample that ends the warm-up read as growth
  // (llama.cpp's quick soak under -j2: 46.1 MB at cycle 10, 42.6 at 20, 46.0 at 40). A leak
  // still grows past every earlier level.
  for (auto it = samples_.begin(); it != warm + 1; ++it) f.warmup_rss_kib = std::max(f.warmup_rss_kib, it->rss_kib);
  f.final_rss_kib = last.rss_kib;
  for (auto it = warm; it != samples_.end(); ++it) f.peak_rss_kib = std::max(f.peak_rss_kib, it->rss_kib);
  // The end level is the lowest sample of the run's last quarter after the warm-up (at least the
  // last two samples): a leak raises every later sample, while a step that comes and goes does
  // not stay (llama.cpp's quick soak: 84.0 MB at cycle 120, 88.7 at 160, 84.7 at 180; one CI run
  // ended on such a step, +3.3% with no leak).
  const uint64_t tail_from = last.cycles - (last.cycles - warm->cycles) / 4;
  auto tail = std::find_if(warm + 1, samples_.end(), [&](const Sample& s) { return s.cycles >= tail_from; });
  if (samples_.end() - tail < 2 && samples_.end() - (warm + 1) >= 2) tail = samples_.end() - 2;
  if (tail == samples_.end()) tail = warm;  // no sample after the warm-up
  const auto settled =
      std::min_element(tail, samples_.end(), [](const Sample& a, const Sample& b) { return a.rss_kib < b.rss_kib; });
  f.settled_rss_kib = settled->rss_kib;
  f.settled_cycles = settled->cycles;
  f.growth_kib = static_cast<int64_t>(f.settled_rss_kib) - static_cast<int64_t>(f.warmup_rss_kib);
  f.growth_percent = f.warmup_rss_kib ? 100.0 * f.growth_kib / f.warmup_rss_kib : 0;
  if (f.settled_cycles > warm->cycles) f.bytes_per_cycle = 1024.0 * f.growth_kib / (f.settled_cycles - warm->cycles);
  f.cycles_per_second = last.seconds > 0 ? last.cycles / last.seconds : 0;
  f.warmup_fds = warm->fds;
  f.final_fds = last.fds;
  // Thread pools (TBB, OpenMP) start workers lazily, so the baseline is the most seen so far.
  for (auto it = samples_.begin(); it != warm + 1; ++it) f.warmup_threads = std::max(f.warmup_threads, it->threads);
  f.final_threads = last.threads;
  return f;
}

std::string SoakMeter::describe(const std::string& label, const SoakFigures& f) {
  char line[640];
  std::snprintf(line, sizeof line,
                "SOAK %s: cycles %" PRIu64 ", RSS after warm-up (%" PRIu64 " cycles) %" PRIu64 " KiB, final %" PRIu64
                " KiB, lowest of the last quarter %" PRIu64 " KiB, peak %" PRIu64 " KiB, growth %+" PRId64
                " KiB (%+.3f%%, %+.1f B/cycle), %.1f cycles/s, fds %" PRIu64 " -> %" PRIu64 ", threads %" PRIu64
                " -> %" PRIu64,
                label.c_str(), f.cycles, f.warmup_cycles, f.warmup_rss_kib, f.final_rss_kib, f.settled_rss_kib,
                f.peak_rss_kib, f.growth_kib, f.growth_percent, f.bytes_per_cycle, f.cycles_per_second, f.warmup_fds,
                f.final_fds, f.warmup_threads, f.final_threads);
  return line;
}

}  // namespace wasinn_soak
