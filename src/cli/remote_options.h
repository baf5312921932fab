// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// `--nn-remote NAME=URL` and its options (run, models inspect, and the config file's keys of
// the same names): each registers a named model served by an Open Inference Protocol server,
// reached through the remote backend plugin by load_by_name. The options apply to every
// --nn-remote of the command; a model's own keys can go in a JSON spec instead of a URL
// (docs/backends/remote.md). Header values are never logged or echoed in errors.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "wasinn/host.h"

namespace wasinn_cli {

struct RemoteModelOptions {
  std::vector<std::string> models;  // NAME=URL or NAME=JSON
  uint64_t timeout_ms = 0;          // 0: the backend's default
  int64_t retries = -1;             // -1: the backend's default
  uint64_t max_message_bytes = 0;   // 0: the backend's default
  std::string ca, cert, key;
  std::vector<std::string> headers;  // "Name: value"
  bool json_only = false;            // --nn-remote-json: never the REST binary extension
};

void add_remote_options(CLI::App* cmd, RemoteModelOptions& o);

// Adds one NAME:remote:cpu:SPEC preload per --nn-remote to host.preloads. Throws UsageError for
// a malformed NAME=URL or header (the value of a header is never in the message).
void apply_remote_options(const RemoteModelOptions& o, wasinn::HostOptions& host);

// The JSON spec of one remote model at `url` with the command's options.
std::string remote_spec_json(const RemoteModelOptions& o, const std::string& url);

// Whether a models-inspect argument is a remote URL rather than a name or a file.
bool looks_like_remote_url(const std::string& text);

}  // namespace wasinn_cli
