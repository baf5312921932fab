// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// `wasinn pull REF...`: models from the Hugging Face Hub (or a mirror, or any URL) into the Hub's
// own cache (hub_download.h), a progress display on stderr, and each model file's local path on
// stdout, one a line, for MODEL=$(wasinn pull owner/repo:Q4_K_M).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/hub_download.h"

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

// hub::pull with `wasinn pull`'s progress display on stderr (a bar on a terminal, plain lines
// otherwise; nothing when `quiet`): for the commands that pull a model where they take a model
// file (model_refs.h). `options.progress` is the display's; `projector` as hub::pull's.
wasinn::Result<std::vector<std::filesystem::path>> pull_showing_progress(const hub::HubRef& ref,
                                                                         hub::PullOptions options, bool quiet,
                                                                         std::filesystem::path* projector = nullptr);

}  // namespace wasinn_cli
