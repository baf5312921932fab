// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Model load times of the OpenVINO backend: a cold load (empty cache directory: read, compile,
// write the compiled blob), a cached load (the same model again: the blob is imported instead)
// and a load with caching off, each the median over fresh repetitions; plus native OpenVINO's
// compile_model from the file, cold and cached, for comparison. The plugin is driven through
// its C table, as the host drives it. Plain functions; one thread.
#pragma once

#include <string>

#include <openvino/runtime/core.hpp>

namespace wasinn::bench {

struct LoadTimes {
  double plugin_cold_ms = 0;
  double plugin_cached_ms = 0;
  double plugin_no_cache_ms = 0;
  double native_cold_ms = 0;
  double native_cached_ms = 0;
  int repetitions = 0;
};

// `plugin` is the path of libwasinn_backend_openvino.so; xml and bin are the IR files.
bool measure_load_times(const std::string& plugin, ov::Core& core, const std::string& xml, const std::string& bin,
                        int repetitions, LoadTimes* out, std::string* error);

}  // namespace wasinn::bench
