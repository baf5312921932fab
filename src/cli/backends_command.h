// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// `wasinn backends [--check] [--json]`: the backend plugins installed. By default from their
// manifests alone (name, encodings, library, isolation, config keys), loading no framework;
// --check loads each plugin to show its framework version or why it cannot load.
#pragma once

#include <CLI/CLI.hpp>

#include "cli/cli_common.h"

namespace wasinn_cli {

struct BackendsOptions {
  bool check = false;
  bool json = false;
};

void add_backends_options(CLI::App* backends, BackendsOptions& o, CommonOptions& common);
int backends_command(const BackendsOptions& o, const CommonOptions& common);

}  // namespace wasinn_cli
