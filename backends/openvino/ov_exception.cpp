// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// OpenVINO exception text reduced to the lines that say what went wrong.
#include "ov_exception.h"

#include "plugin_common/text_lines.hpp"

namespace wasinn::openvino {
namespace {

bool is_frame(std::string_view line) { return line.starts_with("Exception from ") || line.starts_with("Check '"); }

}  // namespace

std::string ov_reason(const std::exception& e) {
  const std::string_view text = e.what() ? e.what() : "";
  std::string reason;
  std::string_view last;  // the last non-empty line, for when every line is a frame
  plugin_common::for_each_nonblank_line(text, [&](std::string_view line) {
    last = line;
    if (!is_frame(line)) {
      if (!reason.empty()) reason += "; ";
      reason += line;
    }
  });
  if (reason.empty()) reason = last.empty() ? "unknown OpenVINO error" : std::string(last);
  return reason;
}

Error from_exception(wasinn_status status, std::string_view what, const std::exception& e) {
  return {status, std::string(what) + ": " + ov_reason(e)};
}

}  // namespace wasinn::openvino
