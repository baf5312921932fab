// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "backend.h"

#include "graph.h"

#include <cstdlib>
#include <string>

namespace wasinn::onnxruntime {
namespace {

wasinn_log_level to_wasinn_level(OrtLoggingLevel level) {
  switch (level) {
    case ORT_LOGGING_LEVEL_VERBOSE: return WASINN_LOG_DEBUG;
    case ORT_LOGGING_LEVEL_INFO: return WASINN_LOG_INFO;
    case ORT_LOGGING_LEVEL_WARNING: return WASINN_LOG_WARN;
    default: return WASINN_LOG_ERROR;  // ERROR and FATAL
  }
}

OrtLoggingLevel threshold_for_ort() {
  switch (sdk::log_threshold()) {
    case WASINN_LOG_TRACE:
    case WASINN_LOG_DEBUG: return ORT_LOGGING_LEVEL_VERBOSE;
    case WASINN_LOG_INFO: return ORT_LOGGING_LEVEL_INFO;
    case WASINN_LOG_WARN: return ORT_LOGGING_LEVEL_WARNING;
    case WASINN_LOG_ERROR: return ORT_LOGGING_LEVEL_ERROR;
    default: return ORT_LOGGING_LEVEL_FATAL;
  }
}

thread_local const std::atomic<bool>* t_run_cancelled = nullptr;

void route_ort_line(void*, OrtLoggingLevel severity, const char*, const char*, const char* where, const char* message) {
  wasinn_log_level level = to_wasinn_level(severity);
  if (t_run_cancelled && t_run_cancelled->load()) level = WASINN_LOG_DEBUG;
  if (!sdk::log_enabled(level)) return;
  sdk::log(level, std::string(message ? message : "") + (where && *where ? std::string(" (") + where + ")" : ""));
}

}  // namespace

CancellableRunLog::CancellableRunLog(const std::atomic<bool>& cancelled) : before_(t_run_cancelled) {
  t_run_cancelled = &cancelled;
}

CancellableRunLog::~CancellableRunLog() { t_run_cancelled = before_; }

const char* OrtBackend::framework_version() noexcept { return OrtGetApiBase()->GetVersionString(); }

Error OrtBackend::create(std::string_view config, std::unique_ptr<OrtBackend>& out) {
  // ONNX Runtime 1.29's POSIX telemetry queues an event per session in a SQLite cache under
  // ~/.cache/Microsoft: a guest loading models in a loop grew that file and the host's RSS without
  // bound (docs/reliability.md, soak). ORT reads the variable once, when the first OrtEnv is
  // created; a value the user set wins.
  setenv("ORT_DISABLE_TELEMETRY", "1", /*overwrite=*/0);
  const OrtApi* api = ort_api();
  if (!api)
    // The library found at run time is older than the headers the plugin was built with.
    return sdk::runtime_error(std::string("the loaded ONNX Runtime ") + OrtGetApiBase()->GetVersionString() +
                              " does not provide C API version " + std::to_string(ORT_API_VERSION));

  auto backend = std::make_unique<OrtBackend>();
  if (Error e = parse_session_config(config, "backend config", backend->defaults_)) return e;

  OrtEnv* env = nullptr;
  // ORT's lines go to the host's logger, produced only from the level the host shows.
  if (Error e =
          take_status(api->CreateEnvWithCustomLogger(route_ort_line, nullptr, threshold_for_ort(), "wasinn", &env),
                      "creating the ONNX Runtime environment"))
    return e;
  backend->env_.reset(env);
  // Drops the per-session events even when telemetry was started (by the user's choice, or by
  // another ORT user in this process) before the plugin.
  if (Error e = take_status(api->DisableTelemetryEvents(env), "disabling telemetry events")) return e;

  OrtMemoryInfo* mem = nullptr;
  if (Error e = take_status(api->CreateCpuMemoryInfo(OrtDeviceAllocator, OrtMemTypeDefault, &mem),
                            "creating the CPU memory info"))
    return e;
  backend->cpu_memory_.reset(mem);

  backend->cuda_.find(env);
  const CudaProvider& cuda = backend->cuda_;
  // The device report (devices(), target_unavailable()) says what serves each target; the
  // description adds which CUDA provider and driver, when they serve gpu.
  backend->devices_.push_back({"CPU", "CPU", 0, WASINN_TARGET_CPU});
  if (cuda.unavailable().empty()) {
    for (size_t i = 0; i < cuda.devices().size(); ++i) {
      const CudaDevice& d = cuda.devices()[i];
      backend->devices_.push_back(
          {"CUDA" + std::to_string(i) + " (" + d.name + ")", "CUDA", d.memory_bytes, WASINN_TARGET_GPU});
    }
    backend->description_ = "gpu: CUDA (" + cuda.summary() + ")";
  }
  sdk::log_own(WASINN_LOG_DEBUG, cuda.unavailable().empty() ? backend->description_ : "no gpu: " + cuda.unavailable());

  out = std::move(backend);
  return {};
}

const char* OrtBackend::target_unavailable(int32_t target) const {
  if (target == WASINN_TARGET_GPU) return cuda_.unavailable().empty() ? nullptr : cuda_.unavailable().c_str();
  if (target == WASINN_TARGET_TPU) return "ONNX Runtime has no TPU execution provider here";
  return nullptr;
}

Error OrtBackend::load(const sdk::LoadRequest& request, std::unique_ptr<OrtGraph>& out) {
  return OrtGraph::load(*this, request, out);
}

}  // namespace wasinn::onnxruntime
