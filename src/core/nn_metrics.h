// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// NnMetrics: the process's wasi-nn counters, one series per (backend, graph, device): loads, load and
// compute errors by Errc, computes, input and output bytes, live graphs and contexts, and a
// compute latency histogram. Rendered as Prometheus text by core/prometheus_text.
//
// Ownership: the NnEnvironment owns the NnMetrics, so every guest, instance and thread of one
// Host reports into it. A series is shared (shared_ptr) by the registry and every Graph of that
// label; series are never removed, so counters never go back to zero while the process runs.
// Thread-safety: recording into a series is lock-free (relaxed atomics); a mutex is taken only
// to find or create a series and to take a snapshot.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "core/error.h"
#include "core/types.h"

namespace wasinn {

// Upper bounds (seconds) of the compute latency buckets, +Inf implied: from 100 us (a small
// model on a CPU) to a minute (a long generation).
inline constexpr std::array<double, 18> kComputeSecondsBuckets = {
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60};

// Upper bounds (seconds) of a generation's time to its first token (prompt evaluation included),
// vLLM's buckets: 1 ms to 80 s.
inline constexpr std::array<double, 19> kFirstTokenSecondsBuckets = {
    0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80};
// Upper bounds (seconds) of the time per output token after the first: vLLM's, with 1-5 ms added
// below for small models on a CPU.
inline constexpr std::array<double, 18> kTokenSecondsBuckets = {
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1, 2.5, 5, 10};

// What a backend's language model reported for one span of a context (the plugin ABI's
// wasinn_token_stats, field for field).
struct TokenCounts {
  uint64_t prompt_tokens = 0, generated_tokens = 0;
  bool first_token = false;  // a generation's first token came in this span
  uint64_t first_token_nanos = 0;
  uint64_t decode_tokens = 0, decode_nanos = 0;              // tokens after a first one, and their time summed
  uint64_t cached_prompt_tokens = 0, prompt_cache_hits = 0;  // of prompt_tokens, those a prompt cache held
};

// One (backend, graph, device) series. Record through its methods; read with snapshot().
// device is where the graph's loads run (its "device" property), "" for failed loads.
class GraphMetrics {
 public:
  GraphMetrics(std::string backend, std::string graph, std::string device = {});

  const std::string& backend() const { return backend_; }
  const std::string& graph() const { return graph_; }
  const std::string& device() const { return device_; }

  void count_load(const Status& outcome);
  // One compute (or compute_single) that reached the graph, whatever its outcome: counted,
  // timed into the histogram, and its error (if any) counted by code.
  void count_compute(const Status& outcome, std::chrono::steady_clock::duration took);
  // Tokens a backend's language model evaluated and generated (the token families); the series
  // is listed in them from then on, or from mark_counts_tokens() (a graph whose plugin counts).
  void count_tokens(const TokenCounts& t);
  void mark_counts_tokens() { counts_tokens_.store(true, std::memory_order_relaxed); }
  void add_input_bytes(uint64_t n) { input_bytes_.fetch_add(n, std::memory_order_relaxed); }
  void add_output_bytes(uint64_t n) { output_bytes_.fetch_add(n, std::memory_order_relaxed); }
  void graph_opened() {
    live_graphs_.fetch_add(1, std::memory_order_relaxed);
    had_graph_.store(true, std::memory_order_relaxed);
  }
  void graph_closed() { live_graphs_.fetch_sub(1, std::memory_order_relaxed); }
  void context_opened() { live_contexts_.fetch_add(1, std::memory_order_relaxed); }
  void context_closed() { live_contexts_.fetch_sub(1, std::memory_order_relaxed); }

  // Plain values, read field by field: a snapshot taken during a compute may see its count
  // but not yet its bucket; _count is the buckets' sum, so a histogram is always consistent.
  struct Snapshot {
    std::string backend, graph, device;
    uint64_t loads = 0, computes = 0, input_bytes = 0, output_bytes = 0;
    int64_t live_graphs = 0, live_contexts = 0;
    bool had_graph = false;  // false: a series of failed loads only, which computes never reach
    std::array<uint64_t, kErrcCount> load_errors{}, compute_errors{};
    std::array<uint64_t, kComputeSecondsBuckets.size() + 1> compute_buckets{};  // per bucket, last +Inf; not cumulative
    uint64_t compute_nanos = 0;
    bool counts_tokens = false;  // listed in the token families
    uint64_t prompt_tokens = 0, generated_tokens = 0, cached_prompt_tokens = 0, prompt_cache_hits = 0;
    std::array<uint64_t, kFirstTokenSecondsBuckets.size() + 1> first_token_buckets{};  // not cumulative
    std::array<uint64_t, kTokenSecondsBuckets.size() + 1> token_buckets{};             // not cumulative
    uint64_t first_token_nanos = 0, token_nanos = 0;
  };
  Snapshot snapshot() const;

 private:
  using Counter = std::atomic<uint64_t>;
  const std::string backend_, graph_, device_;
  Counter loads_{0}, computes_{0}, input_bytes_{0}, output_bytes_{0}, compute_nanos_{0};
  std::atomic<int64_t> live_graphs_{0}, live_contexts_{0};
  std::atomic<bool> had_graph_{false};
  std::array<Counter, kErrcCount> load_errors_{}, compute_errors_{};
  std::array<Counter, kComputeSecondsBuckets.size() + 1> compute_buckets_{};
  std::atomic<bool> counts_tokens_{false};
  Counter prompt_tokens_{0}, generated_tokens_{0}, first_token_nanos_{0}, token_nanos_{0};
  Counter cached_prompt_tokens_{0}, prompt_cache_hits_{0};
  std::array<Counter, kFirstTokenSecondsBuckets.size() + 1> first_token_buckets_{};
  std::array<Counter, kTokenSecondsBuckets.size() + 1> token_buckets_{};
};

class NnMetrics {
 public:
  // Distinct series kept at most; past it, new graphs of a backend share the series graph="other"
  // (a fuzzer or a guest loading ever new bytes must not grow the host without bound).
  static constexpr size_t kMaxSeries = 1000;

  // The series of (backend, graph, device), created on first use.
  std::shared_ptr<GraphMetrics> series(std::string_view backend, std::string_view graph, std::string_view device = {});
  // Every series, sorted by backend, graph, then device.
  std::vector<GraphMetrics::Snapshot> snapshot() const;

 private:
  mutable std::mutex mu_;
  std::map<std::tuple<std::string, std::string, std::string>, std::shared_ptr<GraphMetrics>> series_;
};

// The graph label of a load: the model's name if it has one; else, for a guest's bytes,
// "<encoding>:" and the first 12 hex digits of their SHA-256 (digest: builders_digest, when
// the load computed it) or "<encoding>:bytes"; else the first file's name.
std::string graph_label(std::string_view name, Encoding encoding, const std::array<uint8_t, 32>* digest,
                        std::span<const std::filesystem::path> paths);

}  // namespace wasinn
