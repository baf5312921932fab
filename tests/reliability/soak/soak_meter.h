// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// SoakMeter: this process's resident memory sampled between batches of soak cycles, progress
// lines for long runs, and the growth figures the soak test reports and checks.
//
// Growth is measured from the end of the warm-up (the first warmup_percent of the cycles, where
// caches, thread pools and allocator arenas fill up) to the level the run's last quarter keeps.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace wasinn_soak {

// Fixes glibc's mmap and trim thresholds at 128 KiB. Left dynamic, they rise as large blocks are
// freed, and the heap then holds megabytes it trims only now and then: llama.cpp's RSS rose 5-9 MB
// over 30 cycles and fell back, hiding a leak of 200 KiB per cycle. Call before any allocation.
void hold_malloc_thresholds();

// Resident set size of this process in KiB (/proc/self/statm), 0 if it cannot be read.
uint64_t resident_kib();
// Open file descriptors and threads of this process: a leak of either is a leak too.
uint64_t open_fds();
uint64_t thread_count();

struct SoakFigures {
  uint64_t cycles = 0;
  uint64_t warmup_cycles = 0;    // cycles done at the end of the warm-up
  uint64_t warmup_rss_kib = 0;   // the highest sample up to then
  uint64_t final_rss_kib = 0;    // the last sample
  uint64_t settled_rss_kib = 0;  // the lowest sample of the last quarter after the warm-up
  uint64_t settled_cycles = 0;   // cycles done at that sample
  uint64_t peak_rss_kib = 0;     // highest sample after the warm-up
  int64_t growth_kib = 0;        // settled - warm-up
  double growth_percent = 0;     // growth_kib / warmup_rss_kib
  double bytes_per_cycle = 0;    // growth spread over the cycles from the warm-up to the settled sample
  double cycles_per_second = 0;  // over the whole run
  uint64_t warmup_fds = 0, final_fds = 0;
  uint64_t warmup_threads = 0, final_threads = 0;  // warmup_threads: the most seen up to the warm-up
};

class SoakMeter {
 public:
  // trace: if not null, every sample is appended as "cycles,rss_kib,seconds".
  SoakMeter(std::string label, uint64_t total_cycles, double warmup_percent, std::FILE* trace);

  // Samples RSS after `cycles_done` cycles; prints a progress line at every tenth of the run.
  void record(uint64_t cycles_done);

  SoakFigures figures() const;
  // One line with every figure, e.g. for logs and docs/reliability.md.
  static std::string describe(const std::string& label, const SoakFigures& f);

 private:
  struct Sample {
    uint64_t cycles;
    uint64_t rss_kib;
    double seconds;
    uint64_t fds;
    uint64_t threads;
  };
  double elapsed() const;

  std::string label_;
  uint64_t total_cycles_;
  uint64_t warmup_cycles_;
  std::FILE* trace_;
  uint64_t start_ns_;
  uint64_t next_progress_ = 0;
  std::vector<Sample> samples_;
};

}  // namespace wasinn_soak
