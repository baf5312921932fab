// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "plugins/backend_catalog.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "base/install_layout.h"
#include "base/near_names.h"

namespace wasinn {

namespace fs = std::filesystem;

namespace {

Result<BackendManifest> read_manifest(const fs::path& path) {
  std::ifstream in(path);
  if (!in) return make_error(Errc::not_found, fmt::format("{}: cannot read", path.string()));
  nlohmann::json j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    return make_error(Errc::invalid_argument, fmt::format("{}: not a JSON object", path.string()));
  }
  BackendManifest m;
  m.manifest_path = path;
  if (!j.contains("name") || !j["name"].is_string() || !j.contains("library") || !j["library"].is_string() ||
      !j.contains("encodings") || !j["encodings"].is_array()) {
    return make_error(
        Errc::invalid_argument,
        fmt::format("{}: needs string \"name\", string \"library\" and array \"encodings\"", path.string()));
  }
  const auto v = j.find("abi_version");
  const int abi = (v != j.end() && v->is_number_integer()) ? v->get<int>() : 0;
  if (abi != static_cast<int>(WASINN_PLUGIN_ABI_VERSION)) {
    return make_error(Errc::invalid_argument,
                      fmt::format("{}: plugin ABI version {} is not this wasinn's {}", path.string(),
                                  v != j.end() ? v->dump() : "(missing)", WASINN_PLUGIN_ABI_VERSION));
  }
  m.name = j["name"].get<std::string>();
  fs::path lib = j["library"].get<std::string>();
  m.library = lib.is_absolute() ? lib : path.parent_path() / lib;
  for (const auto& e : j["encodings"]) {
    auto enc = e.is_string() ? parse_encoding(e.get<std::string>()) : std::nullopt;
    if (!enc) {
      return make_error(Errc::invalid_argument, fmt::format("{}: unknown encoding {}", path.string(), e.dump()));
    }
    m.encodings.push_back(*enc);
  }
  for (auto [key, flag] : {std::pair<const char*, bool*>{"isolate_load", &m.isolate_load},
                           {"inputs_sized_by_data", &m.facts.inputs_sized_by_data},
                           {"text_model", &m.facts.text_model}}) {
    if (const auto v = j.find(key); v != j.end()) {
      if (!v->is_boolean()) {
        return make_error(Errc::invalid_argument, fmt::format("{}: \"{}\" must be true or false", path.string(), key));
      }
      *flag = v->get<bool>();
    }
  }
  if (const auto keys = j.find("config_keys"); keys != j.end()) {
    const bool strings = keys->is_array() &&
                         std::all_of(keys->begin(), keys->end(), [](const nlohmann::json& k) { return k.is_string(); });
    if (!strings) {
      return make_error(Errc::invalid_argument,
                        fmt::format("{}: \"config_keys\" must be an array of strings", path.string()));
    }
    m.config_keys = keys->get<std::vector<std::string>>();
  }
  return m;
}

}  // namespace

std::vector<fs::path> BackendCatalog::default_dirs() {
  std::vector<fs::path> dirs;
  if (const char* env = std::getenv("WASINN_BACKEND_PATH"); env && *env) {
    std::stringstream ss(env);
    std::string part;
    while (std::getline(ss, part, ':')) {
      if (!part.empty()) dirs.emplace_back(part);
    }
  }
  if (const fs::path libdir = wasinn_libdir(); !libdir.empty()) dirs.push_back(libdir / "wasinn" / "backends");
  return dirs;
}

BackendCatalog::BackendCatalog(std::vector<fs::path> dirs, std::map<std::string, std::string> configs)
    : dirs_(std::move(dirs)), configs_(std::move(configs)) {
  std::set<std::string> seen;
  for (const auto& dir : dirs_) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) continue;
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
      if (entry.path().extension() == ".json") files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());  // a stable order makes reports reproducible
    for (const auto& file : files) {
      auto m = read_manifest(file);
      if (!m) {
        manifest_problems_.push_back(m.error().detail);
        continue;
      }
      if (!seen.insert(m->name).second) continue;
      auto slot = std::make_unique<Slot>();
      slot->manifest = std::move(*m);
      slots_.push_back(std::move(slot));
    }
  }
}

BackendCatalog::Slot& BackendCatalog::load(Slot& slot) {
  std::call_once(slot.once, [&] {
    auto it = configs_.find(slot.manifest.name);
    auto plugin =
        PluginLibrary::open(slot.manifest.library, it == configs_.end() ? "" : it->second, slot.manifest.facts);
    if (plugin) {
      slot.plugin = std::move(*plugin);
    } else {
      Error e = plugin.take_error();
      // backend_create answers invalid_argument for a config it cannot take; dlopen never does.
      if (e.code == Errc::invalid_argument) slot.config_refusal = e.detail;
      e.detail = fmt::format("backend {} cannot load: {}", slot.manifest.name, e.detail);
      slot.failure = std::move(e);
    }
  });
  return slot;
}

