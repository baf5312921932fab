// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "cli/guest_failure.h"

#include <algorithm>
#include <cctype>
#include <vector>

#include <fmt/format.h>

namespace wasinn_cli {
namespace {

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    const size_t end = text.find('\n');
    lines.push_back(text.substr(0, end));
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return lines;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// "    12: ..." (a frame of Wasmtime's backtrace, or a numbered cause): the text after "N: ", or
// npos when LINE is not one.
size_t after_number(std::string_view line) {
  const std::string_view t = trim(line);
  size_t i = 0;
  while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i]))) ++i;
  if (i == 0 || i + 1 >= t.size() || t[i] != ':' || t[i + 1] != ' ') return std::string_view::npos;
  return static_cast<size_t>(t.data() - line.data()) + i + 2;
}

}  // namespace

std::string guest_failure_text(std::string_view message, bool all_frames) {
  constexpr std::string_view kHeader = "wasm backtrace:", kWasmtime = "error while executing at";
  const std::vector<std::string_view> lines = split_lines(trim(message));
  size_t header = 0;
  while (header < lines.size() && !trim(lines[header]).ends_with(kHeader)) ++header;
  if (header == lines.size()) return "wasinn: error: " + std::string(trim(message)) + "\n";

  std::vector<std::vector<std::string_view>> frames;  // each frame's lines (details add "at FILE:LINE")
  std::vector<std::string_view> notes, causes;
  size_t i = header + 1;
  for (; i < lines.size() && trim(lines[i]) != "Caused by:"; ++i) {
    const std::string_view line = lines[i];
    if (trim(line).empty()) continue;
    if (after_number(line) != std::string_view::npos)
      frames.push_back({line});
    else if (line.starts_with(" ") && !frames.empty())
      frames.back().push_back(line);
    else
      notes.push_back(line);
  }
  for (++i; i < lines.size(); ++i) {
    const size_t at = after_number(lines[i]);
    const std::string_view cause = trim(at == std::string_view::npos ? lines[i] : lines[i].substr(at));
    if (!cause.empty()) causes.push_back(cause);
  }
  // The header's own words before Wasmtime's: whose backtrace it is ("thread 1:"), or, with no
  // cause, what failed.
  std::string_view head = trim(lines[header]);
  head.remove_suffix(kHeader.size());
  head = trim(head);
  if (head.ends_with(kWasmtime)) head = trim(head.substr(0, head.size() - kWasmtime.size()));

  // The reason: wasinn's lines before the backtrace (the timeout's), then the causes.
  std::vector<std::string> reason(lines.begin(), lines.begin() + header);
  if (causes.empty())
    reason.emplace_back(head.empty() ? "the guest failed" : head);
  else
    for (size_t c = 0; c < causes.size(); ++c)
      reason.push_back(c == 0 && !head.empty() ? fmt::format("{} {}", head, causes[c]) : std::string(causes[c]));

  std::string out = "wasinn: error: ";
  for (const std::string& r : reason) out += r + "\n";
  out += "wasm backtrace:\n";
  const size_t shown = all_frames ? frames.size() : std::min(frames.size(), size_t{kBacktraceFramesShown});
  for (size_t f = 0; f < shown; ++f)
    for (const std::string_view line : frames[f]) out += std::string(line) + "\n";
  if (shown < frames.size()) out += fmt::format("    ({} more frames; -v shows all)\n", frames.size() - shown);
  if (all_frames)
    for (const std::string_view note : notes) out += std::string(note) + "\n";
  return out;
}

}  // namespace wasinn_cli
