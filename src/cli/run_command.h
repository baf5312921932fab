// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// `wasinn run [OPTIONS] <WASM> [ARGS...]`, parsed as `wasmtime run` parses it: options come
// before the module; the module and everything after it belong to the guest.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/cli_common.h"
#include "cli/remote_options.h"
#include "cli/wasmtime_groups.h"
#include "wasinn/host.h"

namespace wasinn_cli {

struct RunOptions {
  wasinn::HostOptions host;
  std::vector<std::string> dirs;  // HOST[::GUEST]
  std::vector<std::string> envs;  // NAME[=VALUE]
  GroupValues groups;             // -O -C -D -W -S
  std::string timeout;            // --timeout DURATION, as given
  std::string invoke;
  std::string argv0;
  bool no_cache = false;
  std::string metrics_addr;   // HOST:PORT, or "" for no metrics endpoint
  RemoteModelOptions remote;  // --nn-remote and its options
};

void add_run_options(CLI::App* run, RunOptions& o, CommonOptions& common);
// The options `run` shares with `serve`: the guest's dirs and env, models, Wasmtime's groups,
// the module cache, limits, isolation, metrics (metrics_while: when the endpoint answers).
void add_guest_options(CLI::App* cmd, RunOptions& o, CommonOptions& common, const std::string& metrics_while,
                       const std::string& default_log_level = "warn");
// Applies them: the host options in `o.host`, the guest's env and dirs in `program`. nullopt
// when a group's help (-S help) was printed instead. Throws UsageError for a mistake.
std::optional<GroupSettings> apply_guest_options(RunOptions& o, const CommonOptions& common, wasinn::Program& program);

// Runs module_and_args[0] with the rest as its arguments; returns the process exit code.
// Throws UsageError for a mistake in the options.
int run_command(RunOptions& o, const CommonOptions& common, const std::vector<std::string>& module_and_args);

// HOST[::GUEST] (Wasmtime's spelling; WasmEdge's GUEST:HOST gets a hint) -> (host, guest).
std::pair<std::string, std::string> parse_dir(const std::string& spec);

}  // namespace wasinn_cli
