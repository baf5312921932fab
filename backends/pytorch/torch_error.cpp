// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "torch_error.h"

#include <c10/util/Exception.h>
#include <torch/csrc/jit/frontend/error_report.h>

#include <cctype>
#include <string_view>

#include "plugin_common/text_lines.hpp"

namespace wasinn::pytorch {
// Reads an ErrorReport's message into *out (see the specialization below).
struct ReportText {
  std::string* out;
};
}  // namespace wasinn::pytorch

namespace torch::jit {
// ErrorReport::what() is noexcept yet formats the source context, which throws on a malformed
// archive's source ranges: std::terminate. The message itself sits in a private stream that
// operator<< (a friend template) may read; this specialization for a private tag reads it.
template <>
const ErrorReport& operator<< <wasinn::pytorch::ReportText>(const ErrorReport& e,
                                                            const wasinn::pytorch::ReportText& t) {
  *t.out = e.ss.str();
  return e;
}
}  // namespace torch::jit

namespace wasinn::pytorch {
namespace {

// "RuntimeError: mat1 and mat2 must have the same dtype" style: an identifier ending in
// "Error" or "Exception", then ": ".
bool is_python_error_line(std::string_view line) {
  const size_t colon = line.find(": ");
  if (colon == std::string_view::npos || colon == 0) return false;
  const std::string_view head = line.substr(0, colon);
  for (char c : head)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.')) return false;
  return head.ends_with("Error") || head.ends_with("Exception");
}

}  // namespace

std::string exception_summary(const std::exception& e) {
  std::string_view text;
  std::string report_text;
  if (const auto* report = dynamic_cast<const torch::jit::ErrorReport*>(&e)) {
    // Never what() (see above); the message without its source context is the useful part.
    *report << ReportText{&report_text};
    if (report_text.find_first_not_of(" \t\r\n") == std::string::npos)
      return "the archive's TorchScript code does not compile";
    report_text = "TorchScript compile error: " + report_text;
    text = report_text;
  } else if (const auto* c10e = dynamic_cast<const c10::Error*>(&e))
    text = c10e->what_without_backtrace();
  else
    text = e.what();

  // The interpreter's traceback ends with the original error; take the last such line.
  std::string_view last_error, first_line;
  plugin_common::for_each_nonblank_line(text, [&](std::string_view line) {
    if (first_line.empty()) first_line = line;
    if (is_python_error_line(line)) last_error = line;
  });
  const std::string_view pick = !last_error.empty() ? last_error : first_line;
  return pick.empty() ? std::string("unknown libtorch error") : std::string(pick);
}

}  // namespace wasinn::pytorch
