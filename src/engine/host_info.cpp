// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Host's descriptions of what is installed, what a model expects and what guests did: the
// backends (from their manifests, or loaded to check them), a model's inputs and outputs, and
// the wasi-nn metrics.
#include <filesystem>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/mapped_file.h"
#include "core/model_files.h"
#include "core/prometheus_text.h"
#include "engine/host_impl.h"
#include "wasinn/host.h"

namespace wasinn {

namespace {

BackendStatus status_of(const BackendManifest& m) {
  BackendStatus s;
  s.name = m.name;
  for (Encoding e : m.encodings) s.encodings.emplace_back(encoding_name(e));
  s.library = m.library.string();
  s.manifest = m.manifest_path.string();
  std::error_code ec;
  s.library_found = std::filesystem::is_regular_file(m.library, ec);
  s.isolate_load = m.isolate_load;
  s.config_keys = m.config_keys;
  return s;
}

void add_bad_manifests(const BackendCatalog& catalog, std::vector<BackendStatus>& out) {
  for (const auto& p : catalog.manifest_problems()) {
    BackendStatus s;
    s.name = "(bad manifest)";
    s.problem = p;
    out.push_back(std::move(s));
  }
}

TensorInfo describe_io(const IoInfo& io) {
  TensorInfo t;
  t.name = io.name;
  t.type = io.type ? std::string(type_name(*io.type)) : "?";
  t.rank_known = io.dims.has_value();
  if (io.dims) t.dims = *io.dims;
  t.framework_type = io.framework_type;
  return t;
}

}  // namespace

std::vector<BackendStatus> Host::list_backends() const {
  std::vector<BackendStatus> out;
  for (const auto& m : impl_->catalog->manifests()) out.push_back(status_of(m));
  add_bad_manifests(*impl_->catalog, out);
  return out;
}

std::vector<BackendStatus> Host::probe_backends() {
  std::vector<BackendStatus> out;
  for (const auto& r : impl_->catalog->probe_all()) {
    BackendStatus s = status_of(r.manifest);
    s.checked = true;
    s.loadable = r.loaded;
    s.framework_version = r.framework_version;
    s.description = r.description;
    for (const auto& d : r.devices)
      s.devices.push_back({d.name, d.api, d.memory_bytes, std::string(target_name(d.target))});
    for (const auto& [target, why] : r.unavailable) s.unavailable_targets.emplace_back(target_name(target), why);
    s.problem = r.problem;
    out.push_back(std::move(s));
  }
  add_bad_manifests(*impl_->catalog, out);
  return out;
}

std::vector<std::string> Host::backend_search_dirs() const {
  std::vector<std::string> out;
  for (const auto& d : impl_->catalog->dirs()) out.push_back(d.string());
  return out;
}

bool Host::inspect_model(const std::vector<std::string>& name_or_paths, const std::string& encoding, ModelInfo* out,
                         std::string* error, const std::string& target) {
  auto fail = [&](std::string msg) {
    if (error) *error = std::move(msg);
    return false;
  };
  if (name_or_paths.empty()) return fail("no model given");
  const auto load_target = parse_target(target);
  if (!load_target) return fail(fmt::format("unknown target '{}' (cpu, gpu, tpu or auto)", target));
  Result<std::shared_ptr<Graph>> graph = make_error(Errc::unknown, "");
  std::vector<std::filesystem::path> files;
  Target loaded_for = *load_target;
  if (name_or_paths.size() == 1 && impl_->env->models().contains(name_or_paths[0])) {
    for (const auto& m : impl_->env->models().list()) {
      if (m.name == name_or_paths[0]) {
        files = m.paths;
        loaded_for = m.target;
      }
    }
    graph = impl_->env->load_named(name_or_paths[0], {});
  } else {
    auto enc = parse_encoding(encoding);
    if (!enc) return fail(fmt::format("unknown encoding '{}'", encoding));
    const std::vector<std::filesystem::path> given(name_or_paths.begin(), name_or_paths.end());
    auto model = resolve_model_files(given, *enc);
    if (!model && model.error().code == Errc::not_found && name_or_paths.size() == 1) {
      return fail(fmt::format("'{}' is neither a registered model name nor a model file: {}", name_or_paths[0],
                              model.error().detail));
    }
    if (!model) return fail(model.error().detail);
    auto mapped = MappedBuilders::open(model->paths);
    if (!mapped) return fail(mapped.error().detail);
    files = model->paths;
    graph = impl_->env->load_graph(model->encoding, *load_target, mapped->builders(), model->paths, {});
  }
  if (!graph) return fail(fmt::format("{}: {}", errc_name(graph.error().code), graph.error().detail));
  const Graph& g = **graph;
  out->backend = g.plugin().name();
  out->framework_version = g.plugin().framework_version();
  out->encoding = std::string(encoding_name(g.encoding()));
  out->files.clear();
  for (const auto& f : files) out->files.push_back(f.string());
  out->inputs.clear();
  out->outputs.clear();
  for (const auto& io : g.inputs()) out->inputs.push_back(describe_io(io));
  for (const auto& io : g.outputs()) out->outputs.push_back(describe_io(io));
  out->target = std::string(target_name(loaded_for));
  out->placement = g.description();
  out->properties.clear();
  for (const auto& p : g.properties()) out->properties.push_back({p.name, p.value, p.settable});
  return true;
}

std::string Host::metrics_text() const {
  const auto series = impl_->env->metrics().snapshot();
  return render_prometheus_text(series);
}

}  // namespace wasinn
