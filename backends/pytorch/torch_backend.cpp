// The process-wide backend object: created once per process by the host, holding the config.
#include <torch/version.h>

#include <memory>

#include "torch_config.h"
#include "torch_ops.h"

namespace wasinn_torch {

// The version of the headers the plugin was built with (Debian's 1.13.1 package says 1.13.0).
const char *framework_version() { return TORCH_VERSION; }

Error create_backend(const char *config, size_t config_length, wasinn_backend **out) {
  auto backend = std::make_unique<wasinn_backend>();
  if (Error e = parse_backend_config(config, config_length, backend->config)) return e;
  if (Error e = apply_backend_config(backend->config)) return e;
  *out = backend.release();
  return {};
}

void destroy_backend(wasinn_backend *backend) { delete backend; }

}  // namespace wasinn_torch
