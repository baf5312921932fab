#include "ort_backend.h"

#include <string>

namespace wasinn_ort {

Error create_backend(const char *config, size_t config_length,
                     std::unique_ptr<wasinn_backend> &out) {
  const OrtApi *api = ort_api();
  if (!api)
    // The library found at run time is older than the headers the plugin was built with.
    return {WASINN_RUNTIME_ERROR,
            std::string("the loaded ONNX Runtime ") + OrtGetApiBase()->GetVersionString() +
                " does not provide C API version " + std::to_string(ORT_API_VERSION)};

  auto backend = std::make_unique<wasinn_backend>();
  if (Error e = parse_session_config(config, config_length, "backend config", backend->defaults))
    return e;

  OrtEnv *env = nullptr;
  // Warning level: ORT's info messages (graph partitioning, ...) would drown the host's log.
  if (Error e = take_status(api->CreateEnv(ORT_LOGGING_LEVEL_WARNING, "wasinn", &env),
                            "creating the ONNX Runtime environment"))
    return e;
  backend->env.reset(env);

  OrtMemoryInfo *mem = nullptr;
  if (Error e = take_status(api->CreateCpuMemoryInfo(OrtDeviceAllocator, OrtMemTypeDefault, &mem),
                            "creating the CPU memory info"))
    return e;
  backend->cpu_memory.reset(mem);

  out = std::move(backend);
  return {};
}

}  // namespace wasinn_ort
