#include "backend.h"

#include <torch/version.h>

#include "graph.h"
#include "torch_log.h"

namespace wasinn::pytorch {

// The version of the headers the plugin was built with (Debian's 1.13.1 package says 1.13.0).
const char *TorchBackend::framework_version() noexcept { return TORCH_VERSION; }

Error TorchBackend::create(std::string_view config, std::unique_ptr<TorchBackend> &out) {
  // First, so that libtorch's lines from here on reach the host's logger, not stderr.
  route_torch_logs();
  TorchWarnings warnings;
  auto backend = std::make_unique<TorchBackend>();
  if (Error e = parse_backend_config(config, backend->config_)) return e;
  if (Error e = apply_backend_config(backend->config_)) return e;
  out = std::move(backend);
  return {};
}

Error TorchBackend::load(const sdk::LoadRequest &request, std::unique_ptr<TorchGraph> &out) {
  return TorchGraph::load(request, out);
}

}  // namespace wasinn::pytorch
