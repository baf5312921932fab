// `--config FILE`: the command's options from a JSON file, so that models, backend settings,
// limits and policies need not be repeated on every command line. The keys are the long option
// names (see docs/cli.md):
//
//   {"backend-config": {"onnxruntime": {"intra_op_threads": 1}},
//    "nn-preload": ["digits:onnx:cpu:/models/digits.onnx"],
//    "dir": ["/data::/data"], "max-graphs": 16, "wasm": ["timeout=30s"], "log-level": "info"}
//
// Flags given on the command line win: a single-valued option from the file is used only when
// the command line does not give it; list options (dir, env, nn-preload, -S, ...) take the
// file's entries first, then the command line's, so a later --env or backend key overrides.
// Without --config, $XDG_CONFIG_HOME/wasinn/config.json (else ~/.config/wasinn/config.json) is
// read when it exists.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

namespace wasinn_cli {

// The file to read: `given` if not empty, else the default location if that file exists, else "".
std::string config_file_path(const std::string& given);

// Applies the file's options to the parsed command `cmd`; `all_commands` (the top-level app)
// tells a key some other command takes (ignored here) from an unknown one. Throws UsageError
// naming the file, the line and the key.
void apply_config_file(const std::string& path, CLI::App* cmd, const CLI::App& all_commands);

}  // namespace wasinn_cli
