// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "backend.h"

#include <llama.h>
#include <mtmd-helper.h>

#include <exception>
#include <mutex>
#include <string>

#include "graph.h"
#include "ggml_common/log_router.h"

#define WASINN_LLAMA_STR2(x) #x
#define WASINN_LLAMA_STR(x) WASINN_LLAMA_STR2(x)

namespace wasinn::llamacpp {

// The SDK fills the device entries of the plugin table only for a backend with both hooks.
static_assert(sdk::WithDevices<LlamaBackend>);

using ggml_common::note;

void log_ignored(const std::vector<IgnoredKey>& ignored, const char* where) {
  for (const auto& k : ignored)
    note(WASINN_LOG_WARN, std::string(where) + ": ignoring config key \"" + k.key + "\" (" + k.reason + ")");
}

const char* LlamaBackend::framework_version() noexcept {
  return "llama.cpp b" WASINN_LLAMA_STR(WASINN_LLAMA_BUILD_NUMBER) " (" WASINN_LLAMA_COMMIT ")";
}

Error LlamaBackend::create(std::string_view config, std::unique_ptr<LlamaBackend>& out) {
  auto backend = std::make_unique<LlamaBackend>();
  std::vector<IgnoredKey> ignored;
  if (Error e = parse_backend_config(config, backend->config_, ignored)) return e;
  log_ignored(ignored, "backend config");
  // Process-wide and idempotent. The router goes first, as loading the CPU module and
  // llama_backend_init may log. The GPU modules wait for the first gpu/auto load or device
  // report (devices.h), so a process that only runs on the CPU never starts a Vulkan instance.
  ggml_common::install_log_router(llama_log_set);
  ggml_common::install_log_router(mtmd_helper_log_set);  // libmtmd and its CLIP encoder (vision.cpp)
  try {
    backend->devices_ = &DeviceSet::get();
  } catch (const std::exception& e) {
    return sdk::runtime_error(std::string("llamacpp: ") + e.what());
  }
  static std::once_flag init_once;
  std::call_once(init_once, [] { llama_backend_init(); });
  out = std::move(backend);
  return {};
}

const char* LlamaBackend::target_unavailable(int32_t target) const {
  if (target == WASINN_TARGET_TPU) return "llama.cpp has no TPU backend";
  if (target == WASINN_TARGET_GPU && !devices_->gpu_unavailable().empty()) return devices_->gpu_unavailable().c_str();
  return nullptr;
}

Error LlamaBackend::load(const sdk::LoadRequest& request, std::unique_ptr<LlamaGraph>& out) {
  return LlamaGraph::load(*this, request, out);
}

}  // namespace wasinn::llamacpp
