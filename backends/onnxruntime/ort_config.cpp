// JSON config -> OrtSessionOptions. nlohmann::json is used in its non-throwing parse mode so a
// bad config is a status, never an exception.
#include "ort_config.h"

#include <nlohmann/json.hpp>

#include <string>

#include "wasinn/plugin_thread_limit.h"

namespace wasinn_ort {
namespace {

Error invalid(std::string detail) { return {WASINN_INVALID_ARGUMENT, std::move(detail)}; }

Error read_thread_count(const nlohmann::json &obj, const char *key, std::string_view source,
                        std::optional<int> &out) {
  auto it = obj.find(key);
  if (it == obj.end()) return {};
  // is_number_integer() is false for 2.5 and for 2.0 alike: a thread count written as a float is
  // more likely a mistake than an intent.
  if (!it->is_number_integer())
    return invalid(std::string(source) + ": \"" + key + "\" must be a non-negative integer, got " +
                   it->dump());
  const int most = wasinn::max_config_threads();
  if (it->is_number_unsigned() ? it->get<uint64_t>() > static_cast<uint64_t>(most)
                               : (it->get<int64_t>() < 0 || it->get<int64_t>() > most))
    return invalid(std::string(source) + ": \"" + key + "\" must be between 0 and " +
                   std::to_string(most) + " (4 per hardware thread), got " + it->dump());
  out = static_cast<int>(it->get<int64_t>());
  return {};
}

Error read_optimization_level(const nlohmann::json &obj, std::string_view source,
                              std::optional<GraphOptimizationLevel> &out) {
  static constexpr const char *key = "graph_optimization_level";
  auto it = obj.find(key);
  if (it == obj.end()) return {};
  const std::string expected = "\"disable\", \"basic\", \"extended\" or \"all\"";
  if (!it->is_string())
    return invalid(std::string(source) + ": \"" + key + "\" must be one of " + expected +
                   ", got " + it->dump());
  const std::string &v = it->get_ref<const std::string &>();
  if (v == "disable") out = ORT_DISABLE_ALL;
  else if (v == "basic") out = ORT_ENABLE_BASIC;
  else if (v == "extended") out = ORT_ENABLE_EXTENDED;
  else if (v == "all") out = ORT_ENABLE_ALL;
  else return invalid(std::string(source) + ": \"" + key + "\" must be one of " + expected +
                      ", got " + it->dump());
  return {};
}

}  // namespace

SessionConfig SessionConfig::merged_with(const SessionConfig &over) const {
  SessionConfig r = *this;
  if (over.intra_op_threads) r.intra_op_threads = over.intra_op_threads;
  if (over.inter_op_threads) r.inter_op_threads = over.inter_op_threads;
  if (over.optimization_level) r.optimization_level = over.optimization_level;
  return r;
}

Error parse_session_config(const char *text, size_t length, std::string_view source,
                           SessionConfig &out) {
  out = {};
  if (!text || length == 0) return {};
  const std::string_view sv(text, length);
  // Third argument false: no exceptions, a discarded value on error.
  nlohmann::json j = nlohmann::json::parse(sv.begin(), sv.end(), nullptr, false);
  if (j.is_discarded()) return invalid(std::string(source) + ": malformed JSON");
  if (!j.is_object())
    return invalid(std::string(source) + ": expected a JSON object, got " +
                   std::string(j.type_name()));
  if (Error e = read_thread_count(j, "intra_op_threads", source, out.intra_op_threads)) return e;
  if (Error e = read_thread_count(j, "inter_op_threads", source, out.inter_op_threads)) return e;
  return read_optimization_level(j, source, out.optimization_level);
}

Error apply_session_config(const SessionConfig &cfg, OrtSessionOptions *options) {
  const OrtApi *api = ort_api();
  // 0 is ORT's own "choose for me", so an unset count needs no call at all.
  if (cfg.intra_op_threads)
    if (Error e = take_status(api->SetIntraOpNumThreads(options, *cfg.intra_op_threads),
                              "setting intra_op_threads"))
      return e;
  if (cfg.inter_op_threads)
    if (Error e = take_status(api->SetInterOpNumThreads(options, *cfg.inter_op_threads),
                              "setting inter_op_threads"))
      return e;
  return take_status(api->SetSessionGraphOptimizationLevel(
                         options, cfg.optimization_level.value_or(ORT_ENABLE_ALL)),
                     "setting graph_optimization_level");
}

}  // namespace wasinn_ort
