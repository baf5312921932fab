// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "root/host_environment.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "core/model_files.h"

namespace wasinn {

namespace {

namespace fs = std::filesystem;

// A named model's files are checked before any guest runs: a path that is not there, or a
// directory where the backend needs a file, is the operator's mistake, said at start under the
// flag that registered it (`flag`), not a guest's failed load_by_name later.
Status check_model_paths(const NamedModel& model, const std::string& flag, const std::string& hint) {
  for (const auto& p : model.paths) {
    std::error_code ec;
    const auto status = fs::status(p, ec);
    if (!fs::exists(status)) {
      return make_error(Errc::not_found, fmt::format("{}: {} does not exist{}", flag, p.string(), hint));
    }
    // Only TensorFlow takes a directory (a SavedModel); every other backend reads one file.
    if (fs::is_directory(status) && model.encoding != Encoding::tensorflow) {
      auto inside = resolve_model_files(std::span(&p, 1), model.encoding);
      std::string found;
      for (const auto& f : inside ? inside->paths : std::vector<fs::path>{})
        found += (found.empty() ? "" : ":") + f.string();
      return make_error(Errc::invalid_argument, fmt::format("{}: {} is a directory; give the model file{}", flag,
                                                            p.string(), found.empty() ? " in it" : " in it: " + found));
    }
  }
  return {};
}

// A remote model's spec (its URL and options over the remote backend's config) is checked by the
// remote plugin itself (model_spec_check), so a URL it would refuse at the guest's load is refused
// before any guest runs. Nothing is contacted.
Status check_remote_spec(BackendSource& backends, const NamedModel& model) {
  auto backend = backends.backend_for(model.encoding);
  if (!backend)
    return make_error(backend.error().code, fmt::format("remote model '{}': {}", model.name, backend.error().detail));
  if (Status checked = (*backend)->check_model_spec(model.remote_spec); !checked.ok())
    return make_error(Errc::invalid_argument, fmt::format("remote model '{}': {}", model.name, checked.error().detail));
  return {};
}

}  // namespace

Result<WiredEnvironment> make_environment(HostOptions& options) {
  EnvironmentOptions env_options;
  for (const auto& d : options.backend_dirs) env_options.backend_dirs.emplace_back(d);
  env_options.backend_configs = std::move(options.backend_configs);
  env_options.limits = options.limits;
  const auto isolation = parse_isolation_mode(options.isolate_loads);
  if (!isolation) {
    return make_error(Errc::invalid_argument, fmt::format("{} '{}': expected auto, always or never",
                                                          options.option_names.isolate_loads, options.isolate_loads));
  }
  env_options.isolation.mode = *isolation;
  env_options.isolation.max_address_space_mb = options.isolated_load_max_mb;
  env_options.isolation.max_check_ms = options.isolated_load_timeout_ms;
  set_verdict_cache(env_options.isolation, options.isolated_load_cache);
  WiredEnvironment wired = wire_environment(std::move(env_options));
  NnEnvironment* env = wired.env.get();
  const OptionNames& names = options.option_names;
  if (Status configs = wired.catalog->check_configs(names.backend_config); !configs.ok()) return configs.take_error();
  struct Registration {
    Result<NamedModel> model;
    std::string flag;  // how the caller gave it, for messages (OptionNames)
    std::string hint;  // what a missing file means for that flag
  };
  std::vector<Registration> models;
  for (size_t i = 0; i < options.preloads.size(); ++i) {
    const std::string& spec = options.preloads[i];
    const bool sourced = i < names.preload_sources.size() && !names.preload_sources[i].empty();
    models.push_back({parse_preload_spec(spec),
                      fmt::format("{} '{}'", sourced ? names.preload_sources[i] : names.preload, spec), ""});
  }
  for (const auto& spec : options.wasmtime_graphs) {
    models.push_back({parse_wasmtime_graph_spec(spec), fmt::format("{} '{}'", names.wasmtime_graph, spec),
                      " (nn-graph=ENCODING::DIR reads Wasmtime's file name for ENCODING in DIR)"});
  }
  for (auto& [model, flag, hint] : models) {
    if (!model) {
      Error e = model.take_error();
      e.detail = fmt::format("{}: {}", flag, e.detail);
      return e;
    }
    Status checked = model->encoding == Encoding::remote ? check_remote_spec(*wired.catalog, *model)
                                                         : check_model_paths(*model, flag, hint);
    if (!checked.ok()) return checked.take_error();
    const auto& lazy = options.on_demand_models.names;
    model->on_demand = std::find(lazy.begin(), lazy.end(), model->name) != lazy.end();
    if (Status added = env->models().add(std::move(*model)); !added.ok()) return added.take_error();
  }
  const auto& on_demand = options.on_demand_models;
  for (const auto& gguf : on_demand.gguf) {
    NamedModel model;
    model.name = gguf.name;
    model.encoding = Encoding::ggml;
    model.target = Target::autodetect;
    for (const auto& file : gguf.files) model.paths.emplace_back(file);
    model.on_demand = true;
    if (Status checked = check_model_paths(model, fmt::format("model '{}'", gguf.name), ""); !checked.ok())
      return checked.take_error();
    if (Status added = env->models().add(std::move(model)); !added.ok()) return added.take_error();
  }
  env->models().set_residency(
      {on_demand.max_loaded, std::chrono::milliseconds(on_demand.idle_timeout_ms), on_demand.memory_limit_bytes});
  return wired;
}

}  // namespace wasinn