Result<std::shared_ptr<PluginLibrary>> BackendCatalog::plugin_for(Encoding encoding) {
  for (auto& slot : slots_) {
    for (Encoding e : slot->manifest.encodings) {
      if (e != encoding) continue;
      Slot& s = load(*slot);
      if (s.plugin) return s.plugin;
      return *s.failure;
    }
  }
  std::string searched;
  for (const auto& d : dirs_) searched += (searched.empty() ? "" : ", ") + d.string();
  return make_error(Errc::invalid_encoding,
                    fmt::format("no backend for encoding {} is installed (searched: {})", encoding_name(encoding),
                                searched.empty() ? "nothing" : searched));
}

const BackendManifest* BackendCatalog::manifest_for(Encoding encoding) const {
  for (const auto& slot : slots_) {
    for (Encoding e : slot->manifest.encodings) {
      if (e == encoding) return &slot->manifest;
    }
  }
  return nullptr;
}

std::vector<BackendManifest> BackendCatalog::manifests() const {
  std::vector<BackendManifest> out;
  for (const auto& slot : slots_) out.push_back(slot->manifest);
  return out;
}

Status BackendCatalog::check_configs(std::string_view option) {
  std::vector<std::string> known;
  for (const auto& slot : slots_) known.push_back(slot->manifest.name);
  for (const auto& entry : configs_) {
    // Named, not a structured binding: clang 14 cannot capture one in a lambda.
    const std::string& name = entry.first;
    const std::string& json = entry.second;
    const auto it = std::find_if(slots_.begin(), slots_.end(), [&](const auto& s) { return s->manifest.name == name; });
    if (it == slots_.end()) {
      std::string searched;
      for (const auto& d : dirs_) searched += (searched.empty() ? "" : ", ") + d.string();
      if (known.empty()) {
        return make_error(Errc::invalid_argument,
                          fmt::format("{} {}: no backend is installed (searched {})", option, name, searched));
      }
      return make_error(Errc::invalid_argument,
                        fmt::format("{} {}: no backend named {}; the installed ones are {}{}", option, name, name,
                                    fmt::join(known, ", "), did_you_mean(name, known)));
    }
    Slot& slot = **it;
    // Not an object (an embedder's typo): the backend itself says what is wrong, below.
    const auto config = nlohmann::json::parse(json, nullptr, false);
    if (const auto& keys = slot.manifest.config_keys; keys && config.is_object()) {
      for (const auto& item : config.items()) {
        if (std::find(keys->begin(), keys->end(), item.key()) != keys->end()) continue;
        if (keys->empty()) {
          return make_error(
              Errc::invalid_argument,
              fmt::format("{} {}: unknown key \"{}\": the {} backend takes no keys", option, name, item.key(), name));
        }
        return make_error(Errc::invalid_argument,
                          fmt::format("{} {}: unknown key \"{}\"; the {} backend's keys are {}{}", option, name,
                                      item.key(), name, fmt::join(*keys, ", "), did_you_mean(item.key(), *keys)));
      }
    }
    if (!load(slot).config_refusal.empty()) {
      return make_error(Errc::invalid_argument, fmt::format("{} {}: {}", option, name, slot.config_refusal));
    }
  }
  return {};
}

std::vector<BackendReport> BackendCatalog::probe_all() {
  std::vector<BackendReport> out;
  for (auto& slot : slots_) {
    Slot& s = load(*slot);
    BackendReport r;
    r.manifest = s.manifest;
    r.loaded = s.plugin != nullptr;
    if (s.plugin) {
      r.framework_version = s.plugin->framework_version();
      r.description = s.plugin->description();
      r.devices = s.plugin->devices();
      for (Target t : {Target::gpu, Target::tpu}) {
        if (std::string why = s.plugin->target_unavailable(t); !why.empty())
          r.unavailable.emplace_back(t, std::move(why));
      }
    }
    if (s.failure) r.problem = s.failure->detail;
    out.push_back(std::move(r));
  }
  return out;
}

std::optional<BackendIdentity> BackendCatalog::identity_for(Encoding encoding) const {
  const BackendManifest* m = manifest_for(encoding);
  if (!m) return std::nullopt;
  return BackendIdentity{m->name, m->library, m->isolate_load};
}

Result<std::shared_ptr<LoadedBackend>> BackendCatalog::backend_for(Encoding encoding) {
  auto plugin = plugin_for(encoding);
  if (!plugin) return plugin.take_error();
  return std::shared_ptr<LoadedBackend>(std::move(*plugin));
}

}  // namespace wasinn
