// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "bench_report.h"

#include <ctime>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace wasinn::bench {

namespace {

nlohmann::json side_json(const SideStats& s) {
  return {{"median_us", s.median_us}, {"p90_us", s.p90_us}, {"min_us", s.min_us}, {"samples", s.samples}};
}

}  // namespace

std::string format_duration(double us) {
  if (us >= 1000) return fmt::format("{:.2f} ms", us / 1000);
  return fmt::format("{:.2f} µs", us);
}

std::string markdown_header() {
  return "| model | threads | native median | guest median | ratio (95% CI) | overhead per inference (95% CI) | "
         "native p90 | guest p90 | samples per side |\n"
         "|---|---:|---:|---:|---:|---:|---:|---:|---:|\n";
}

std::string markdown_row(const BenchRow& row) {
  const Comparison& c = row.result;
  // The overhead keeps its sign: a negative value means the difference is within the noise.
  return fmt::format("| {} | {} | {} | {} | {:.3f} ({:.3f}–{:.3f}) | {:+.2f} µs ({:+.2f}–{:+.2f}) | {} | {} | {} |\n",
                     row.model, row.threads, format_duration(c.native.median_us), format_duration(c.guest.median_us),
                     c.ratio(), c.ratio_95.low, c.ratio_95.high, c.overhead_us(), c.overhead_95.low, c.overhead_95.high,
                     format_duration(c.native.p90_us), format_duration(c.guest.p90_us), c.native.samples);
}

std::string to_json(const std::vector<BenchRow>& rows) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& r : rows) {
    out.push_back({{"backend", r.backend},
                   {"model", r.model},
                   {"threads", r.threads},
                   {"native", side_json(r.result.native)},
                   {"guest", side_json(r.result.guest)},
                   {"ratio", r.result.ratio()},
                   {"ratio_95", {r.result.ratio_95.low, r.result.ratio_95.high}},
                   {"overhead_us", r.result.overhead_us()},
                   {"overhead_us_95", {r.result.overhead_95.low, r.result.overhead_95.high}}});
  }
  return nlohmann::json{{"rows", out}}.dump(2) + "\n";
}

std::string now_utc() {
  char buf[32];
  const std::time_t t = std::time(nullptr);
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M UTC", std::gmtime(&t));
  return buf;
}

}  // namespace wasinn::bench
