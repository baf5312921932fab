#include "ort_backend.h"

#include <cstdlib>
#include <string>

namespace wasinn_ort {

Error create_backend(const char *config, size_t config_length,
                     std::unique_ptr<wasinn_backend> &out) {
  // ONNX Runtime 1.29's POSIX telemetry queues an event per session in a SQLite cache under
  // ~/.cache/Microsoft: a guest loading models in a loop grew that file and the host's RSS without
  // bound (docs/reliability.md, soak). ORT reads the variable once, when the first OrtEnv is
  // created; a value the user set wins.
  setenv("ORT_DISABLE_TELEMETRY", "1", /*overwrite=*/0);
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
  // Drops the per-session events even when telemetry was started (by the user's choice, or by
  // another ORT user in this process) before the plugin.
  if (Error e = take_status(api->DisableTelemetryEvents(env), "disabling telemetry events")) return e;

  OrtMemoryInfo *mem = nullptr;
  if (Error e = take_status(api->CreateCpuMemoryInfo(OrtDeviceAllocator, OrtMemTypeDefault, &mem),
                            "creating the CPU memory info"))
    return e;
  backend->cpu_memory.reset(mem);

  out = std::move(backend);
  return {};
}

}  // namespace wasinn_ort
