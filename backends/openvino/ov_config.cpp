// JSON config -> OpenVINO properties. nlohmann::json is used in its non-throwing parse mode so a
// bad config is a status, never an exception.
#include "ov_config.h"

#include <nlohmann/json.hpp>

#include "wasinn/plugin_thread_limit.h"

#include <climits>
#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace wasinn_ov {
namespace {

Error bad_key(std::string_view source, const char *key, const std::string &expected,
              const nlohmann::json &got) {
  return invalid(std::string(source) + ": \"" + key + "\" must be " + expected + ", got " + got.dump());
}

Error read_cache_dir(const nlohmann::json &obj, std::string_view source, Config &out) {
  auto it = obj.find("cache_dir");
  if (it == obj.end()) return {};
  if (!it->is_string()) return bad_key(source, "cache_dir", "a string (\"\" turns caching off)", *it);
  out.cache_dir = it->get<std::string>();
  return {};
}

Error read_num_threads(const nlohmann::json &obj, std::string_view source, Config &out) {
  auto it = obj.find("num_threads");
  if (it == obj.end()) return {};
  const int most = wasinn::max_config_threads();
  const std::string expected = "an integer from 0 to " + std::to_string(most) + " (4 per hardware thread)";
  if (!it->is_number_integer()) return bad_key(source, "num_threads", expected, *it);
  if (it->is_number_unsigned() ? it->get<uint64_t>() > static_cast<uint64_t>(most)
                               : (it->get<int64_t>() < 0 || it->get<int64_t>() > most))
    return bad_key(source, "num_threads", expected, *it);
  out.num_threads = static_cast<int>(it->get<int64_t>());
  return {};
}

Error read_precision(const nlohmann::json &obj, std::string_view source, Config &out) {
  auto it = obj.find("inference_precision");
  if (it == obj.end()) return {};
  const std::string expected = "\"f32\", \"f16\" or \"bf16\"";
  if (!it->is_string()) return bad_key(source, "inference_precision", expected, *it);
  const std::string &v = it->get_ref<const std::string &>();
  if (v == "f32") out.inference_precision = ov::element::f32;
  else if (v == "f16") out.inference_precision = ov::element::f16;
  else if (v == "bf16") out.inference_precision = ov::element::bf16;
  else return bad_key(source, "inference_precision", expected, *it);
  return {};
}

Error read_hint(const nlohmann::json &obj, std::string_view source, Config &out) {
  auto it = obj.find("performance_hint");
  if (it == obj.end()) return {};
  const std::string expected = "\"latency\" or \"throughput\"";
  if (!it->is_string()) return bad_key(source, "performance_hint", expected, *it);
  const std::string &v = it->get_ref<const std::string &>();
  if (v == "latency") out.performance_hint = ov::hint::PerformanceMode::LATENCY;
  else if (v == "throughput") out.performance_hint = ov::hint::PerformanceMode::THROUGHPUT;
  else return bad_key(source, "performance_hint", expected, *it);
  return {};
}

Error read_cancellable(const nlohmann::json &obj, std::string_view source, Config &out) {
  auto it = obj.find("cancellable");
  if (it == obj.end()) return {};
  if (!it->is_boolean()) return bad_key(source, "cancellable", "true or false", *it);
  out.cancellable = it->get<bool>();
  return {};
}

}  // namespace

Config Config::merged_with(const Config &over) const {
  Config r = *this;
  if (over.cache_dir) r.cache_dir = over.cache_dir;
  if (over.num_threads) r.num_threads = over.num_threads;
  if (over.inference_precision) r.inference_precision = over.inference_precision;
  if (over.performance_hint) r.performance_hint = over.performance_hint;
  if (over.cancellable) r.cancellable = over.cancellable;
  return r;
}

Error parse_config(const char *text, size_t length, std::string_view source, Config &out) {
  out = {};
  if (!text || length == 0) return {};
  const std::string_view sv(text, length);
  nlohmann::json j = nlohmann::json::parse(sv.begin(), sv.end(), nullptr, false);
  if (j.is_discarded()) return invalid(std::string(source) + ": malformed JSON");
  if (!j.is_object())
    return invalid(std::string(source) + ": expected a JSON object, got " + std::string(j.type_name()));
  if (Error e = read_cache_dir(j, source, out)) return e;
  if (Error e = read_num_threads(j, source, out)) return e;
  if (Error e = read_precision(j, source, out)) return e;
  if (Error e = read_hint(j, source, out)) return e;
  return read_cancellable(j, source, out);
}

std::string default_cache_dir() {
  if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return (std::filesystem::path(xdg) / "wasinn" / "openvino").string();
  if (const char *home = std::getenv("HOME"); home && *home)
    return (std::filesystem::path(home) / ".cache" / "wasinn" / "openvino").string();
  return {};
}

Error compile_properties(const Config &cfg, const std::string &device, ov::AnyMap &out) {
  out.clear();
  const bool explicit_dir = cfg.cache_dir.has_value();
  const std::string dir = explicit_dir ? *cfg.cache_dir : default_cache_dir();
  if (!dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (!ec) {
      out.emplace(ov::cache_dir(dir));
    } else if (explicit_dir) {
      return invalid("cache_dir \"" + dir + "\" cannot be created: " + ec.message());
    }
    // The default directory is an optimisation only: without it, models compile every time.
  }
  // inference_num_threads is a CPU property; GPU and NPU reject it, AUTO hands it to the CPU.
  if (cfg.num_threads && *cfg.num_threads > 0 && (device == "CPU" || device == "AUTO"))
    out.emplace(ov::inference_num_threads(*cfg.num_threads));
  if (cfg.inference_precision) out.emplace(ov::hint::inference_precision(*cfg.inference_precision));
  if (cfg.performance_hint) out.emplace(ov::hint::performance_mode(*cfg.performance_hint));
  return {};
}

}  // namespace wasinn_ov
