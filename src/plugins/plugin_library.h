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

#include "core/error.h"
#include "wasinn/backend_plugin.h"

// True when the plugin's table is long enough to hold `field` and fills it in.
#define WASINN_PLUGIN_HAS(api, field)                                                   \
  ((api).struct_size >= offsetof(wasinn_backend_api, field) + sizeof((api).field) && \
   (api).field != nullptr)

namespace wasinn {

// Collects the detail a plugin reports and turns a plugin status into an Error.
class PluginDiag {
 public:
  PluginDiag();
  PluginDiag(const PluginDiag&) = delete;
  PluginDiag& operator=(const PluginDiag&) = delete;
  wasinn_diag* get() { return &diag_; }
  // Error for a failed call; `what` says which operation failed, for when the plugin gave no detail.
  Error to_error(int status, std::string_view what) const;

 private:
  wasinn_diag diag_;
  std::string detail_;
};

Errc errc_from_plugin_status(int status);

class PluginLibrary {
 public:
  // Loads the library, checks its ABI version and creates the backend object.
  static Result<std::shared_ptr<PluginLibrary>> open(const std::filesystem::path& library,
                                                     std::string_view config_json);
  ~PluginLibrary();
  PluginLibrary(const PluginLibrary&) = delete;
  PluginLibrary& operator=(const PluginLibrary&) = delete;

  const wasinn_backend_api& api() const { return *api_; }
  wasinn_backend* backend() const { return backend_; }
  const std::string& name() const { return name_; }
  const std::string& framework_version() const { return framework_version_; }
  // What the backend says it found (accelerators, delegates, their targets), or "".
  std::string description() const;

 private:
  PluginLibrary() = default;
  const wasinn_backend_api* api_ = nullptr;
  wasinn_backend* backend_ = nullptr;
  std::string name_;
  std::string framework_version_;
};

}  // namespace wasinn
