// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Isolated load checks: before a backend marked for isolation loads a model in the host, the
// same load (same plugin, plugin config, encoding, target, bytes or paths, load config) runs in
// a child process, `wasinn-load-check` (src/root/load_check_main.cpp), under an address-space limit. If the
// framework crashes there (a signal, an abort, std::terminate), the host refuses the model
// instead of crashing with it; a clean error in the child is the load's answer; only a child
// that loaded the model lets the in-process load go ahead (the child's process:
// isolation/checker_process.h; reading its crash: isolation/crash_report.h). Verdicts are
// remembered by a SHA-256 of everything that decides them (isolation/verdict_key.h), in memory
// and on disk (isolation/verdict_cache.h), so a model is checked once per build of wasinn and
// its plugin, not at every load.
// Thread-safe.
#pragma once

#include <atomic>
#include <array>
#include <cstdint>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/backend_ports.h"
#include "core/error.h"
#include "core/types.h"
#include "isolation/verdict_cache.h"

namespace wasinn {

enum class IsolationMode : uint8_t {
  by_manifest,  // "auto": the backends whose manifest says "isolate_load": true
  always,       // every backend
  never,        // none: a crashing framework takes the host down
};
std::optional<IsolationMode> parse_isolation_mode(std::string_view text);  // auto, always, never
std::string_view isolation_mode_name(IsolationMode mode);

// Five minutes: a cold read of a model of tens of GB, far more than any real model's check here.
inline constexpr uint64_t kDefaultMaxCheckMs = 300'000;

struct IsolationOptions {
  // never by default in the core, so in-process harnesses (fuzzers, the bad-input matrix) see
  // the framework itself; Host (include/wasinn/host.h) defaults to by_manifest ("auto").
  IsolationMode mode = IsolationMode::never;
  std::filesystem::path checker;      // empty: find_load_checker()
  uint64_t max_address_space_mb = 0;  // the child's RLIMIT_AS; 0: default_address_space_mb()
  // A check still running after this long is killed and the model refused (not remembered):
  // a load may run the model's own code (TorchScript's __setstate__). 0: no limit.
  uint64_t max_check_ms = kDefaultMaxCheckMs;
  // Verdicts are remembered in this process unless false, and on disk too when verdict_cache_dir
  // is set: in the core not by default; Host uses default_verdict_cache_dir().
  bool remember_verdicts = true;
  std::filesystem::path verdict_cache_dir;
};

// --isolated-load-cache / HostOptions::isolated_load_cache: "" the default directory
// (default_verdict_cache_dir()), "memory" this process only, "off" every load checked, or a directory.
void set_verdict_cache(IsolationOptions& options, std::string_view setting);

// The default address-space limit of a check: 3 GiB plus 4 times the model's bytes. Checks of
// the real fixtures peak at 14 MiB (LiteRT) to 0.9 GiB (a TensorFlow SavedModel), and a
// framework that wants gigabytes for a model of kilobytes is refusing to be sane.
uint64_t default_address_space_mb(uint64_t model_bytes);

// wasinn-load-check: $WASINN_LOAD_CHECK, else in wasinn's bin/ (base/install_layout.h: beside
// the running wasinn, or <libwasinn dir>/../bin). Empty when none exists.
std::filesystem::path find_load_checker();

class IsolatedLoadChecker final : public LoadGate {
 public:
  IsolatedLoadChecker(IsolationOptions options, std::vector<std::filesystem::path> backend_dirs,
                      std::map<std::string, std::string> backend_configs);

  IsolationMode mode() const { return options_.mode; }
  bool applies_to(const BackendIdentity& backend) const override;

  // Ok when the child loaded (and released) the model. A crash in the child is
  // invalid_argument ("... crashed the framework in an isolated check (SIGSEGV) ...").
  Status check(const LoadCheckRequest& request) override;

  // Checks actually run in a child (not answered by a remembered verdict), for tests and reports.
  uint64_t children_spawned() const { return spawned_; }
  // Where verdicts are kept on disk; empty when they are not (off, or the directory refused).
  std::filesystem::path verdict_cache_dir() { return verdicts_.disk_dir(); }

 private:
  struct Outcome {
    LoadVerdict verdict;
    bool remember = false;  // it says something about the model, not about this moment (run_child)
  };
  Outcome run_child(const LoadCheckRequest& request, const std::filesystem::path& checker);
  uint64_t address_space_mb(const LoadCheckRequest& request) const;
  std::filesystem::path checker();
  const std::string* backend_config(std::string_view backend) const;  // nullptr: none given

  IsolationOptions options_;
  std::vector<std::filesystem::path> backend_dirs_;
  std::map<std::string, std::string> backend_configs_;
  VerdictCache verdicts_;
  std::atomic<uint64_t> spawned_{0};
  std::mutex checker_mu_;
  std::filesystem::path found_checker_;  // find_load_checker()'s answer, once it found one
};

}  // namespace wasinn
