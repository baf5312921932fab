// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "core/nn_environment.h"

#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "core/graph_properties.h"
#include "base/load_progress.h"
#include "core/plugin_call.h"
#include "core/model_format.h"
#include "base/sha256.h"
#include "wasinn/plugin_sdk/url.hpp"

namespace wasinn {

namespace {

// What a load is of, for its log lines: a remote model by its name and the "url" of its JSON spec
// (credentials redacted; the spec's headers are never shown), the files, or the bytes a guest passed.
std::string describe_model(Encoding encoding, std::span<const std::span<const uint8_t>> builders,
                           std::span<const std::filesystem::path> paths, std::string_view model_name) {
  if (encoding == Encoding::remote) {
    std::string what = model_name.empty() ? "a remote model" : fmt::format("remote model '{}'", model_name);
    if (builders.size() == 1) {
      const auto spec = nlohmann::json::parse(builders[0].begin(), builders[0].end(), nullptr, false);
      if (spec.is_object() && spec.contains("url") && spec["url"].is_string())
        what += " at " + sdk::redact_credentials(spec["url"].get<std::string>());
    }
    return what;
  }
  if (paths.empty()) return "guest bytes";
  std::vector<std::string> names;
  for (const auto& p : paths) names.push_back(p.string());
  return fmt::format("{}", fmt::join(names, " + "));
}

// The builders' bytes, plus the files of a directory passed by path (a SavedModel).
uint64_t model_bytes(std::span<const std::span<const uint8_t>> builders, std::span<const std::filesystem::path> paths) {
  uint64_t total = 0;
  for (const auto& b : builders) total += b.size();
  for (const auto& p : paths) {
    std::error_code ec;
    if (!std::filesystem::is_directory(p, ec)) continue;
    for (auto it = std::filesystem::recursive_directory_iterator(p, ec); !ec && it != std::filesystem::end(it);
         it.increment(ec)) {
      std::error_code size_ec;
      if (it->is_regular_file(size_ec)) total += it->file_size(size_ec);
    }
  }
  return total;
}

}  // namespace

NnEnvironment::NnEnvironment(Limits limits, std::shared_ptr<BackendSource> backends, std::shared_ptr<LoadGate> gate)
    : limits_(limits), backends_(std::move(backends)), gate_(std::move(gate)) {}

Result<std::shared_ptr<Graph>> NnEnvironment::load_graph(Encoding encoding, Target target,
                                                         std::span<const std::span<const uint8_t>> builders,
                                                         std::span<const std::filesystem::path> paths,
                                                         std::string_view config, std::string_view model_name,
                                                         std::optional<Deadline> deadline) {
  if (builders.size() > limits_.max_builders) {
    return make_error(Errc::invalid_argument,
                      fmt::format("{} graph builders exceed the limit of {}", builders.size(), limits_.max_builders));
  }
  uint64_t total = 0;
  for (const auto& b : builders) total += b.size();
  if (total > limits_.max_model_bytes) {
    return make_error(Errc::too_large,
                      fmt::format("model of {} bytes exceeds the limit of {} bytes", total, limits_.max_model_bytes));
  }
  if (config.size() > limits_.max_config_bytes) {
    return make_error(Errc::too_large, fmt::format("config of {} bytes exceeds the limit of {} bytes", config.size(),
                                                   limits_.max_config_bytes));
  }
  if (encoding == Encoding::autodetect) {
    auto detected = detect_encoding(builders);
    if (!detected) {
      return make_error(Errc::invalid_encoding, std::string(kNoKnownFormat));
    }
    encoding = *detected;
  } else {
    encoding = refine_encoding(encoding, builders);
    // Before any framework sees them: its own error for another format's bytes misleads.
    WASINN_TRY(check_encoding_fits(encoding, builders));
  }
  // A guest's bytes: the same model loaded already (by this guest, another instance or thread)
  // is shared. Named models and files are shared by the registry instead.
  std::optional<LoadedGraphs::Digest> bytes_digest, shared_key;
  if (paths.empty() && !builders.empty() && !std::getenv("WASINN_NO_SHARE")) {
    bytes_digest = builders_digest(builders);
    shared_key = LoadedGraphs::key_of(encoding, target, config, *bytes_digest);
    if (auto graph = loaded_graphs_.find(*shared_key)) return graph;
  }
  // Timed from here: the first load with a backend also loads its framework, the slow part.
  std::optional<LoadProgress> progress;
  const std::optional<BackendIdentity> identity = backends_->identity_for(encoding);
  // A remote model's one builder is its spec, whose size is no model's.
  if (identity)
    progress.emplace(describe_model(encoding, builders, paths, model_name),
                     encoding == Encoding::remote ? std::nullopt : std::optional(model_bytes(builders, paths)),
                     identity->name);
  // The load itself; its line then says where the graph runs, or why the load failed.
  std::string device;
  auto graph = [&]() -> Result<std::shared_ptr<Graph>> {
    auto plugin = backends_->backend_for(encoding);
    if (!plugin) return plugin.take_error();
    // A framework that crashes on this model crashes a child, not the host.
    if (identity && gate_ && gate_->applies_to(*identity)) {
      WASINN_TRY(gate_->check({identity->name, encoding, target, builders, paths, config, identity->library,
                               (*plugin)->framework_version(), bytes_digest, deadline}));
    }

    std::vector<wasinn_bytes> raw;
    raw.reserve(builders.size());
    for (const auto& b : builders) raw.push_back({b.data(), b.size()});
    std::vector<std::string> path_strings;
    std::vector<const char*> path_ptrs;
    if (!paths.empty()) {
      for (const auto& p : paths) path_strings.push_back(p.string());
      for (const auto& s : path_strings) path_ptrs.push_back(s.c_str());
    }
    const std::string encoding_str(encoding_name(encoding));
    wasinn_load_request request{};
    request.struct_size = sizeof(request);
    request.encoding = encoding_str.c_str();
    request.target = static_cast<int32_t>(target);
    request.builders = raw.data();
    request.builder_count = raw.size();
    request.paths = path_ptrs.empty() ? nullptr : path_ptrs.data();
    request.config = config.empty() ? nullptr : config.data();
    request.config_length = config.size();
    if (limits_.max_compute_ms > 0) request.flags |= WASINN_LOAD_MAY_CANCEL;

    PluginDiag diag;
    wasinn_graph* handle = nullptr;
    const auto& api = (*plugin)->api();
    const int status = call_plugin((*plugin)->name(), "graph_load",
                                   [&] { return api.graph_load((*plugin)->backend(), &request, &handle, diag.get()); });
    if (status != WASINN_OK) return diag.to_error(status, fmt::format("load ({})", encoding_str));
    if (!handle) return make_error(Errc::runtime_error, "backend returned no graph");
    std::vector<GraphProperty> properties = query_properties(**plugin, handle, encoding);
    device = device_of(properties);
    std::shared_ptr<GraphMetrics> series = metrics_.series(
        (*plugin)->name(), graph_label(model_name, encoding, bytes_digest ? &*bytes_digest : nullptr, paths), device);
    return std::make_shared<Graph>(*plugin, handle, encoding, std::move(properties), std::move(series));
  }();
  if (progress) progress->finish(graph.ok(), device, graph.ok() ? std::string_view() : graph.error().detail);
  if (!graph) return graph;
  if (shared_key) return loaded_graphs_.remember(*shared_key, std::move(*graph));
  return graph;
}

Result<std::shared_ptr<Graph>> NnEnvironment::load_named(std::string_view name, std::string_view config,
                                                         std::optional<Deadline> deadline) {
  return models_.get(name, config,
                     [this, name, deadline](Encoding e, Target t, std::span<const std::span<const uint8_t>> b,
                                            std::span<const std::filesystem::path> p,
                                            std::string_view c) { return load_graph(e, t, b, p, c, name, deadline); });
}

void NnEnvironment::count_load(const Result<std::shared_ptr<Graph>>& graph, Encoding encoding, std::string_view name) {
  if (graph) {
    graph.value()->metrics().count_load({});
    return;
  }
  if (!name.empty()) {
    for (const auto& model : models_.list()) {
      if (model.name == name) encoding = model.encoding;
    }
  }
  const std::optional<BackendIdentity> identity = backends_->identity_for(encoding);
  metrics_
      .series(identity ? std::string_view(identity->name) : std::string_view("none"),
              graph_label(name, encoding, nullptr, {}))
      ->count_load(graph.error());
}

}  // namespace wasinn
