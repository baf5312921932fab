// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
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

// Every spelling of a command's options, "-S" and "--wasi" alike (for completion and "did you mean").
std::vector<std::string> option_names(const CLI::App& cmd);
std::vector<std::string> option_names_of(const CLI::Option& opt);

// Throws UsageError for the first word CLI11 left unparsed: an unknown option, or a word where
// `cmd` wants a subcommand or nothing, with the nearest option or subcommand as a suggestion.
// command: how the user typed `cmd` ("models inspect").
void check_leftovers(const std::vector<std::string>& left, const CLI::App& cmd, const std::string& command);

// A CLI11 validator: a whole number from lo to hi (no sign, no fraction), e.g. for limits.
CLI::Validator whole_number(uint64_t lo, uint64_t hi);

// The one duration syntax of every flag: a number and a unit, 10ms, 2s, 1.5m, 1h (also ns, us,
// sec, min, hr), up to a week. A number alone is refused (0 excepted: no limit) unless
// `bare_unit_ms` gives it a meaning, which only Wasmtime's own flags do (-W timeout=: seconds).
// Returns milliseconds, rounded up; throws std::invalid_argument saying what to write.
uint64_t parse_duration_ms(const std::string& text, uint64_t bare_unit_ms);

// A CLI11 validator for parse_duration_ms(text, bare_unit_ms).
CLI::Validator duration(uint64_t bare_unit_ms = 0);

// Sets the log level and copies the backend options into `host`; throws UsageError for a
// malformed --backend-config (not NAME=JSON, JSON that does not parse or is not an object).
void apply_common(const CommonOptions& o, wasinn::HostOptions& host);

// A Host for a command; throws UsageError when an option is invalid (a bad preload, say).
std::unique_ptr<wasinn::Host> make_host(const wasinn::HostOptions& options);

}  // namespace wasinn_cli
