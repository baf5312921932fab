#include "ov_backend.h"

namespace wasinn_ov {

Error create_backend(const char *config, size_t config_length, std::unique_ptr<wasinn_backend> &out) {
  Config defaults;
  if (Error e = parse_config(config, config_length, "openvino backend config", defaults)) return e;
  try {
    out = std::make_unique<wasinn_backend>();
  } catch (const std::exception &e) {
    return from_exception(WASINN_RUNTIME_ERROR, "starting OpenVINO", e);
  }
  out->defaults = std::move(defaults);
  return {};
}

}  // namespace wasinn_ov
