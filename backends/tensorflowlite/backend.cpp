#include "backend.h"

#include "config.h"
#include "graph.h"
#include "litert_log.h"

namespace wasinn::tensorflowlite {

// libLiteRt.so exports no version query; the version is the one scripts/deps pinned.
const char *TfliteBackend::framework_version() noexcept { return "LiteRT " WASINN_LITERT_VERSION; }

Error TfliteBackend::create(std::string_view config, std::unique_ptr<TfliteBackend> &out) {
  if (Error e = parse_backend_config(config)) return e;
  route_litert_logs();  // before LiteRtCreateEnvironment, LiteRT's first lines
  auto b = std::make_unique<TfliteBackend>();
  LiteRtEnvironment env = nullptr;
  if (LiteRtStatus st = LiteRtCreateEnvironment(0, nullptr, &env))
    return litert_error(st, "creating the LiteRT environment");
  b->env_.reset(env);

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
    b->hardware_ |= hw;
    if (LiteRtGetAcceleratorName(acc, &name) == kLiteRtStatusOk && name) {
      if (!b->accelerator_names_.empty()) b->accelerator_names_ += ", ";
      b->accelerator_names_ += name;
    }
  }
  if (!(b->hardware_ & kLiteRtHwAcceleratorCpu))
    return sdk::runtime_error("LiteRT registered no CPU accelerator");
  out = std::move(b);
  return {};
}

Error TfliteBackend::load(const sdk::LoadRequest &request, std::unique_ptr<TfliteGraph> &out) {
  return TfliteGraph::load(*this, request, out);
}

Error TfliteBackend::accelerators_for(int32_t target, LiteRtHwAcceleratorSet &out) const {
  const std::string found = "LiteRT registered only " + accelerator_names_;
  switch (target) {
    case WASINN_TARGET_CPU: out = kLiteRtHwAcceleratorCpu; return {};
    case WASINN_TARGET_AUTO: out = hardware_; return {};
    case WASINN_TARGET_GPU:
      if (hardware_ & kLiteRtHwAcceleratorGpu) {
        out = kLiteRtHwAcceleratorGpu;
        return {};
      }
      return sdk::unsupported(
          "target gpu: no GPU here for TensorFlow Lite (" + found +
          "; its GPU accelerators, libLiteRtWebGpuAccelerator.so and the OpenCL/Vulkan ones, "
          "found no GPU device they could open); use target cpu");
    case WASINN_TARGET_TPU:
      if (hardware_ & kLiteRtHwAcceleratorNpu) {
        out = kLiteRtHwAcceleratorNpu;
        return {};
      }
      return sdk::unsupported(
          "target tpu: no NPU/TPU here for TensorFlow Lite (" + found +
          "; LiteRT reaches NPUs only through a vendor dispatch library, and none is installed); "
          "use target cpu");
    default: return sdk::invalid("unknown execution target " + std::to_string(target));
  }
}

}  // namespace wasinn::tensorflowlite
