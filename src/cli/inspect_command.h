// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// `wasinn models inspect [--json] MODEL...`: loads a model and lists its inputs and outputs in
// the index order guests use. MODEL is a name registered with --nn-preload, or the model's
// file(s) or directory, or a remote model's URL (grpc://HOST:PORT/models/M), whose format is recognised
// (core/model_files.h) unless --encoding says.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/cli_common.h"
#include "cli/remote_options.h"
#include "wasinn/host.h"

namespace wasinn_cli {

struct InspectOptions {
  std::vector<std::string> model;
  std::string encoding = "autodetect";
  std::string target = "cpu";
  wasinn::HostOptions host;
  bool json = false;
  RemoteModelOptions remote;  // --nn-remote NAME=URL, or MODEL given as a URL
};

void add_inspect_options(CLI::App* inspect, InspectOptions& o, CommonOptions& common);
int inspect_command(InspectOptions& o, const CommonOptions& common);

}  // namespace wasinn_cli
