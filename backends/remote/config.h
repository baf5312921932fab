// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// How to reach a remote model. The backend config (--backend-config remote=JSON) holds defaults
// for every remote model; each model's spec (its --nn-remote registration, which the host passes
// as the model's one builder) holds its URL and may override any default. Keys:
//   "url":                SCHEME://HOST:PORT/models/NAME[/versions/V] (spec only)
//   "timeout_ms":         per request, 0 = none (default 60000); --max-compute-ms also applies
//   "connect_timeout_ms": default 5000
//   "retries":            extra tries of idempotent calls (metadata), never of an inference;
//                         backoff 100 ms doubling to 2 s (default 2)
//   "ca_file", "cert_file", "key_file": TLS trust and client certificate (PEM files)
//   "headers":            {"Name": "value"} sent with every request (auth tokens: never logged)
//   "max_message_bytes":  the largest response accepted (default 64 MiB)
//   "binary_tensors":     "auto" (REST binary extension when the server lists it) or "never"
// A spec may also be the URL alone.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "remote_url.h"
#include "wasinn/plugin_sdk/error.hpp"

namespace wasinn::remote {

struct RemoteOptions {
  std::optional<std::string> url;
  std::optional<uint64_t> timeout_ms, connect_timeout_ms, retries, max_message_bytes;
  std::optional<std::string> ca_file, cert_file, key_file;
  std::optional<std::map<std::string, std::string>> headers;
  std::optional<bool> binary_tensors;  // false: "never"

  RemoteOptions merged_with(const RemoteOptions& over) const;
};

// Everything resolved, for one graph.
struct ModelTarget {
  RemoteUrl url;
  uint64_t timeout_ms = 60000;
  uint64_t connect_timeout_ms = 5000;
  uint64_t retries = 2;
  uint64_t max_message_bytes = 64ull << 20;
  std::string ca_file, cert_file, key_file;
  std::map<std::string, std::string> headers;
  bool binary_tensors = true;
};

// source names the text in details ("remote backend config", "remote model spec").
sdk::Error parse_remote_options(std::string_view text, std::string_view source, RemoteOptions& out);
sdk::Error resolve_target(const RemoteOptions& opts, ModelTarget& out);

}  // namespace wasinn::remote
