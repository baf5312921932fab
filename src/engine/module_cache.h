// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Compiled guest code (core modules and components) kept on disk, as Wasmtime's CLI does by default, so a second run of
// the same guest skips Cranelift (25-30 ms for a 222 KB guest). Entries live in a PrivateCacheDir
// (base/private_cache_dir.h: only the user can write it, written atomically, shared by
// concurrent processes), named by a SHA-256 over the Wasmtime version, the engine's settings
// and the module's bytes. Deserialising compiled code trusts it, so each entry carries the
// SHA-256 of its payload and is loaded only when that matches; a corrupt, truncated or stale
// entry is ignored and rewritten. The modules this process compiled or loaded last are also kept
// in memory, so an embedder instantiating the same guest per request neither reads nor
// deserialises it again. Thread-safe.
#pragma once

#include <cstdint>
#include <deque>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <utility>

#include "core/error.h"
#include "engine/wasmtime_ptr.h"

namespace wasinn {

class PrivateCacheDir;

// ~/.cache/wasinn/modules (or under an absolute $XDG_CACHE_HOME); empty when neither is set.
std::filesystem::path default_module_cache_dir();

// What differs between caching core modules and components: Wasmtime's calls for each.
struct CoreModuleCode {
  using Raw = wasmtime_module_t;
  using Ptr = ModulePtr;
  static constexpr const char* kKind = "module";
  static Raw* clone(const Raw* code) { return wasmtime_module_clone(const_cast<Raw*>(code)); }
  static wasmtime_error_t* serialize(const Raw* code, wasm_byte_vec_t* out) {
    return wasmtime_module_serialize(const_cast<Raw*>(code), out);
  }
  static wasmtime_error_t* deserialize(wasm_engine_t* engine, const uint8_t* bytes, size_t size, Raw** out) {
    return wasmtime_module_deserialize(engine, bytes, size, out);
  }
};
struct ComponentCode {
  using Raw = wasmtime_component_t;
  using Ptr = ComponentPtr;
  static constexpr const char* kKind = "component";
  static Raw* clone(const Raw* code) { return wasmtime_component_clone(code); }
  static wasmtime_error_t* serialize(const Raw* code, wasm_byte_vec_t* out) {
    return wasmtime_component_serialize(code, out);
  }
  static wasmtime_error_t* deserialize(wasm_engine_t* engine, const uint8_t* bytes, size_t size, Raw** out) {
    return wasmtime_component_deserialize(engine, bytes, size, out);
  }
};

// Code: CoreModuleCode or ComponentCode (the two instantiations module_cache.cpp provides).
template <class Code>
class CodeCache {
 public:
  using Ptr = typename Code::Ptr;
  // dir empty: no cache, every module is compiled. `engine_settings` names every engine option
  // that changes the compiled code (epoch interruption, ...); it is part of each entry's key.
  CodeCache(wasm_engine_t* engine, std::filesystem::path dir, std::string engine_settings);
  ~CodeCache();

  // The code for these binary wasm bytes: a valid cached entry, else `compile()`'s result,
  // which is then stored. A cache that cannot be used is never an error, only slower.
  Result<Ptr> get(std::span<const uint8_t> wasm, const std::function<Result<Ptr>()>& compile);

  // Where entries go; empty when off or refused (the reason is logged at debug level).
  std::filesystem::path dir();

 private:
  static constexpr size_t kRecentModules = 16;
  PrivateCacheDir* open_dir();
  Result<Ptr> get_uncached(const std::string& name, const std::function<Result<Ptr>()>& compile);
  std::optional<Ptr> recall(const std::string& name);
  void remember(const std::string& name, const typename Code::Raw* code);

  wasm_engine_t* engine_;
  std::filesystem::path requested_dir_;
  std::string engine_settings_;
  std::once_flag open_once_;
  std::unique_ptr<PrivateCacheDir> dir_;
  std::mutex recent_mu_;
  std::deque<std::pair<std::string, Ptr>> recent_;  // oldest first; clones share the code
};

using ModuleCache = CodeCache<CoreModuleCode>;
using ComponentCache = CodeCache<ComponentCode>;

}  // namespace wasinn
