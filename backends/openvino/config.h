// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The JSON configuration of the backend (backend_create, from `wasinn run --backend-config
// openvino=JSON`) and of one graph (the load request's config, e.g. load_by_name_with_config),
// and the OpenVINO compile properties they become.
#pragma once

#include <openvino/runtime/properties.hpp>

#include <optional>
#include <string>
#include <string_view>

#include "ov_exception.h"

namespace wasinn::openvino {

// Keys (all optional; unknown keys are ignored so one config can serve several backends):
//   "cache_dir":           string; compiled models are cached there; "" turns caching off.
//                          Default: $XDG_CACHE_HOME/wasinn/openvino, else ~/.cache/wasinn/openvino.
//   "num_threads":         int >= 0; threads of one inference on the CPU; 0 = OpenVINO's choice;
//                          unset: OpenVINO's, or the CPUs this process may use where a cgroup
//                          quota or affinity allows fewer than the machine has.
//   "inference_precision": "f32" | "f16" | "bf16"; unset = OpenVINO's choice, which is bf16 or
//                          f16 on CPUs that have them, so set "f32" for results equal to f32 math.
//   "performance_hint":    "latency" | "throughput"; unset = OpenVINO's (latency on the CPU).
//   "cancellable":         bool; true: compute runs as start_async + wait, which OpenVINO can
//                          cancel (the host's compute deadline needs that); false: infer() on
//                          the calling thread, saving one thread hand-off per compute (15-75 µs
//                          here) but ignoring cancel. Unset: true exactly when the host may
//                          cancel (WASINN_LOAD_MAY_CANCEL: it has a compute budget).
// A graph config's fields replace the backend config's, field by field.
struct Config {
  std::optional<std::string> cache_dir;
  std::optional<int> num_threads;
  std::optional<ov::element::Type> inference_precision;
  std::optional<ov::hint::PerformanceMode> performance_hint;
  std::optional<bool> cancellable;

  Config merged_with(const Config& over) const;
};

// Parses text ("" means "no config"). `source` names the config in details, e.g. "graph
// config". Malformed JSON, a non-object, or a key of the wrong type or range is
// INVALID_ARGUMENT naming the key.
Error parse_config(std::string_view text, std::string_view source, Config& out);

// The cache directory used when no config names one; "" when there is no home directory.
std::string default_cache_dir();

// Properties for compile_model on `device`. A cache directory that cannot be created is an
// error when the config named it, and turns caching off when it is the default.
Error compile_properties(const Config& cfg, const std::string& device, ov::AnyMap& out);

}  // namespace wasinn::openvino
