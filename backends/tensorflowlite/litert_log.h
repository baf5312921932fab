// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// LiteRT's log lines ("INFO: [environment.cc:36] Creating LiteRT environment with options") to
// the host's logger.
//
// libLiteRt.so 2.3.0 has no logging API to hook: none of its 417 exported functions is a logger,
// sink or severity call (nm -D --defined-only; the LiteRtSetMinLoggerSeverity/LiteRtCreateLogger
// family of later releases is absent), and it reads no environment variable for it (its only
// getenv is LITERT_DISABLE_OPENCL). Its logger, TFLite's MinimalLogger, writes each line as
// fprintf(stderr, "INFO: "), vfprintf(stderr, ...), fputc('\n', stderr), and libLiteRt.so reads
// `stderr` through one GOT slot (an R_X86_64_GLOB_DAT relocation in its RELRO segment). The
// plugin points that one slot at a stdio stream of its own, whose lines reach sdk::log with their
// severity mapped (VERBOSE -> DEBUG, INFO, WARNING -> WARN, ERROR). Only libLiteRt.so's own
// writes change: the process's stderr, and every other library's, stay as they were.
#pragma once

#include <string>
#include <string_view>

namespace wasinn::tensorflowlite {

// Once per process, before the first LiteRT call that logs (LiteRtCreateEnvironment). Best
// effort: when the slot cannot be found or is not the process's stderr (another architecture, a
// different libLiteRt.so), LiteRT keeps writing to stderr and an info line says why.
void route_litert_logs();

// The same for LiteRT's GPU accelerator, `path` (libLiteRtWebGpuAccelerator.so), once LiteRT has
// loaded it: its Abseil lines ("I0000 00:00:... environment.cc:532] Selected adapter: ...") and
// Dawn's ("Warning: ...") go through its own stderr slot. Once per process. The Vulkan driver's
// own lines (Mesa's) are not routed.
void route_accelerator_logs(const std::string& path);

// Collects the ERROR lines LiteRT writes on this thread while the object lives, whatever the
// host shows: a delegate kernel that fails reports why only through TfLiteContext::ReportError,
// which LiteRT logs, so the detail of a failed compile or run quotes them. Empty when logs are
// not routed (see above). Nests; not movable.
class LiteRtErrorCapture {
 public:
  LiteRtErrorCapture();
  ~LiteRtErrorCapture();
  LiteRtErrorCapture(const LiteRtErrorCapture&) = delete;
  LiteRtErrorCapture& operator=(const LiteRtErrorCapture&) = delete;

  // The lines, joined by "; " (at most a few hundred bytes), or "".
  const std::string& text() const { return text_; }
  void add(std::string_view line);

 private:
  std::string text_;
  LiteRtErrorCapture* previous_;
};

}  // namespace wasinn::tensorflowlite
