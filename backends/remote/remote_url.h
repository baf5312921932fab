// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A remote model's address: SCHEME://HOST[:PORT]/[v2/]models/NAME[/versions/VERSION] with
// SCHEME http, https (REST) or grpc, grpcs (gRPC; grpcs is TLS). Pure; thread-safe.
#pragma once

#include <string>
#include <string_view>

#include "wasinn/plugin_sdk/error.hpp"
#include "wasinn/plugin_sdk/url.hpp"

namespace wasinn::remote {

enum class Protocol { rest, grpc };

struct RemoteUrl {
  Protocol protocol = Protocol::rest;
  bool tls = false;
  std::string host;  // as written, brackets kept for IPv6: "[::1]"
  int port = 0;
  std::string model;
  std::string version;  // "" = the server's choice

  // "http://127.0.0.1:8000" or "127.0.0.1:8001" (the gRPC target).
  std::string base() const;
  std::string authority() const { return host + ":" + std::to_string(port); }
  // "/v2/models/NAME[/versions/V]"
  std::string rest_model_path() const;
  // The URL as given back, for details (it holds no secret: headers are apart).
  std::string text() const;
};

// INVALID_ARGUMENT naming what is wrong (scheme, port, path); the URL in it is redacted.
sdk::Error parse_remote_url(std::string_view text, RemoteUrl& out);

// The SDK's (plugin_sdk/url.hpp), shared with the host's messages.
using sdk::redact_credentials;

}  // namespace wasinn::remote
