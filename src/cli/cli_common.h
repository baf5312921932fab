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

#include "cli/config_file.h"

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

// The command line as main got it (argv), for a command that hands itself to another program.
void set_command_line(int argc, char** argv);
const std::vector<std::string>& command_line();

// The OIP mode's program, beside `wasinn` (src/CMakeLists.txt).
inline constexpr const char* kOipCommand = "wasinn-oip";

struct CommonOptions {
  std::string config;  // --config FILE
  std::vector<std::string> backend_dirs;
  std::vector<std::string> backend_configs;  // NAME=JSON
  std::string log_level;                     // empty: from -q/-v, else warn
  int quiet = 0;
  int verbose = 0;
  ConfigSources config_sources;  // what the config file gave (apply_config_file)
};

// default_level: the level the command logs at when no -q/-v/--log-level is given (serve: info,
// for its start, stop and access lines; everything else: warn), as its --help says.
void add_common(CLI::App* cmd, CommonOptions& o, const std::string& default_level = "warn");

// Every spelling of a command's options, "-S" and "--wasi" alike (for completion and "did you mean").
std::vector<std::string> option_names(const CLI::App& cmd);
std::vector<std::string> option_names_of(const CLI::Option& opt);

// Throws UsageError for the first word CLI11 left unparsed: an unknown option, or a word where
// `cmd` wants a subcommand or nothing, with the nearest option or subcommand as a suggestion.
// command: how the user typed `cmd` ("models inspect").
void check_leftovers(const std::vector<std::string>& left, const CLI::App& cmd, const std::string& command);

// A CLI11 validator: a whole number from lo to hi (no sign, no fraction), e.g. for limits.
CLI::Validator whole_number(uint64_t lo, uint64_t hi);

// The one duration syntax of every flag, Wasmtime's (-W timeout=): a number and a unit, 10ms,
// 2s, 1.5m, 1h (also ns, us, sec, min, hr, d, and their long names), up to a week; a number
// alone is seconds, as in Wasmtime, except after a flag whose name gives the unit (--*-ms:
// milliseconds; --dynamic-batching's DELAY: microseconds, as Triton's key), where it keeps that meaning.
enum class BareNumber { seconds, milliseconds, microseconds };

// Microseconds, rounded up; throws std::invalid_argument saying the accepted forms.
uint64_t parse_duration_us(const std::string& text, BareNumber bare = BareNumber::seconds);
// Milliseconds, rounded up.
uint64_t parse_duration_ms(const std::string& text, BareNumber bare = BareNumber::seconds);

// A CLI11 validator for a DURATION kept as text (for messages that repeat it as given).
CLI::Validator duration(BareNumber bare = BareNumber::seconds);
// The same, refusing more than `max_us`.
CLI::Validator duration_at_most(uint64_t max_us);
// A duration as a DURATION flag takes it: "10ms", "2s", "250us".
std::string duration_text(uint64_t us);
// A CLI11 transform for a --*-ms flag bound to a number: "2s" becomes "2000"; a bare number stays
// (milliseconds), or is `bare`'s unit for a flag whose name gives none.
CLI::Validator duration_as_ms(BareNumber bare = BareNumber::milliseconds);

// Sets the log level and copies the backend options into `host`; throws UsageError for a
// malformed --backend-config (not NAME=JSON, JSON that does not parse or is not an object).
void apply_common(const CommonOptions& o, wasinn::HostOptions& host);

// A Host for a command; throws UsageError when an option is invalid (a bad preload, say).
std::unique_ptr<wasinn::Host> make_host(const wasinn::HostOptions& options);

}  // namespace wasinn_cli
