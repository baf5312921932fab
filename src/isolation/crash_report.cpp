// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "isolation/crash_report.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <vector>

#include <fmt/format.h>

namespace wasinn::isolation {

std::string crash_message(std::string_view stderr_tail) {
  static constexpr std::string_view kMarks[] = {"GGML_ASSERT",  "Assertion", "assert", "terminate called", "what():",
                                                "Check failed", "FATAL",     "Fatal",  "ERROR:",           "error:"};
  std::vector<std::string_view> lines;
  size_t pos = 0;
  while (pos < stderr_tail.size()) {
    size_t end = stderr_tail.find('\n', pos);
    if (end == std::string_view::npos) end = stderr_tail.size();
    std::string_view line = stderr_tail.substr(pos, end - pos);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
    // Log lines at info and warning level (LiteRT, TensorFlow) never say why a process died.
    if (!line.empty() && !line.starts_with("INFO") && !line.starts_with("WARNING")) lines.push_back(line);
    pos = end + 1;
  }
  for (std::string_view mark : kMarks) {
    for (std::string_view line : lines) {
      if (line.find(mark) == std::string_view::npos) continue;
      std::string out(line.substr(0, 300));
      for (char& c : out) {
        if (static_cast<unsigned char>(c) < 0x20) c = ' ';
      }
      return out;
    }
  }
  return {};
}

bool about_memory(std::string_view text) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  for (std::string_view mark : {"memory", "alloc", "mmap", "fileio"}) {
    if (lower.find(mark) != std::string::npos) return true;
  }
  return false;
}

bool ran_out_of_memory(std::string_view stderr_tail) {
  for (std::string_view mark :
       {"bad_alloc", "out of memory", "Out of memory", "Cannot allocate memory", "failed to allocate"}) {
    if (stderr_tail.find(mark) != std::string_view::npos) return true;
  }
  return false;
}

std::string signal_name(int sig) {
  if (const char* abbrev = sigabbrev_np(sig)) return fmt::format("SIG{}", abbrev);
  return fmt::format("signal {}", sig);
}

}  // namespace wasinn::isolation
