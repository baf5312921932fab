// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "backend.h"

#include "config.h"
#include "graph.h"

namespace wasinn::tensorflow {

const char* TfBackend::framework_version() noexcept { return WASINN_TF_VERSION; }

Error TfBackend::create(std::string_view config, std::unique_ptr<TfBackend>& out) {
  BackendConfig settings;
  if (Error e = parse_backend_config(config, settings)) return e;
  if (Error e = load_tensorflow()) return e;
  auto backend = std::make_unique<TfBackend>();
  backend->session_config_ = session_config_proto(settings);
  out = std::move(backend);
  return {};
}

Error TfBackend::load(const sdk::LoadRequest& request, std::unique_ptr<TfGraph>& out) {
  return TfGraph::load(*this, request, out);
}

}  // namespace wasinn::tensorflow
