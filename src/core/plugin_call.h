// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Calling a backend plugin's C ABI (include/wasinn/backend_plugin.h) from the core: whether a
// plugin's table has a function, and a call's status and detail as a core Error. Plain helpers.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "core/error.h"
#include "wasinn/backend_plugin.h"

// True when the plugin's table is long enough to hold `field` and fills it in.
#define WASINN_PLUGIN_HAS(api, field) \
  ((api).struct_size >= offsetof(wasinn_backend_api, field) + sizeof((api).field) && (api).field != nullptr)

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

}  // namespace wasinn
