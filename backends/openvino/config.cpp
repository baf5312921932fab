// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// JSON config -> OpenVINO properties, read with the SDK's non-throwing JSON helpers.
#include "config.h"

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "plugin_common/layered_config.hpp"
#include "wasinn/plugin_sdk/json_config.hpp"
#include "wasinn/plugin_sdk/thread_defaults.hpp"

namespace wasinn::openvino {

Config Config::merged_with(const Config& over) const {
  return plugin_common::layered(*this, over, &Config::cache_dir, &Config::num_threads, &Config::inference_precision,
                                &Config::performance_hint, &Config::cancellable);
}

Error parse_config(std::string_view text, std::string_view source, Config& out) {
  out = {};
  nlohmann::json j;
  if (Error e = sdk::parse_config_object(text, source, j)) return e;
  if (Error e = sdk::read_string(j, "cache_dir", source, out.cache_dir)) return e;
  if (Error e = sdk::read_thread_count(j, "num_threads", source, out.num_threads)) return e;
  if (Error e = sdk::read_choice<ov::element::Type>(
          j, "inference_precision", source,
          {{"f32", ov::element::f32}, {"f16", ov::element::f16}, {"bf16", ov::element::bf16}}, out.inference_precision))
    return e;
  if (Error e = sdk::read_choice<ov::hint::PerformanceMode>(
          j, "performance_hint", source,
          {{"latency", ov::hint::PerformanceMode::LATENCY}, {"throughput", ov::hint::PerformanceMode::THROUGHPUT}},
          out.performance_hint))
    return e;
  return sdk::read_bool(j, "cancellable", source, out.cancellable);
}

std::string default_cache_dir() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return (std::filesystem::path(xdg) / "wasinn" / "openvino").string();
  if (const char* home = std::getenv("HOME"); home && *home)
    return (std::filesystem::path(home) / ".cache" / "wasinn" / "openvino").string();
  return {};
}

Error compile_properties(const Config& cfg, const std::string& device, ov::AnyMap& out) {
  out.clear();
  const bool explicit_dir = cfg.cache_dir.has_value();
  const std::string dir = explicit_dir ? *cfg.cache_dir : default_cache_dir();
  if (!dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (!ec) {
      out.emplace(ov::cache_dir(dir));
    } else if (explicit_dir) {
      return sdk::invalid("cache_dir \"" + dir + "\" cannot be created: " + ec.message());
    }
    // The default directory is an optimisation only: without it, models compile every time.
  }
  // inference_num_threads is a CPU property; GPU and NPU reject it, AUTO hands it to the CPU.
  // Unset: the CPUs this process may use where a quota or affinity limits it (OpenVINO's own
  // choice reads no cgroup quota: sdk/thread_defaults.hpp).
  if (device == "CPU" || device == "AUTO") {
    const int threads = cfg.num_threads ? *cfg.num_threads : sdk::default_thread_count("num_threads");
    if (threads > 0) out.emplace(ov::inference_num_threads(threads));
  }
  if (cfg.inference_precision) out.emplace(ov::hint::inference_precision(*cfg.inference_precision));
  if (cfg.performance_hint) out.emplace(ov::hint::performance_mode(*cfg.performance_hint));
  return {};
}

}  // namespace wasinn::openvino
