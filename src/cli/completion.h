// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// `wasinn completion bash|zsh|fish`: a shell completion script generated from the parser
// itself (subcommands and each one's options), so it never falls behind the flags.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

namespace wasinn_cli {

// The script for `shell`; throws UsageError for a shell it cannot write for.
std::string completion_script(const CLI::App& app, const std::string& shell);

}  // namespace wasinn_cli
