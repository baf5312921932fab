// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// JSON configs, read with the SDK's helpers (nlohmann::json in its non-throwing mode).
#include "config.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>

#include "wasinn/plugin_sdk/json_config.hpp"
#include "wasinn/plugin_sdk/thread_defaults.hpp"

namespace wasinn::tensorflow {
namespace {

constexpr std::string_view kBackendSource = "backend config";
constexpr std::string_view kGraphSource = "graph config";

Error read_string_list(const nlohmann::json& obj, const char* key, std::vector<std::string>& out) {
  auto it = obj.find(key);
  if (it == obj.end()) return {};
  const auto refuse = [&] {
    return sdk::invalid(std::string(kGraphSource) + ": \"" + key + "\" must be a list of strings, got " + it->dump());
  };
  if (!it->is_array()) return refuse();
  out.clear();
  for (const auto& s : *it) {
    if (!s.is_string()) return refuse();
    out.push_back(s.get<std::string>());
  }
  return {};
}

void put_varint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

}  // namespace

Error parse_backend_config(std::string_view text, BackendConfig& out) {
  out = {};
  nlohmann::json j;
  if (Error e = sdk::parse_config_object(text, kBackendSource, j)) return e;
  if (Error e = sdk::refuse_unknown_keys(j, kBackendSource, "tensorflow", {"intra_op_threads", "inter_op_threads"}))
    return e;
  std::optional<int> intra, inter;
  if (Error e = sdk::read_thread_count(j, "intra_op_threads", kBackendSource, intra)) return e;
  if (Error e = sdk::read_thread_count(j, "inter_op_threads", kBackendSource, inter)) return e;
  // Unset: the CPUs this process may use where a quota or affinity limits it (TensorFlow sizes
  // both pools by the schedulable CPUs and reads no cgroup quota: sdk/thread_defaults.hpp).
  out.intra_op_threads = intra ? *intra : sdk::default_thread_count("intra_op_threads");
  out.inter_op_threads = inter ? *inter : static_cast<int>(sdk::limited_cpus());
  return {};
}

// ConfigProto fields 2 (intra_op_parallelism_threads) and 5 (inter_op_parallelism_threads),
// per tensorflow/core/protobuf/config.proto.
std::string session_config_proto(const BackendConfig& config) {
  std::string out;
  if (config.intra_op_threads > 0) {
    out.push_back(static_cast<char>(2 << 3));
    put_varint(out, static_cast<uint64_t>(config.intra_op_threads));
  }
  if (config.inter_op_threads > 0) {
    out.push_back(static_cast<char>(5 << 3));
    put_varint(out, static_cast<uint64_t>(config.inter_op_threads));
  }
  return out;
}

Error parse_graph_config(std::string_view text, GraphConfig& out) {
  out = {};
  nlohmann::json j;
  if (Error e = sdk::parse_config_object(text, kGraphSource, j)) return e;
  if (Error e = sdk::refuse_unknown_keys(j, kGraphSource, "tensorflow", {"signature", "tags", "inputs", "outputs"}))
    return e;
  std::optional<std::string> signature;
  if (Error e = sdk::read_string(j, "signature", kGraphSource, signature)) return e;
  if (signature) out.signature = *signature;
  if (Error e = read_string_list(j, "tags", out.tags)) return e;
  if (Error e = read_string_list(j, "inputs", out.inputs)) return e;
  return read_string_list(j, "outputs", out.outputs);
}

}  // namespace wasinn::tensorflow
