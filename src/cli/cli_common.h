// What every wasinn command shares: the backend and logging options, the checks made on them
// at start, and the error a command reports as a usage error (exit code 2, as Wasmtime's).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
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

// A Host for a command; throws UsageError when an option is invalid (a bad preload, say).
std::unique_ptr<wasinn::Host> make_host(const wasinn::HostOptions& options);

// Checks each --backend-config against the installed manifests, loading no plugin: throws
// UsageError naming the backend when no manifest declares it, and naming the key (with the
// backend's known keys) when its manifest lists config keys and the key is not among them.
void check_backend_configs(const wasinn::HostOptions& options, const wasinn::Host& host);

}  // namespace wasinn_cli
