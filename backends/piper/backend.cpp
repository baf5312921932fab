// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "backend.h"

#include <espeak-ng/speak_lib.h>

#include <string>

#include "graph.h"

namespace wasinn::piper {
namespace {

// ORT's levels (verbose .. fatal) onto the host's.
void ort_log(void*, OrtLoggingLevel severity, const char*, const char*, const char*, const char* message) {
  static const wasinn_log_level levels[] = {WASINN_LOG_TRACE, WASINN_LOG_DEBUG, WASINN_LOG_WARN, WASINN_LOG_ERROR,
                                            WASINN_LOG_ERROR};
  const int i = static_cast<int>(severity);
  sdk::log(i >= 0 && i < 5 ? levels[i] : WASINN_LOG_ERROR, message ? message : "");
}

}  // namespace

const char* PiperBackend::framework_version() noexcept {
  static const std::string v =
      std::string("ONNX Runtime ") + Ort::GetVersionString() + ", espeak-ng " + espeak_Info(nullptr);
  return v.c_str();
}

Error PiperBackend::create(std::string_view config, std::unique_ptr<PiperBackend>& out) {
  auto backend = std::make_unique<PiperBackend>();
  if (Error e = parse_backend_config(config, backend->config_)) return e;
  backend->env_ = std::make_unique<Ort::Env>(ORT_LOGGING_LEVEL_WARNING, "piper", ort_log, nullptr);
  out = std::move(backend);
  return {};
}

Error PiperBackend::load(const sdk::LoadRequest& request, std::unique_ptr<PiperGraph>& out) {
  return PiperGraph::load(*this, request, out);
}

}  // namespace wasinn::piper
