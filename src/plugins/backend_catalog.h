// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// BackendCatalog: which backend plugins exist, which encodings each serves, and loading a
// plugin the first time a guest needs one of its encodings. Manifests are read at
// construction; libraries are opened lazily, once, and a failure to open is remembered and
// reported for that encoding only. Thread-safe.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/backend_ports.h"
#include "core/error.h"
#include "plugins/plugin_library.h"
#include "core/types.h"

namespace wasinn {

struct BackendManifest {
  std::string name;
  std::filesystem::path library;
  std::vector<Encoding> encodings;
  std::filesystem::path manifest_path;
  // "isolate_load": true: its framework is known to crash on some malformed models, so loads
  // are first tried in a child process (isolation/isolated_load.h).
  bool isolate_load = false;
  // "inputs_sized_by_data", "text_model": what the core's rules need to know of its models.
  BackendFacts facts;
  // "config_keys": the keys its backend config (--backend-config NAME=JSON) takes, so a typo is
  // refused at start without loading the plugin; nullopt when the manifest does not say.
  std::optional<std::vector<std::string>> config_keys;
};

struct BackendReport {
  BackendManifest manifest;
  bool loaded = false;
  std::string framework_version;       // when loaded
  std::string description;             // when loaded: what the backend says it found, or ""
  std::vector<BackendDevice> devices;  // when loaded: the devices it found
  // When loaded: the targets it cannot serve (gpu, tpu), each with the backend's reason.
  std::vector<std::pair<Target, std::string>> unavailable;
  std::string problem;  // when it cannot load
};

class BackendCatalog final : public BackendSource {
 public:
  // Directories are searched in order; the first manifest for a backend name wins.
  // configs maps a backend name to the JSON given to its backend_create.
  BackendCatalog(std::vector<std::filesystem::path> dirs, std::map<std::string, std::string> configs);

  // The plugin serving `encoding`, loading it on first use.
  Result<std::shared_ptr<PluginLibrary>> plugin_for(Encoding encoding);

  // The manifest of the backend serving `encoding`, without loading it; nullptr if none.
  const BackendManifest* manifest_for(Encoding encoding) const;

  // BackendSource, for the core: the same two, as the core's port names them.
  std::optional<BackendIdentity> identity_for(Encoding encoding) const override;
  Result<std::shared_ptr<LoadedBackend>> backend_for(Encoding encoding) override;

  // The manifests read, in search order; nothing is loaded (for `wasinn backends`).
  std::vector<BackendManifest> manifests() const;

  // Checks each backend config before any guest runs: the backend must have a manifest, each
  // key be one its manifest lists (when it lists them), and the backend accept the values: a
  // configured backend is loaded now, so that its own parser judges them (a backend whose
  // framework cannot be loaded is left to fail at its first load, as without a config).
  // Errors name the option as the caller calls it (`option`: "--backend-config", a C API
  // function): "OPTION NAME: ...".
  Status check_configs(std::string_view option);

  // Loads every backend and reports each (for `wasinn backends --check`).
  std::vector<BackendReport> probe_all();

  // Manifests that could not be read, with the reason.
  const std::vector<std::string>& manifest_problems() const { return manifest_problems_; }
  const std::vector<std::filesystem::path>& dirs() const { return dirs_; }

  // Plugin directories used when none are given: $WASINN_BACKEND_PATH, then
  // <libdir>/wasinn/backends beside libwasinn.so (or the executable's ../lib: base/install_layout.h).
  static std::vector<std::filesystem::path> default_dirs();

 private:
  struct Slot {
    BackendManifest manifest;
    std::once_flag once;
    std::shared_ptr<PluginLibrary> plugin;
    std::optional<Error> failure;
    std::string config_refusal;  // backend_create's detail when it refused its config
  };
  Slot& load(Slot& slot);

  std::vector<std::filesystem::path> dirs_;
  std::map<std::string, std::string> configs_;
  std::vector<std::unique_ptr<Slot>> slots_;
  std::vector<std::string> manifest_problems_;
};

}  // namespace wasinn
