// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The core's ports: what NnEnvironment and Graph need of the parts that plug into the core, as
// interfaces the core owns, so that core/ includes nothing above it. The composition root
// (src/root/wired_environment.h) gives an environment its implementations: plugins/BackendCatalog
// (a BackendSource handing out plugins/PluginLibrary as LoadedBackend) and
// isolation/IsolatedLoadChecker (a LoadGate). Implementations are thread-safe.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "core/types.h"
#include "wasinn/backend_plugin.h"

namespace wasinn {

// A device a loaded backend found (backend_plugin.h's wasinn_device).
struct BackendDevice {
  std::string name;
  std::string api;
  uint64_t memory_bytes = 0;  // 0 when unknown
  Target target = Target::cpu;
};

// What a backend's manifest says of its models that the core's rules depend on, so the core
// names no encoding (cmake/WasinnBackend.cmake writes them; plugins/backend_catalog reads them).
struct BackendFacts {
  // "inputs_sized_by_data": an input's data length alone counts, whatever its dims say (WasmEdge's
  // GGML guests send a prompt as u8 [1], its whisper guests a WAV file as f32 [1, bytes]).
  bool inputs_sized_by_data = false;
  // "text_model": its graphs are text models, which wasinn:nn-ext's prompt serves.
  bool text_model = false;
};

// One backend's plugin, loaded: its C ABI table (include/wasinn/backend_plugin.h) and the
// process-wide backend object it made. Kept alive by every Graph it loaded.
class LoadedBackend {
 public:
  virtual ~LoadedBackend() = default;
  virtual const wasinn_backend_api& api() const = 0;
  virtual wasinn_backend* backend() const = 0;
  virtual const std::string& name() const = 0;
  virtual const std::string& framework_version() const = 0;
  virtual const BackendFacts& facts() const = 0;
  // What the backend says it found (accelerators, delegates, their targets), or "".
  virtual std::string description() const = 0;
  // The devices it found when it was created (none when the plugin does not say).
  virtual std::vector<BackendDevice> devices() const = 0;
  // Why it cannot serve `target`, or "" when it can or does not say.
  virtual std::string target_unavailable(Target target) const = 0;
  // A model spec checked by the plugin before any load (model_spec_check); ok when the plugin
  // has no such check.
  virtual Status check_model_spec(std::string_view spec) const = 0;
};

// Which backend serves an encoding, known without loading it.
struct BackendIdentity {
  std::string name;
  std::filesystem::path library;
  bool isolate_load = false;  // its framework may crash on a malformed model
};

class BackendSource {
 public:
  virtual ~BackendSource() = default;
  virtual std::optional<BackendIdentity> identity_for(Encoding encoding) const = 0;
  // The backend serving `encoding`, loaded on first use.
  virtual Result<std::shared_ptr<LoadedBackend>> backend_for(Encoding encoding) = 0;
};

// The load a gate checks: exactly what NnEnvironment::load_graph will hand the plugin.
struct LoadCheckRequest {
  std::string_view backend;  // manifest name
  Encoding encoding = Encoding::onnx;
  Target target = Target::cpu;
  std::span<const std::span<const uint8_t>> builders;
  std::span<const std::filesystem::path> paths;  // empty for a guest's bytes
  std::string_view config;
  // The code that gives the verdict: the plugin's library file and its framework's version. A
  // verdict is remembered only when both are given, so a rebuilt plugin is checked afresh.
  std::filesystem::path plugin_library;
  std::string_view framework_version;
  // builders_digest(builders) (base/sha256.h) when the caller has it already: the key then costs
  // no second pass over the bytes.
  std::optional<std::array<uint8_t, 32>> bytes_digest;
  // The caller's deadline (a served request's): the check ends there at the latest.
  std::optional<std::chrono::steady_clock::time_point> deadline;
};

// A check a load passes before the framework sees it in this process (isolation: the same
// load in a child first).
class LoadGate {
 public:
  virtual ~LoadGate() = default;
  virtual bool applies_to(const BackendIdentity& backend) const = 0;
  virtual Status check(const LoadCheckRequest& request) = 0;
};

}  // namespace wasinn
