// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Reading a framework's multi-line message (an exception's what(), a traceback) for the line that
// says why: its lines, trimmed, blank ones skipped. Pure functions; thread-safe.
#pragma once

#include <string_view>

namespace wasinn::plugin_common {

// s without the blanks (space, tab, CR) at either end.
inline std::string_view trim_blanks(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// Calls line_fn(line) for each line of text that is not blank, trimmed, in order.
template <typename LineFn>
void for_each_nonblank_line(std::string_view text, LineFn&& line_fn) {
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = trim_blanks(text.substr(start, end - start));
    if (!line.empty()) line_fn(line);
    start = end + 1;
  }
}

}  // namespace wasinn::plugin_common
