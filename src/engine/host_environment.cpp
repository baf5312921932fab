#include "engine/host_environment.h"

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "core/log.h"

namespace wasinn {

Result<WiredEnvironment> make_environment(HostOptions& options) {
  EnvironmentOptions env_options;
  for (const auto& d : options.backend_dirs) env_options.backend_dirs.emplace_back(d);
  env_options.backend_configs = std::move(options.backend_configs);
  env_options.limits = options.limits;
  const auto isolation = parse_isolation_mode(options.isolate_loads);
  if (!isolation) {
    return make_error(Errc::invalid_argument,
                      fmt::format("isolate_loads '{}': expected auto, always or never", options.isolate_loads));
  }
  env_options.isolation.mode = *isolation;
  env_options.isolation.max_address_space_mb = options.isolated_load_max_mb;
  set_verdict_cache(env_options.isolation, options.isolated_load_cache);
  WiredEnvironment wired = wire_environment(std::move(env_options));
  NnEnvironment* env = wired.env.get();
  std::vector<std::pair<std::string, Result<NamedModel>>> models;
  for (const auto& spec : options.preloads) models.emplace_back(spec, parse_preload_spec(spec));
  for (const auto& spec : options.wasmtime_graphs) models.emplace_back(spec, parse_wasmtime_graph_spec(spec));
  for (auto& [spec, model] : models) {
    if (model) {
      for (const auto& p : model->paths) {
        std::error_code ec;
        if (!std::filesystem::exists(p, ec)) {
          logger().warn("--nn-preload {}: {} does not exist; load_by_name(\"{}\") will fail", spec, p.string(),
                       model->name);
        }
      }
    }
    Status added = model ? env->models().add(std::move(*model)) : Status(model.take_error());
    if (!added.ok()) return added.take_error();
  }
  return wired;
}

}  // namespace wasinn
