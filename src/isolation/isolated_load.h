// Isolated load checks: before a backend marked for isolation loads a model in the host, the
// same load (same plugin, plugin config, encoding, target, bytes or paths, load config) runs in
// a child process, `wasinn-load-check` (src/isolation/load_check_main.cpp), under an address-space limit. If the
// framework crashes there (a signal, an abort, std::terminate), the host refuses the model
// instead of crashing with it; a clean error in the child is the load's answer; only a child
// that loaded the model lets the in-process load go ahead. Checks of files are remembered by
// (path, device, inode, size, mtime) so repeat loads of preloaded models pay once.
// Thread-safe.
#pragma once

#include <cstdint>
#include <deque>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "plugins/backend_catalog.h"
#include "core/error.h"
#include "core/types.h"

namespace wasinn {

enum class IsolationMode : uint8_t {
  by_manifest,  // "auto": the backends whose manifest says "isolate_load": true
  always,       // every backend
  never,        // none: a crashing framework takes the host down
};
std::optional<IsolationMode> parse_isolation_mode(std::string_view text);  // auto, always, never
std::string_view isolation_mode_name(IsolationMode mode);

struct IsolationOptions {
  // never by default in the core, so in-process harnesses (fuzzers, the bad-input matrix) see
  // the framework itself; Host (include/wasinn/host.h) defaults to by_manifest ("auto").
  IsolationMode mode = IsolationMode::never;
  std::filesystem::path checker;      // empty: find_load_checker()
  uint64_t max_address_space_mb = 0;  // the child's RLIMIT_AS; 0: default_address_space_mb()
};

// The default address-space limit of a check: 3 GiB plus 4 times the model's bytes. Checks of
// the real fixtures peak at 14 MiB (LiteRT) to 0.9 GiB (a TensorFlow SavedModel), and a
// framework that wants gigabytes for a model of kilobytes is refusing to be sane.
uint64_t default_address_space_mb(uint64_t model_bytes);

// wasinn-load-check: $WASINN_LOAD_CHECK, else beside the running executable, else
// <dir of libwasinn>/../bin. Empty when none exists.
std::filesystem::path find_load_checker();

// The load to check: exactly what NnEnvironment::load_graph will hand the plugin.
struct LoadCheckRequest {
  std::string_view backend;  // manifest name
  Encoding encoding = Encoding::onnx;
  Target target = Target::cpu;
  std::span<const std::span<const uint8_t>> builders;
  std::span<const std::filesystem::path> paths;  // empty for a guest's bytes
  std::string_view config;
};

class IsolatedLoadChecker {
 public:
  IsolatedLoadChecker(IsolationOptions options, std::vector<std::filesystem::path> backend_dirs,
                      std::map<std::string, std::string> backend_configs);

  IsolationMode mode() const { return options_.mode; }
  bool applies_to(const BackendManifest& manifest) const;

  // Ok when the child loaded (and released) the model. A crash in the child is
  // invalid_argument ("... crashed the framework in an isolated check (SIGSEGV) ...").
  Status check(const LoadCheckRequest& request);

  // Checks actually run in a child (not answered from the cache), for tests and reports.
  uint64_t children_spawned() const;

 private:
  struct Outcome {
    bool ok = true;
    Error error{Errc::unknown, {}};
  };
  Outcome run_child(const LoadCheckRequest& request);
  std::optional<std::string> cache_key(const LoadCheckRequest& request) const;

  IsolationOptions options_;
  std::vector<std::filesystem::path> backend_dirs_;
  std::map<std::string, std::string> backend_configs_;

  mutable std::mutex mu_;
  std::map<std::string, Outcome> cache_;
  std::deque<std::string> cache_order_;  // oldest first, to bound the cache
  uint64_t spawned_ = 0;
};

}  // namespace wasinn
