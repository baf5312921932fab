// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "backend.h"

#include <torch/version.h>

#include "graph.h"
#include "torch_log.h"

namespace wasinn::pytorch {

// The version of the headers the plugin was built with (Debian's 1.13.1 package says 1.13.0).
const char* TorchBackend::framework_version() noexcept { return TORCH_VERSION; }

Error TorchBackend::create(std::string_view config, std::unique_ptr<TorchBackend>& out) {
  // First, so that libtorch's lines from here on reach the host's logger, not stderr.
  route_torch_logs();
  TorchWarnings warnings;
  auto backend = std::make_unique<TorchBackend>();
  if (Error e = parse_backend_config(config, backend->config_)) return e;
  if (Error e = apply_backend_config(backend->config_)) return e;
  backend->cuda_ = find_cuda_devices();
  backend->devices_.push_back({"CPU", "CPU (libtorch)", 0, WASINN_TARGET_CPU});
  for (int i = 0; i < backend->cuda_.count; ++i)  // c10's name for it, as a graph's device says
    backend->devices_.push_back({"cuda:" + std::to_string(i), "CUDA", 0, WASINN_TARGET_GPU});
  out = std::move(backend);
  return {};
}

Error TorchBackend::load(const sdk::LoadRequest& request, std::unique_ptr<TorchGraph>& out) {
  return TorchGraph::load(*this, request, out);
}

const char* TorchBackend::target_unavailable(int32_t target) const {
  if (target == WASINN_TARGET_GPU && !cuda_.unavailable.empty()) return cuda_.unavailable.c_str();
  if (target == WASINN_TARGET_TPU) return "libtorch has no TPU support";
  return nullptr;
}

}  // namespace wasinn::pytorch
