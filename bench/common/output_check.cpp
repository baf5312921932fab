// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "output_check.h"

#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>

#include <fmt/format.h>

namespace wasinn::bench {

std::optional<std::vector<uint8_t>> read_bytes(const std::string& path, std::string* error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (error) *error = "cannot read " + path;
    return std::nullopt;
  }
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

bool write_bytes(const std::string& path, std::span<const uint8_t> data, std::string* error) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
  if (!out.flush()) {
    if (error) *error = "cannot write " + path;
    return false;
  }
  return true;
}

std::vector<float> as_f32(std::span<const uint8_t> bytes) {
  std::vector<float> v(bytes.size() / sizeof(float));
  if (!v.empty()) std::memcpy(v.data(), bytes.data(), v.size() * sizeof(float));
  return v;
}

bool f32_close(std::span<const uint8_t> got, std::span<const uint8_t> want, double atol, double rtol,
               std::string* detail) {
  if (got.size() != want.size() || got.size() % sizeof(float) != 0) {
    if (detail) *detail = fmt::format("sizes differ: {} bytes versus {} expected", got.size(), want.size());
    return false;
  }
  const auto g = as_f32(got), w = as_f32(want);
  size_t worst = 0, bad = 0;
  double worst_excess = -1;
  for (size_t i = 0; i < g.size(); ++i) {
    const double diff = std::fabs(double(g[i]) - double(w[i]));
    const double excess = diff - (atol + rtol * std::fabs(double(w[i])));
    // NaN on either side never counts as close.
    if (std::isnan(diff) || excess > 0) ++bad;
    if (std::isnan(diff) || excess > worst_excess) {
      worst_excess = std::isnan(diff) ? INFINITY : excess;
      worst = i;
    }
  }
  if (bad == 0) return true;
  if (detail) {
    *detail = fmt::format("{} of {} values differ; worst at {}: {} versus {} expected", bad, g.size(), worst, g[worst],
                          w[worst]);
  }
  return false;
}

}  // namespace wasinn::bench
