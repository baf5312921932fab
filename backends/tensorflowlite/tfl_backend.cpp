#include "tfl_backend.h"

#include <nlohmann/json.hpp>

namespace wasinn_tfl {

Error create_backend(const char *config, size_t config_length,
                     std::unique_ptr<wasinn_backend> &out) {
  // No backend-wide settings yet; reject any rather than ignore a typo silently.
  if (config && config_length) {
    const auto j = nlohmann::json::parse(config, config + config_length, nullptr, false);
    if (j.is_discarded() || !j.is_object())
      return invalid("tensorflowlite backend config is not a JSON object");
    if (!j.empty())
      return invalid("tensorflowlite backend takes no settings, got \"" + j.begin().key() + "\"");
  }
  auto b = std::make_unique<wasinn_backend>();
  LiteRtEnvironment env = nullptr;
  if (LiteRtStatus st = LiteRtCreateEnvironment(0, nullptr, &env))
    return litert_error(st, "creating the LiteRT environment");
  b->env.reset(env);

  LiteRtParamIndex n = 0;
  if (LiteRtStatus st = LiteRtGetNumAccelerators(env, &n))
    return litert_error(st, "listing LiteRT accelerators");
  for (LiteRtParamIndex i = 0; i < n; ++i) {
    LiteRtAccelerator acc = nullptr;
    LiteRtHwAcceleratorSet hw = 0;
    const char *name = nullptr;
    if (LiteRtGetAccelerator(env, i, &acc) != kLiteRtStatusOk ||
        LiteRtGetAcceleratorHardwareSupport(acc, &hw) != kLiteRtStatusOk)
      continue;
    b->hardware |= hw;
    if (LiteRtGetAcceleratorName(acc, &name) == kLiteRtStatusOk && name) {
      if (!b->accelerator_names.empty()) b->accelerator_names += ", ";
      b->accelerator_names += name;
    }
  }
  if (!(b->hardware & kLiteRtHwAcceleratorCpu))
    return {WASINN_RUNTIME_ERROR, "LiteRT registered no CPU accelerator"};
  out = std::move(b);
  return {};
}

Error accelerators_for(const wasinn_backend &backend, int32_t target,
                       LiteRtHwAcceleratorSet &out) {
  const std::string found = "LiteRT registered only " + backend.accelerator_names;
  switch (target) {
    case WASINN_TARGET_CPU: out = kLiteRtHwAcceleratorCpu; return {};
    case WASINN_TARGET_AUTO: out = backend.hardware; return {};
    case WASINN_TARGET_GPU:
      if (backend.hardware & kLiteRtHwAcceleratorGpu) {
        out = kLiteRtHwAcceleratorGpu;
        return {};
      }
      return {WASINN_UNSUPPORTED_OPERATION,
              "target gpu: no GPU here for TensorFlow Lite (" + found +
                  "; its GPU accelerators, libLiteRtWebGpuAccelerator.so and the OpenCL/Vulkan "
                  "ones, found no GPU device they could open); use target cpu"};
    case WASINN_TARGET_TPU:
      if (backend.hardware & kLiteRtHwAcceleratorNpu) {
        out = kLiteRtHwAcceleratorNpu;
        return {};
      }
      return {WASINN_UNSUPPORTED_OPERATION,
              "target tpu: no NPU/TPU here for TensorFlow Lite (" + found +
                  "; LiteRT reaches NPUs only through a vendor dispatch library, and none is "
                  "installed); use target cpu"};
    default: return invalid("unknown execution target " + std::to_string(target));
  }
}

}  // namespace wasinn_tfl
