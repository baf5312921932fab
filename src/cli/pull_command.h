// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// `wasinn pull REF...`: models from the Hugging Face Hub (or a mirror, or any URL) into the Hub's
// own cache (hub_download.h), a progress display on stderr, and each model file's local path on
// stdout, one a line, for MODEL=$(wasinn pull owner/repo:Q4_K_M).
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace wasinn_cli {

struct PullCommandOptions {
  std::vector<std::string> refs;
  std::string revision;
  std::string endpoint;
  std::string cache_dir;
  bool offline = false;
  int quiet = 0;
};

// Adds `pull` to `app` and returns it.
CLI::App* add_pull_command(CLI::App& app, PullCommandOptions& o);
// 0: every reference pulled; 1: one failed (the others after it are not tried); 2: a usage error.
int pull_command(const PullCommandOptions& o);

}  // namespace wasinn_cli
