// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// OpenVINO exception text reduced to the lines that say what went wrong.
#include "ov_exception.h"

namespace wasinn::openvino {
namespace {

bool is_frame(std::string_view line) { return line.starts_with("Exception from ") || line.starts_with("Check '"); }

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

}  // namespace

std::string ov_reason(const std::exception& e) {
  const std::string_view text = e.what() ? e.what() : "";
  std::string reason;
  std::string_view last;  // the last non-empty line, for when every line is a frame
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = trim(text.substr(start, end - start));
    if (!line.empty()) {
      last = line;
      if (!is_frame(line)) {
        if (!reason.empty()) reason += "; ";
        reason += line;
      }
    }
    start = end + 1;
  }
  if (reason.empty()) reason = last.empty() ? "unknown OpenVINO error" : std::string(last);
  return reason;
}

Error from_exception(wasinn_status status, std::string_view what, const std::exception& e) {
  return {status, std::string(what) + ": " + ov_reason(e)};
}

}  // namespace wasinn::openvino
