// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "backend.h"

#include <whisper.h>

#include "graph.h"
#include "ggml_common/log_router.h"

#ifndef WASINN_WHISPER_VERSION
#define WASINN_WHISPER_VERSION "unknown"
#endif

namespace wasinn::whisper {

const char* WhisperBackend::framework_version() noexcept { return "whisper.cpp " WASINN_WHISPER_VERSION; }

Error WhisperBackend::create(std::string_view config, std::unique_ptr<WhisperBackend>& out) {
  auto backend = std::make_unique<WhisperBackend>();
  if (Error e = parse_backend_config(config, backend->config_)) return e;
  // whisper_log_set routes ggml's lines too; ggml's CPU backend is linked in, nothing is loaded.
  ggml_common::install_log_router(whisper_log_set);
  out = std::move(backend);
  return {};
}

Error WhisperBackend::load(const sdk::LoadRequest& request, std::unique_ptr<WhisperGraph>& out) {
  return WhisperGraph::load(*this, request, out);
}

}  // namespace wasinn::whisper
