// `wasinn backends` and `wasinn models inspect`: what is installed and what a model expects,
// as an aligned table or (--json) for tools.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/cli_common.h"
#include "wasinn/host.h"

namespace wasinn_cli {

int backends_command(const CommonOptions& common, bool json);

struct InspectOptions {
  std::vector<std::string> model;
  std::string encoding = "autodetect";
  wasinn::HostOptions host;
  bool json = false;
};

void add_inspect_options(CLI::App* inspect, InspectOptions& o, CommonOptions& common);
int inspect_command(InspectOptions& o, const CommonOptions& common);

}  // namespace wasinn_cli
