// JSON -> libtorch thread settings. nlohmann::json runs in its non-throwing parse mode, so a bad
// config is a status; ATen's setters throw c10::Error, caught here.
#include "torch_config.h"

#include <ATen/Parallel.h>
#include <nlohmann/json.hpp>

#include <climits>
#include <string>

namespace wasinn_torch {
namespace {

Error parse_object(const char *text, size_t length, const char *source, nlohmann::json &out) {
  const std::string_view sv(text, length);
  out = nlohmann::json::parse(sv.begin(), sv.end(), nullptr, false);
  if (out.is_discarded()) return invalid(std::string(source) + ": malformed JSON");
  if (!out.is_object())
    return invalid(std::string(source) + ": expected a JSON object, got " + out.type_name());
  return {};
}

Error read_thread_count(const nlohmann::json &obj, const char *key, std::optional<int> &out) {
  auto it = obj.find(key);
  if (it == obj.end()) return {};
  // 2.0 is rejected with 2.5: a thread count written as a float is more likely a mistake.
  const bool in_range = it->is_number_unsigned()
                            ? it->get<uint64_t>() >= 1 && it->get<uint64_t>() <= INT_MAX
                            : it->is_number_integer() && it->get<int64_t>() >= 1 &&
                                  it->get<int64_t>() <= INT_MAX;
  if (!in_range)
    return invalid(std::string("pytorch backend config: \"") + key +
                   "\" must be an integer from 1 to " + std::to_string(INT_MAX) + ", got " +
                   it->dump());
  out = static_cast<int>(it->get<int64_t>());
  return {};
}

}  // namespace

Error parse_backend_config(const char *text, size_t length, BackendConfig &out) {
  out = {};
  if (!text || length == 0) return {};
  nlohmann::json j;
  if (Error e = parse_object(text, length, "pytorch backend config", j)) return e;
  if (Error e = read_thread_count(j, "num_threads", out.num_threads)) return e;
  return read_thread_count(j, "interop_threads", out.interop_threads);
}

Error apply_backend_config(const BackendConfig &config) {
  if (config.num_threads) {
    try {
      at::set_num_threads(*config.num_threads);
    } catch (const std::exception &e) {
      return {WASINN_RUNTIME_ERROR, "setting num_threads: " + exception_summary(e)};
    }
  }
  if (config.interop_threads) {
    const int want = *config.interop_threads;
    // libtorch sizes the inter-op pool once per process. Always try, so the first config fixes
    // the size even when it equals the default; a later one may only repeat it.
    try {
      at::set_num_interop_threads(want);
    } catch (const std::exception &) {
      const int have = at::get_num_interop_threads();
      if (have != want)
        return invalid("pytorch backend config: \"interop_threads\" " + std::to_string(want) +
                       " cannot be applied: libtorch's inter-op pool is already sized to " +
                       std::to_string(have) + " threads, and can be sized only once per process");
    }
  }
  return {};
}

Error check_graph_config(const char *text, size_t length) {
  if (!text || length == 0) return {};
  nlohmann::json j;
  if (Error e = parse_object(text, length, "pytorch graph config", j)) return e;
  for (const char *key : {"num_threads", "interop_threads"})
    if (j.contains(key))
      return invalid(std::string("pytorch graph config: \"") + key +
                     "\" is process-wide in libtorch; set it in the backend config "
                     "(--backend-config pytorch=JSON)");
  return {};
}

}  // namespace wasinn_torch
