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

// A label value as the format quotes it: backslash, double quote and newline escaped.
std::string escape_label_value(std::string_view value);

}  // namespace wasinn
