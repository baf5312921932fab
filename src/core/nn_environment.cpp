#include "core/nn_environment.h"

#include <fmt/format.h>

#include "core/model_format.h"

namespace wasinn {

NnEnvironment::NnEnvironment(EnvironmentOptions options)
    : limits_(options.limits),
      catalog_(options.backend_dirs.empty() ? BackendCatalog::default_dirs() : options.backend_dirs,
               options.backend_configs),
      isolation_(std::move(options.isolation), catalog_.dirs(), std::move(options.backend_configs)) {}

Result<std::shared_ptr<Graph>> NnEnvironment::load_graph(Encoding encoding, Target target,
                                                         std::span<const std::span<const uint8_t>> builders,
                                                         std::span<const std::filesystem::path> paths,
                                                         std::string_view config) {
  if (builders.size() > limits_.max_builders) {
    return make_error(Errc::invalid_argument, fmt::format("{} graph builders exceed the limit of {}",
                                                          builders.size(), limits_.max_builders));
  }
  uint64_t total = 0;
  for (const auto& b : builders) total += b.size();
  if (total > limits_.max_model_bytes) {
    return make_error(Errc::too_large, fmt::format("model of {} bytes exceeds the limit of {} bytes",
                                                   total, limits_.max_model_bytes));
  }
  if (config.size() > limits_.max_config_bytes) {
    return make_error(Errc::too_large, fmt::format("config of {} bytes exceeds the limit of {} bytes",
                                                   config.size(), limits_.max_config_bytes));
  }
  if (encoding == Encoding::autodetect) {
    auto detected = detect_encoding(builders);
    if (!detected) {
      return make_error(Errc::invalid_encoding, "autodetect: the model bytes match no known format");
    }
    encoding = *detected;
  }
  auto plugin = backends().plugin_for(encoding);
  if (!plugin) return plugin.take_error();
  // A framework that crashes on this model crashes a child, not the host.
  if (const BackendManifest* manifest = backends().manifest_for(encoding);
      manifest && isolation_.applies_to(*manifest)) {
    WASINN_TRY(isolation_.check({manifest->name, encoding, target, builders, paths, config}));
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

  PluginDiag diag;
  wasinn_graph* handle = nullptr;
  const auto& api = (*plugin)->api();
  const int status = api.graph_load((*plugin)->backend(), &request, &handle, diag.get());
  if (status != WASINN_OK) return diag.to_error(status, fmt::format("load ({})", encoding_str));
  if (!handle) return make_error(Errc::runtime_error, "backend returned no graph");
  return std::make_shared<Graph>(*plugin, handle, encoding);
}

Result<std::shared_ptr<Graph>> NnEnvironment::load_named(std::string_view name, std::string_view config) {
  return models_.get(name, config,
                     [this](Encoding e, Target t, std::span<const std::span<const uint8_t>> b,
                            std::span<const std::filesystem::path> p, std::string_view c) {
                       return load_graph(e, t, b, p, c);
                     });
}

}  // namespace wasinn
