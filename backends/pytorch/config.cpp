// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// JSON -> libtorch thread settings, read with the SDK's non-throwing config readers. ATen's
// setters throw c10::Error, caught here.
#include "config.h"

#include <ATen/Parallel.h>
#include <nlohmann/json.hpp>

#include <string>

#include "torch_error.h"
#include "wasinn/plugin_sdk/json_config.hpp"
#include "wasinn/plugin_sdk/thread_defaults.hpp"

namespace wasinn::pytorch {
namespace {

constexpr std::string_view kBackendSource = "pytorch backend config";
constexpr std::string_view kGraphSource = "pytorch graph config";

}  // namespace

Error parse_backend_config(std::string_view text, BackendConfig& out) {
  out = {};
  nlohmann::json j;
  if (Error e = sdk::parse_config_object(text, kBackendSource, j)) return e;
  if (Error e = sdk::read_thread_count(j, "num_threads", kBackendSource, out.num_threads)) return e;
  return sdk::read_thread_count(j, "interop_threads", kBackendSource, out.interop_threads);
}

Error apply_backend_config(const BackendConfig& config) {
  // 0 is libtorch's own default, so it needs no call (at::set_num_threads(0) would throw); unset,
  // the CPUs this process may use where a quota or affinity limits it (sdk/thread_defaults.hpp).
  const int threads = config.num_threads ? *config.num_threads : sdk::default_thread_count("num_threads");
  if (threads > 0) {
    try {
      at::set_num_threads(threads);
    } catch (const std::exception& e) {
      return sdk::runtime_error("setting num_threads: " + exception_summary(e));
    }
  }
  if (!config.interop_threads && sdk::limited_cpus()) {
    // A default only: a pool another libtorch user in the process already sized stays as it is.
    try {
      at::set_num_interop_threads(static_cast<int>(sdk::limited_cpus()));
    } catch (const std::exception&) {
    }
  }
  if (config.interop_threads.value_or(0) > 0) {
    const int want = *config.interop_threads;
    // libtorch sizes the inter-op pool once per process. Always try, so the first config fixes
    // the size even when it equals the default; a later one may only repeat it.
    try {
      at::set_num_interop_threads(want);
    } catch (const std::exception&) {
      const int have = at::get_num_interop_threads();
      if (have != want)
        return sdk::invalid(std::string(kBackendSource) + ": \"interop_threads\" " + std::to_string(want) +
                            " cannot be applied: libtorch's inter-op pool is already sized to " + std::to_string(have) +
                            " threads, and can be sized only once per process");
    }
  }
  return {};
}

Error check_graph_config(std::string_view text) {
  nlohmann::json j;
  if (Error e = sdk::parse_config_object(text, kGraphSource, j)) return e;
  for (const char* key : {"num_threads", "interop_threads"})
    if (j.contains(key))
      return sdk::invalid(std::string(kGraphSource) + ": \"" + key +
                          "\" is process-wide in libtorch; set it in the backend config "
                          "(--backend-config pytorch=JSON)");
  return {};
}

}  // namespace wasinn::pytorch
