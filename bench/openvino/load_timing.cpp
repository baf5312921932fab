// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "load_timing.h"

#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iterator>
#include <vector>

#include "scratch_dir.h"
#include "wasinn/backend_plugin.h"

namespace wasinn::bench {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

std::vector<uint8_t> slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

struct DiagText : wasinn_diag {
  std::string text;
  DiagText()
      : wasinn_diag{this,
                    [](void* self, const char* m, size_t n) { static_cast<DiagText*>(self)->text.assign(m, n); }} {}
};

// One graph_load of the IR with `config`; the graph is released at once. Returns ms, or < 0.
double timed_load(const wasinn_backend_api& api, wasinn_backend* backend, const std::vector<wasinn_bytes>& builders,
                  const std::string& config, std::string* error) {
  wasinn_load_request req{};
  req.struct_size = sizeof req;
  req.encoding = "openvino";
  req.target = WASINN_TARGET_CPU;
  req.builders = builders.data();
  req.builder_count = builders.size();
  req.config = config.data();
  req.config_length = config.size();
  wasinn_graph* g = nullptr;
  DiagText d;
  const auto t0 = Clock::now();
  const int st = api.graph_load(backend, &req, &g, &d);
  const double ms = ms_since(t0);
  if (st != WASINN_OK) {
    *error = "plugin graph_load: " + d.text;
    return -1;
  }
  api.graph_release(g);
  return ms;
}

}  // namespace

bool measure_load_times(const std::string& plugin, ov::Core& core, const std::string& xml, const std::string& bin,
                        int repetitions, LoadTimes* out, std::string* error) {
  // The same library the host loads; dlopen returns the already-loaded copy.
  void* h = dlopen(plugin.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    *error = std::string("dlopen: ") + dlerror();
    return false;
  }
  auto entry = reinterpret_cast<wasinn_backend_entry_fn>(dlsym(h, WASINN_PLUGIN_ENTRY_SYMBOL));
  if (!entry) {
    *error = plugin + " has no " + WASINN_PLUGIN_ENTRY_SYMBOL;
    return false;
  }
  const wasinn_backend_api& api = *entry();
  const std::string base = R"({"inference_precision":"f32"})";
  wasinn_backend* backend = nullptr;
  DiagText d;
  if (api.backend_create(base.data(), base.size(), &backend, &d) != WASINN_OK) {
    *error = "plugin backend_create: " + d.text;
    return false;
  }
  const auto xml_bytes = slurp(xml), bin_bytes = slurp(bin);
  const std::vector<wasinn_bytes> builders{{xml_bytes.data(), xml_bytes.size()}, {bin_bytes.data(), bin_bytes.size()}};

  std::vector<double> cold, cached, off, ncold, ncached;
  bool ok = true;
  for (int r = 0; r < repetitions && ok; ++r) {
    ScratchDir dir;  // empty: the first load is cold
    const std::string cfg = R"({"cache_dir":")" + dir.path().string() + R"("})";
    const double c1 = timed_load(api, backend, builders, cfg, error);
    const double c2 = timed_load(api, backend, builders, cfg, error);
    const double c0 = timed_load(api, backend, builders, R"({"cache_dir":""})", error);
    ok = c1 >= 0 && c2 >= 0 && c0 >= 0;
    cold.push_back(c1);
    cached.push_back(c2);
    off.push_back(c0);

    ScratchDir ndir;
    try {
      const ov::AnyMap props{ov::cache_dir(ndir.path().string()), ov::hint::inference_precision(ov::element::f32)};
      auto t0 = Clock::now();
      { auto m = core.compile_model(xml, "CPU", props); }
      ncold.push_back(ms_since(t0));
      t0 = Clock::now();
      { auto m = core.compile_model(xml, "CPU", props); }
      ncached.push_back(ms_since(t0));
    } catch (const std::exception& e) {
      *error = std::string("native compile_model: ") + e.what();
      ok = false;
    }
  }
  api.backend_destroy(backend);
  if (!ok) return false;
  out->plugin_cold_ms = median(cold);
  out->plugin_cached_ms = median(cached);
  out->plugin_no_cache_ms = median(off);
  out->native_cold_ms = median(ncold);
  out->native_cached_ms = median(ncached);
  out->repetitions = repetitions;
  return true;
}

}  // namespace wasinn::bench
