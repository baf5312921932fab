// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "backend.h"

#include <openvino/core/log.hpp>
#include <openvino/core/version.hpp>

#include <functional>
#include <mutex>
#include <string>

#include "graph.h"

namespace wasinn::openvino {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

wasinn_log_level level_of(std::string_view tag) {
  tag = trim(tag);
  if (tag.starts_with("NPUW:")) tag = trim(tag.substr(5));
  if (tag == "ERR" || tag == "ERROR") return WASINN_LOG_ERROR;
  if (tag == "WARN" || tag == "WARNING") return WASINN_LOG_WARN;
  if (tag == "INFO") return WASINN_LOG_INFO;
  if (tag == "DEBUG" || tag == "DBG") return WASINN_LOG_DEBUG;
  if (tag == "TRACE" || tag == "VERB" || tag == "VERBOSE") return WASINN_LOG_TRACE;
  return WASINN_LOG_OFF;  // not a level tag
}

// OpenVINO's log hook (ov::util::set_log_callback) hands over bare lines; each component's
// logger writes the level into the text: "[ERR] "/"[WARN] "/"[INFO] "/"[DEBUG] " (the core's),
// "[ NPUW:WARN ] " (NPUW), "\033[33m[WARNING] 12:00:00.1 [name] ...\033[0m" (NPU, in colour).
// The tag becomes the wasinn level and is dropped from the line, as are colour codes. A line
// with no tag (a component that only ever logs what a user must see) is a warning.
void route_ov_line(std::string_view raw) noexcept {
  try {
    std::string line;
    line.reserve(raw.size());
    for (size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] == '\033' && i + 1 < raw.size() && raw[i + 1] == '[') {  // ESC [ ... final byte
        i += 2;
        while (i < raw.size() && !(raw[i] >= '@' && raw[i] <= '~')) ++i;
        continue;
      }
      line += raw[i];
    }
    std::string_view text = trim(line);
    wasinn_log_level level = WASINN_LOG_WARN;
    if (text.starts_with('[')) {
      const size_t close = text.find(']');
      const wasinn_log_level tagged =
          close == std::string_view::npos ? WASINN_LOG_OFF : level_of(text.substr(1, close - 1));
      if (tagged != WASINN_LOG_OFF) {
        level = tagged;
        text = trim(text.substr(close + 1));
      }
    }
    if (sdk::log_enabled(level)) sdk::log(level, text);
  } catch (...) {
    // Out of memory copying a log line: the line is lost, OpenVINO's caller is not disturbed.
  }
}

// Installed once per process, before the first ov::Core: OpenVINO's default prints to stdout.
// The hook is process-wide and OpenVINO keeps a pointer to the std::function, so it lives for
// good (OpenVINO may log from its threads and static destructors).
void route_ov_logging() {
  static std::once_flag once;
  std::call_once(once, [] {
    static const auto* const callback = new std::function<void(std::string_view)>(route_ov_line);
    ov::util::set_log_callback(*callback);
  });
}

}  // namespace

const char* OvBackend::framework_version() noexcept {
  try {
    return ov::get_openvino_version().buildNumber;  // static storage in libopenvino
  } catch (...) {
    return "unknown";
  }
}

Error OvBackend::create(std::string_view config, std::unique_ptr<OvBackend>& out) {
  Config defaults;
  if (Error e = parse_config(config, "openvino backend config", defaults)) return e;
  route_ov_logging();
  std::unique_ptr<OvBackend> backend;
  try {
    backend = std::make_unique<OvBackend>();
  } catch (const std::exception& e) {
    return from_exception(WASINN_RUNTIME_ERROR, "starting OpenVINO", e);
  }
  backend->defaults_ = std::move(defaults);
  out = std::move(backend);
  return {};
}

Error OvBackend::load(const sdk::LoadRequest& request, std::unique_ptr<OvGraph>& out) {
  return OvGraph::load(*this, request, out);
}

}  // namespace wasinn::openvino
