// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "base/near_names.h"

#include <algorithm>
#include <cctype>

namespace wasinn {

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

// Optimal string alignment distance: Levenshtein plus the swap of two neighbours, the commonest
// typo ("prelaod", "inpsect").
size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

}  // namespace

std::optional<std::string> nearest_name(std::string_view given, const std::vector<std::string>& known) {
  const std::string g = lower(given);
  const size_t most = std::min<size_t>(2, g.size() / 3);
  std::optional<std::string> best;
  size_t best_distance = most + 1;
  for (const auto& k : known) {
    if (k == given) return std::nullopt;
    const size_t d = edit_distance(g, lower(k));
    if (d < best_distance) {
      best = k;
      best_distance = d;
    }
  }
  return best;
}

std::string did_you_mean(std::string_view given, const std::vector<std::string>& known) {
  const auto near = nearest_name(given, known);
  return near ? "; did you mean '" + *near + "'?" : "";
}

}  // namespace wasinn
