// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "core/nn_metrics.h"

#include <algorithm>

#include <fmt/format.h>

namespace wasinn {

namespace {
constexpr std::string_view kOtherGraph = "other";

uint64_t read(const std::atomic<uint64_t>& c) { return c.load(std::memory_order_relaxed); }

// The bucket of `seconds` among upper bounds `bounds` (inclusive, Prometheus' `le`); past the last
// one, +Inf's.
template <size_t N>
size_t bucket_of(const std::array<double, N>& bounds, double seconds) {
  return static_cast<size_t>(std::lower_bound(bounds.begin(), bounds.end(), seconds) - bounds.begin());
}
}  // namespace

GraphMetrics::GraphMetrics(std::string backend, std::string graph, std::string device)
    : backend_(std::move(backend)), graph_(std::move(graph)), device_(std::move(device)) {}

void GraphMetrics::count_load(const Status& outcome) {
  if (outcome.ok()) {
    loads_.fetch_add(1, std::memory_order_relaxed);
  } else {
    load_errors_[static_cast<size_t>(outcome.error().code)].fetch_add(1, std::memory_order_relaxed);
  }
}

void GraphMetrics::count_compute(const Status& outcome, std::chrono::steady_clock::duration took) {
  const uint64_t nanos =
      static_cast<uint64_t>(std::max<int64_t>(0, std::chrono::duration_cast<std::chrono::nanoseconds>(took).count()));
  const double seconds = static_cast<double>(nanos) * 1e-9;
  // Buckets are upper bounds, inclusive (Prometheus' `le`); past the last one is +Inf.
  const size_t bucket = bucket_of(kComputeSecondsBuckets, seconds);
  computes_.fetch_add(1, std::memory_order_relaxed);
  compute_buckets_[bucket].fetch_add(1, std::memory_order_relaxed);
  compute_nanos_.fetch_add(nanos, std::memory_order_relaxed);
  if (!outcome.ok()) {
    compute_errors_[static_cast<size_t>(outcome.error().code)].fetch_add(1, std::memory_order_relaxed);
  }
}

void GraphMetrics::count_tokens(const TokenCounts& t) {
  counts_tokens_.store(true, std::memory_order_relaxed);
  prompt_tokens_.fetch_add(t.prompt_tokens, std::memory_order_relaxed);
  generated_tokens_.fetch_add(t.generated_tokens, std::memory_order_relaxed);
  cached_prompt_tokens_.fetch_add(t.cached_prompt_tokens, std::memory_order_relaxed);
  prompt_cache_hits_.fetch_add(t.prompt_cache_hits, std::memory_order_relaxed);
  if (t.first_token) {
    first_token_buckets_[bucket_of(kFirstTokenSecondsBuckets, static_cast<double>(t.first_token_nanos) * 1e-9)]
        .fetch_add(1, std::memory_order_relaxed);
    first_token_nanos_.fetch_add(t.first_token_nanos, std::memory_order_relaxed);
  }
  if (t.decode_tokens) {
    // One observation per token, each the span's mean: exact when a span is one token (streaming).
    const double mean = static_cast<double>(t.decode_nanos) * 1e-9 / static_cast<double>(t.decode_tokens);
    token_buckets_[bucket_of(kTokenSecondsBuckets, mean)].fetch_add(t.decode_tokens, std::memory_order_relaxed);
    token_nanos_.fetch_add(t.decode_nanos, std::memory_order_relaxed);
  }
}

GraphMetrics::Snapshot GraphMetrics::snapshot() const {
  Snapshot s;
  s.backend = backend_;
  s.graph = graph_;
  s.device = device_;
  s.loads = read(loads_);
  s.computes = read(computes_);
  s.input_bytes = read(input_bytes_);
  s.output_bytes = read(output_bytes_);
  s.live_graphs = live_graphs_.load(std::memory_order_relaxed);
  s.live_contexts = live_contexts_.load(std::memory_order_relaxed);
  s.had_graph = had_graph_.load(std::memory_order_relaxed);
  for (size_t i = 0; i < kErrcCount; ++i) {
    s.load_errors[i] = read(load_errors_[i]);
    s.compute_errors[i] = read(compute_errors_[i]);
  }
  for (size_t i = 0; i < compute_buckets_.size(); ++i) s.compute_buckets[i] = read(compute_buckets_[i]);
  s.compute_nanos = read(compute_nanos_);
  s.counts_tokens = counts_tokens_.load(std::memory_order_relaxed);
  s.prompt_tokens = read(prompt_tokens_);
  s.generated_tokens = read(generated_tokens_);
  s.cached_prompt_tokens = read(cached_prompt_tokens_);
  s.prompt_cache_hits = read(prompt_cache_hits_);
  for (size_t i = 0; i < first_token_buckets_.size(); ++i) s.first_token_buckets[i] = read(first_token_buckets_[i]);
  for (size_t i = 0; i < token_buckets_.size(); ++i) s.token_buckets[i] = read(token_buckets_[i]);
  s.first_token_nanos = read(first_token_nanos_);
  s.token_nanos = read(token_nanos_);
  return s;
}

std::shared_ptr<GraphMetrics> NnMetrics::series(std::string_view backend, std::string_view graph,
                                                std::string_view device) {
  std::lock_guard lock(mu_);
  std::tuple<std::string, std::string, std::string> key{backend, graph, device};
  if (auto it = series_.find(key); it != series_.end()) return it->second;
  if (series_.size() >= kMaxSeries) std::get<1>(key) = kOtherGraph;
  auto& slot = series_[key];
  if (!slot) slot = std::make_shared<GraphMetrics>(std::get<0>(key), std::get<1>(key), std::get<2>(key));
  return slot;
}

std::vector<GraphMetrics::Snapshot> NnMetrics::snapshot() const {
  std::vector<std::shared_ptr<GraphMetrics>> all;
  {
    std::lock_guard lock(mu_);
    all.reserve(series_.size());
    for (const auto& [key, s] : series_) all.push_back(s);
  }
  std::vector<GraphMetrics::Snapshot> out;
  out.reserve(all.size());
  for (const auto& s : all) out.push_back(s->snapshot());
  return out;
}

std::string graph_label(std::string_view name, Encoding encoding, const std::array<uint8_t, 32>* digest,
                        std::span<const std::filesystem::path> paths) {
  if (!name.empty()) return std::string(name);
  if (!paths.empty()) return paths.front().filename().string();
  if (!digest) return fmt::format("{}:bytes", encoding_name(encoding));
  std::string hex;
  for (size_t i = 0; i < 6; ++i) hex += fmt::format("{:02x}", (*digest)[i]);
  return fmt::format("{}:{}", encoding_name(encoding), hex);
}

}  // namespace wasinn
