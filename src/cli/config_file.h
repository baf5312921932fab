// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// `--config FILE`: the command's options from a TOML or JSON file (config_document.h), so that
// models, backend settings, limits and policies need not be repeated on every command line. The
// keys are the long option names (see docs/cli.md):
//
//   nn-preload = ["digits:onnx:cpu:/models/digits.onnx"]
//   dir = ["/data::/data"]
//   max-graphs = 16
//   [wasm]                      # a table: KEY=VALUE words, as Wasmtime's own config file
//   timeout = "30s"
//   [backend-config.onnxruntime]
//   intra_op_threads = 1
//
// Flags given on the command line win: a single-valued option from the file is used only when
// the command line does not give it; list options (dir, env, nn-preload, -S, ...) take the
// file's entries first, then the command line's, so a later --env or backend key overrides.
// Without --config, config.toml or config.json in $XDG_CONFIG_HOME/wasinn (else
// ~/.config/wasinn) is read when it exists.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace wasinn_cli {

// The file to read: `given` if not empty, else the default file if one exists, else "". Both
// default files existing is a UsageError: which one wins would be a surprise.
std::string config_file_path(const std::string& given);

// Where each value a list option took from the file came from, by the option's long name
// without dashes: "FILE:LINE: \"KEY\"" per value, in order (they come before the command
// line's), so that a later check of a value names the file, not the flag.
using ConfigSources = std::map<std::string, std::vector<std::string>, std::less<>>;

// Applies the file's options to the parsed command `cmd`; `all_commands` (the top-level app)
// tells a key some other command takes (ignored here) from an unknown one. Throws UsageError
// naming the file, the line and the key.
ConfigSources apply_config_file(const std::string& path, CLI::App* cmd, const CLI::App& all_commands);

}  // namespace wasinn_cli
