// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The Prometheus text exposition format (version 0.0.4) of NnMetrics' snapshots: one family per
// metric with its HELP and TYPE lines, label values escaped. Pure functions over plain values.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "core/nn_metrics.h"

namespace wasinn {

// The Content-Type an HTTP endpoint serves this text with.
inline constexpr std::string_view kPrometheusTextContentType = "text/plain; version=0.0.4; charset=utf-8";

std::string render_prometheus_text(std::span<const GraphMetrics::Snapshot> series);

// A family's "# HELP" and "# TYPE" lines.
void append_family_header(std::string& out, std::string_view name, std::string_view type, std::string_view help);

// A histogram's NAME_bucket lines over kComputeSecondsBuckets and +Inf, cumulative, each
// labelled {LABELS,le="..."} (LABELS already formatted, or empty). buckets: a count per bucket,
// the last +Inf, not cumulative. Returns the total, the histogram's _count.
uint64_t append_histogram_buckets(std::string& out, std::string_view name, std::string_view labels,
                                  std::span<const uint64_t> buckets);
// The same over other upper bounds `bounds` (buckets: bounds.size() + 1 counts).
uint64_t append_histogram_buckets(std::string& out, std::string_view name, std::string_view labels,
                                  std::span<const uint64_t> buckets, std::span<const double> bounds);

// A label value as the format quotes it: backslash, double quote and newline escaped.
std::string escape_label_value(std::string_view value);

}  // namespace wasinn
