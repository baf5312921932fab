#include "backend.h"

#include <llama.h>

#include <mutex>
#include <string>

#include "graph.h"
#include "log_router.h"

#define WASINN_LLAMA_STR2(x) #x
#define WASINN_LLAMA_STR(x) WASINN_LLAMA_STR2(x)

namespace wasinn::llamacpp {

using ggml_common::note;

void log_ignored(const std::vector<IgnoredKey> &ignored, const char *where) {
  for (const auto &k : ignored)
    note(WASINN_LOG_WARN,
         std::string(where) + ": ignoring config key \"" + k.key + "\" (" + k.reason + ")");
}

const char *LlamaBackend::framework_version() noexcept {
  return "llama.cpp b" WASINN_LLAMA_STR(WASINN_LLAMA_BUILD_NUMBER) " (" WASINN_LLAMA_COMMIT ")";
}

Error LlamaBackend::create(std::string_view config, std::unique_ptr<LlamaBackend> &out) {
  auto backend = std::make_unique<LlamaBackend>();
  std::vector<IgnoredKey> ignored;
  if (Error e = parse_backend_config(config, backend->config_, ignored)) return e;
  log_ignored(ignored, "backend config");
  // Process-wide and idempotent. The router goes first, as llama_backend_init may log; the CPU
  // backend is linked in, so nothing is loaded at run time.
  ggml_common::install_log_router(llama_log_set);
  static std::once_flag init_once;
  std::call_once(init_once, [] { llama_backend_init(); });
  out = std::move(backend);
  return {};
}

Error LlamaBackend::load(const sdk::LoadRequest &request, std::unique_ptr<LlamaGraph> &out) {
  return LlamaGraph::load(*this, request, out);
}

}  // namespace wasinn::llamacpp
