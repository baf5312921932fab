// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "core/prometheus_text.h"

#include <iterator>

#include <fmt/format.h>

namespace wasinn {

namespace {

using Snapshot = GraphMetrics::Snapshot;

// backend="...",graph="...",device="...": a series' labels, inside the braces; a series of
// failed loads has no device, and an absent label is PromQL's empty one.
std::string series_labels(const Snapshot& s) {
  std::string out =
      fmt::format("backend=\"{}\",graph=\"{}\"", escape_label_value(s.backend), escape_label_value(s.graph));
  if (!s.device.empty()) out += fmt::format(",device=\"{}\"", escape_label_value(s.device));
  return out;
}

// {backend="...",graph="..."} plus `extra` (already formatted, e.g. code="busy") when given.
std::string labels(const Snapshot& s, std::string_view extra = {}) {
  return fmt::format("{{{}{}{}}}", series_labels(s), extra.empty() ? "" : ",", extra);
}

// A series that only ever counted failed loads has no graph: its compute, byte and live
// families would be zeros that no call can change, so only the load families list it.
template <class Value>
void family(std::string& out, std::span<const Snapshot> series, std::string_view name, std::string_view type,
            std::string_view help, Value value, bool every_series = false) {
  append_family_header(out, name, type, help);
  for (const auto& s : series) {
    if (s.had_graph || every_series) fmt::format_to(std::back_inserter(out), "{}{} {}\n", name, labels(s), value(s));
  }
}

// Only the codes that happened: a family of 15 zeros per graph would bury the ones that count.
void errors_family(std::string& out, std::span<const Snapshot> series, std::string_view name, std::string_view help,
                   std::array<uint64_t, kErrcCount> Snapshot::*errors) {
  append_family_header(out, name, "counter", help);
  for (const auto& s : series) {
    for (size_t code = 0; code < kErrcCount; ++code) {
      if (const uint64_t n = (s.*errors)[code]) {
        const std::string code_label = fmt::format("code=\"{}\"", errc_name(static_cast<Errc>(code)));
        fmt::format_to(std::back_inserter(out), "{}{} {}\n", name, labels(s, code_label), n);
      }
    }
  }
}

void histogram_family(std::string& out, std::span<const Snapshot> series) {
  constexpr std::string_view name = "wasinn_nn_compute_seconds";
  append_family_header(out, name, "histogram",
                       "Time of each compute (and compute_single) that reached a graph, failed ones included.");
  for (const auto& s : series) {
    if (!s.had_graph) continue;
    const uint64_t count = append_histogram_buckets(out, name, series_labels(s), s.compute_buckets);
    fmt::format_to(std::back_inserter(out), "{}_sum{} {:.9f}\n", name, labels(s),
                   static_cast<double>(s.compute_nanos) * 1e-9);
    fmt::format_to(std::back_inserter(out), "{}_count{} {}\n", name, labels(s), count);
  }
}

// The token families (docs/metrics.md): only series whose backend counts tokens.
void token_families(std::string& out, std::span<const Snapshot> series) {
  auto it = std::back_inserter(out);
  auto counter = [&](std::string_view name, std::string_view help, uint64_t Snapshot::*value) {
    append_family_header(out, name, "counter", help);
    for (const auto& s : series)
      if (s.counts_tokens) fmt::format_to(it, "{}{} {}\n", name, labels(s), s.*value);
  };
  counter("wasinn_nn_prompt_tokens_total", "Prompt tokens a language model evaluated.", &Snapshot::prompt_tokens);
  counter("wasinn_nn_generated_tokens_total", "Tokens a language model generated.", &Snapshot::generated_tokens);
  counter("wasinn_nn_prompt_cached_tokens_total",
          "Of the prompt tokens, those a prompt cache held (KV kept from an earlier request), not evaluated again.",
          &Snapshot::cached_prompt_tokens);
  counter("wasinn_nn_prompt_cache_hits_total", "Generations whose prompt reused a prompt cache's tokens.",
          &Snapshot::prompt_cache_hits);
  auto histogram = [&](std::string_view name, std::string_view help, auto buckets, uint64_t Snapshot::*nanos,
                       std::span<const double> bounds) {
    append_family_header(out, name, "histogram", help);
    for (const auto& s : series) {
      if (!s.counts_tokens) continue;
      const uint64_t count = append_histogram_buckets(out, name, series_labels(s), s.*buckets, bounds);
      fmt::format_to(it, "{}_sum{} {:.9f}\n", name, labels(s), static_cast<double>(s.*nanos) * 1e-9);
      fmt::format_to(it, "{}_count{} {}\n", name, labels(s), count);
    }
  };
  histogram("wasinn_nn_time_to_first_token_seconds",
            "From a generation's start (its compute) to its first token, prompt evaluation included.",
            &Snapshot::first_token_buckets, &Snapshot::first_token_nanos, kFirstTokenSecondsBuckets);
  histogram("wasinn_nn_time_per_output_token_seconds", "Time of each generated token after a generation's first.",
            &Snapshot::token_buckets, &Snapshot::token_nanos, kTokenSecondsBuckets);
}

}  // namespace

void append_family_header(std::string& out, std::string_view name, std::string_view type, std::string_view help) {
  fmt::format_to(std::back_inserter(out), "# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
}

uint64_t append_histogram_buckets(std::string& out, std::string_view name, std::string_view labels,
                                  std::span<const uint64_t> buckets) {
  return append_histogram_buckets(out, name, labels, buckets, kComputeSecondsBuckets);
}

uint64_t append_histogram_buckets(std::string& out, std::string_view name, std::string_view labels,
                                  std::span<const uint64_t> buckets, std::span<const double> bounds) {
  uint64_t cumulative = 0;
  for (size_t i = 0; i < buckets.size(); ++i) {
    cumulative += buckets[i];
    const std::string le = i < bounds.size() ? fmt::format("le=\"{}\"", bounds[i]) : std::string("le=\"+Inf\"");
    fmt::format_to(std::back_inserter(out), "{}_bucket{{{}{}{}}} {}\n", name, labels, labels.empty() ? "" : ",", le,
                   cumulative);
  }
  return cumulative;
}

std::string escape_label_value(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (const char c : value) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '"')
      out += "\\\"";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

std::string render_prometheus_text(std::span<const Snapshot> series) {
  std::string out;
  family(
      out, series, "wasinn_nn_loads_total", "counter", "Successful wasi-nn loads (load, load_by_name) of a graph.",
      [](const Snapshot& s) { return s.loads; }, true);
  errors_family(out, series, "wasinn_nn_load_errors_total", "Failed wasi-nn loads, by the core's error code.",
                &Snapshot::load_errors);
  family(out, series, "wasinn_nn_computes_total", "counter",
         "Computes (compute, compute_single) that reached a graph, failed ones included.",
         [](const Snapshot& s) { return s.computes; });
  errors_family(out, series, "wasinn_nn_compute_errors_total", "Failed computes, by the core's error code.",
                &Snapshot::compute_errors);
  family(out, series, "wasinn_nn_input_bytes_total", "counter", "Bytes of input tensors accepted by set_input.",
         [](const Snapshot& s) { return s.input_bytes; });
  family(out, series, "wasinn_nn_output_bytes_total", "counter",
         "Bytes of output tensors copied into guest memory by get_output.",
         [](const Snapshot& s) { return s.output_bytes; });
  family(out, series, "wasinn_nn_live_graphs", "gauge", "Loaded graphs alive now (one graph may serve many guests).",
         [](const Snapshot& s) { return s.live_graphs; });
  family(out, series, "wasinn_nn_live_contexts", "gauge", "Execution contexts alive now.",
         [](const Snapshot& s) { return s.live_contexts; });
  histogram_family(out, series);
  token_families(out, series);
  return out;
}

}  // namespace wasinn
