// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// PluginLibrary: one dlopen'ed backend library and the process-wide backend object it made.
// Thread-safe (the plugin ABI requires backend-level calls to be). Kept alive by shared_ptr
// from every Graph it loaded; the library itself is never unloaded, because frameworks often
// keep thread pools and static destructors that break on dlclose.
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

#include "core/backend_ports.h"
#include "core/error.h"
#include "core/plugin_call.h"
#include "wasinn/backend_plugin.h"

namespace wasinn {

class PluginLibrary final : public LoadedBackend {
 public:
  // Loads the library, checks its ABI version and creates the backend object.
  // facts: what its manifest says of its models.
  static Result<std::shared_ptr<PluginLibrary>> open(const std::filesystem::path& library, std::string_view config_json,
                                                     BackendFacts facts);
  ~PluginLibrary();
  PluginLibrary(const PluginLibrary&) = delete;
  PluginLibrary& operator=(const PluginLibrary&) = delete;

  const wasinn_backend_api& api() const override { return *api_; }
  wasinn_backend* backend() const override { return backend_; }
  const std::string& name() const override { return name_; }
  const std::string& framework_version() const override { return framework_version_; }
  const BackendFacts& facts() const override { return facts_; }
  std::string description() const override;
  std::vector<BackendDevice> devices() const override;
  std::string target_unavailable(Target target) const override;
  Status check_model_spec(std::string_view spec) const override;

 private:
  PluginLibrary() = default;
  const wasinn_backend_api* api_ = nullptr;
  wasinn_backend* backend_ = nullptr;
  std::string name_;
  std::string framework_version_;
  BackendFacts facts_;
};

}  // namespace wasinn
