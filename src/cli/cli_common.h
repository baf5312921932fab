// What every wasinn command shares: the backend and logging options, the checks made on them
// at start, and the error a command reports as a usage error (exit code 2, as Wasmtime's).
#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "wasinn/host.h"

namespace wasinn_cli {

// Exit codes, as Wasmtime's CLI: a usage error 2, a failure to read, compile or start the
// module (or any other host-side failure) 1.
inline constexpr int kExitUsage = 2;
inline constexpr int kExitFailure = 1;

// A mistake in the command line or configuration: printed as one line, exit code 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct CommonOptions {
  std::string config;  // --config FILE
  std::vector<std::string> backend_dirs;
  std::vector<std::string> backend_configs;  // NAME=JSON
  std::string log_level;                     // empty: from -q/-v, else warn
  int quiet = 0;
  int verbose = 0;
};

void add_common(CLI::App* cmd, CommonOptions& o);

// A CLI11 validator: a whole number from lo to hi (no sign, no fraction), e.g. for limits.
CLI::Validator whole_number(uint64_t lo, uint64_t hi);

// Sets the log level and copies the backend options into `host`; throws UsageError for a
// malformed --backend-config (not NAME=JSON, JSON that does not parse or is not an object).
void apply_common(const CommonOptions& o, wasinn::HostOptions& host);

// What a backend manifest says, read without loading the plugin.
struct ManifestInfo {
  std::string name;
  std::vector<std::string> encodings;
  std::string path;
};

// The manifests in these directories, the first one per backend name (as the host reads them).
std::vector<ManifestInfo> read_manifests(const std::vector<std::string>& dirs);

// Throws UsageError when a --backend-config names a backend no manifest in `dirs` declares.
void check_backend_names(const wasinn::HostOptions& host, const std::vector<std::string>& dirs);

}  // namespace wasinn_cli
