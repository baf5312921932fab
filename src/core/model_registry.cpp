// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "core/model_registry.h"

#include <optional>

#include <fmt/format.h>

#include "core/mapped_file.h"
#include "base/near_names.h"

namespace wasinn {

Result<NamedModel> parse_preload_spec(std::string_view spec) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    const size_t colon = spec.find(':', start);
    parts.emplace_back(spec.substr(start, colon == std::string_view::npos ? std::string_view::npos : colon - start));
    if (colon == std::string_view::npos) break;
    start = colon + 1;
  }
  if (parts.size() < 4 || parts[0].empty()) {
    return make_error(Errc::invalid_argument, "expected NAME:ENCODING:TARGET:PATH[:PATH...]");
  }
  NamedModel m;
  m.name = parts[0];
  auto enc = parse_encoding(parts[1]);
  if (!enc) {
    return make_error(Errc::invalid_encoding,
                      fmt::format("unknown encoding '{}' (openvino, onnx, tensorflow, pytorch, tensorflowlite, "
                                  "ggml, autodetect)",
                                  parts[1]));
  }
  auto target = parse_target(parts[2]);
  if (!target) {
    return make_error(Errc::invalid_argument, fmt::format("unknown target '{}' (cpu, gpu, tpu, auto)", parts[2]));
  }
  m.encoding = *enc;
  m.target = *target;
  if (m.encoding == Encoding::remote) {
    // The spec is the rest of the text, colons and all; it is not echoed (it may hold a token).
    size_t at = 0;
    for (int i = 0; i < 3; ++i) at = spec.find(':', at) + 1;
    m.remote_spec = std::string(spec.substr(at));
    if (m.remote_spec.empty()) {
      return make_error(Errc::invalid_argument, "a remote model needs a URL");
    }
    return m;
  }
  for (size_t i = 3; i < parts.size(); ++i) {
    if (parts[i].empty()) return make_error(Errc::invalid_argument, "empty path");
    m.paths.emplace_back(parts[i]);
  }
  return m;
}

Result<NamedModel> parse_wasmtime_graph_spec(std::string_view spec) {
  const size_t sep = spec.find("::");
  if (sep == std::string_view::npos || sep == 0 || sep + 2 >= spec.size()) {
    return make_error(Errc::invalid_argument, "expected ENCODING::DIR");
  }
  auto enc = parse_encoding(spec.substr(0, sep));
  if (!enc || *enc == Encoding::autodetect) {
    return make_error(Errc::invalid_encoding, fmt::format("unknown encoding '{}'", spec.substr(0, sep)));
  }
  std::filesystem::path dir(std::string(spec.substr(sep + 2)));
  NamedModel m;
  m.encoding = *enc;
  m.target = Target::cpu;  // as Wasmtime: named graphs are compiled for the CPU
  m.name = dir.lexically_normal().filename().string();
  if (m.name.empty()) m.name = dir.lexically_normal().parent_path().filename().string();
  if (m.name.empty() || m.name == "." || m.name == "..") {
    return make_error(Errc::invalid_argument, "DIR has no base name");
  }
  switch (*enc) {
    case Encoding::openvino: m.paths = {dir / "model.xml", dir / "model.bin"}; break;
    case Encoding::onnx: m.paths = {dir / "model.onnx"}; break;
    case Encoding::pytorch: m.paths = {dir / "model.pt"}; break;
    case Encoding::tensorflowlite: m.paths = {dir / "model.tflite"}; break;
    case Encoding::ggml: m.paths = {dir / "model.gguf"}; break;
    case Encoding::whisper: m.paths = {dir / "model.bin"}; break;
    case Encoding::piper: m.paths = {dir / "model.onnx"}; break;  // its config: model.onnx.json
    default: m.paths = {dir}; break;
  }
  return m;
}

Status ModelRegistry::add(NamedModel model) {
  std::lock_guard lock(mu_);
  if (entries_.count(model.name)) {
    return make_error(Errc::invalid_argument, fmt::format("model name '{}' is registered twice", model.name));
  }
  auto entry = std::make_unique<Entry>();
  entry->model = model;
  entries_.emplace(model.name, std::move(entry));
  return {};
}

bool ModelRegistry::contains(std::string_view name) const {
  std::lock_guard lock(mu_);
  return entries_.find(name) != entries_.end();
}

std::vector<NamedModel> ModelRegistry::list() const {
  std::lock_guard lock(mu_);
  std::vector<NamedModel> out;
  for (const auto& [name, e] : entries_) out.push_back(e->model);
  return out;
}

Result<std::shared_ptr<Graph>> ModelRegistry::get(std::string_view name, std::string_view config,
                                                  const GraphLoader& loader) {
  Entry* entry = nullptr;
  {
    std::lock_guard lock(mu_);
    auto it = entries_.find(name);
    if (it == entries_.end()) {
      std::vector<std::string> names;
      for (const auto& e : entries_) names.push_back(e.first);
      const std::string near = did_you_mean(name, names);
      return make_error(Errc::not_found, near.empty()
                                             ? fmt::format("no model named '{}' is registered (use --nn-preload)", name)
                                             : fmt::format("no model named '{}' is registered{}", name, near));
    }
    entry = it->second.get();  // entries are never removed, so the pointer stays valid
  }
  std::lock_guard load_lock(entry->load_mu);
  if (config.empty() && entry->default_graph) return entry->default_graph;
  std::erase_if(entry->by_config, [](const auto& kv) { return kv.second.expired(); });
  if (auto it = entry->by_config.find(config); it != entry->by_config.end()) {
    if (auto graph = it->second.lock()) return graph;
  }

  // A remote model's one builder is its spec; other models' builders are their files, mapped
  // only while loading: a backend copies or maps what it keeps.
  const bool remote = entry->model.encoding == Encoding::remote;
  const std::span<const uint8_t> spec(reinterpret_cast<const uint8_t*>(entry->model.remote_spec.data()),
                                      entry->model.remote_spec.size());
  std::optional<MappedBuilders> mapped;
  if (!remote) {
    for (const auto& p : entry->model.paths) {
      std::error_code ec;
      if (!std::filesystem::exists(p, ec)) {
        // WasmEdge's GGML plugin answers model_not_found here, and its guests test for it.
        return make_error(entry->model.encoding == Encoding::ggml ? Errc::model_not_found : Errc::not_found,
                          fmt::format("model '{}': file {} does not exist", name, p.string()));
      }
    }
    auto opened = MappedBuilders::open(entry->model.paths);
    if (!opened) return opened.take_error();
    mapped.emplace(std::move(*opened));
  }
  auto graph = remote
                   ? loader(entry->model.encoding, entry->model.target, std::span(&spec, 1), {}, config)
                   : loader(entry->model.encoding, entry->model.target, mapped->builders(), entry->model.paths, config);
  if (!graph) return graph.take_error();
  if (config.empty()) {
    entry->default_graph = *graph;
  } else {
    entry->by_config.insert_or_assign(std::string(config), *graph);
  }
  return *graph;
}

}  // namespace wasinn
