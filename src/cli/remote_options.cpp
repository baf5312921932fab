// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "cli/remote_options.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/cli_common.h"
#include "wasinn/plugin_sdk/url.hpp"

namespace wasinn_cli {

void add_remote_options(CLI::App* cmd, RemoteModelOptions& o) {
  cmd->add_option("--nn-remote", o.models,
                  "Register a model served by an inference server (Open Inference Protocol v2: Triton, "
                  "KServe, MLServer, OpenVINO Model Server) for load_by_name: "
                  "NAME=SCHEME://HOST:PORT/models/MODEL[/versions/V], SCHEME http, https, grpc or grpcs; "
                  "repeatable")
      ->type_name("NAME=URL")
      ->allow_extra_args(false);
  cmd->add_option("--nn-remote-timeout-ms", o.timeout_ms,
                  "Each request to a --nn-remote server fails with a timeout after this long: 500ms, 30s, 2m; a "
                  "number alone is milliseconds, as the name says (default 60s; --max-compute-ms also stops a compute)")
      ->type_name("DURATION")
      ->transform(duration_as_ms())
      ->check(whole_number(1, 7ull * 24 * 3600 * 1000));
  cmd->add_option("--nn-remote-retries", o.retries,
                  "Extra tries of a remote model's metadata request, with backoff from 100 ms (default 2); "
                  "an inference is never retried")
      ->type_name("N")
      ->check(CLI::Range(0, 10));
  cmd->add_option("--nn-remote-ca", o.ca, "PEM file of the CAs that sign https/grpcs servers' certificates")
      ->type_name("FILE");
  cmd->add_option("--nn-remote-cert", o.cert, "PEM client certificate for https/grpcs (with --nn-remote-key)")
      ->type_name("FILE");
  cmd->add_option("--nn-remote-key", o.key, "PEM private key of --nn-remote-cert")->type_name("FILE");
  cmd->add_option("--nn-remote-header", o.headers,
                  "Send this header with every remote request, e.g. 'Authorization: Bearer ...' (never "
                  "logged); repeatable")
      ->type_name("'NAME: VALUE'")
      ->allow_extra_args(false);
  cmd->add_option("--nn-remote-max-message-bytes", o.max_message_bytes,
                  "The largest response accepted from a remote server (default 67108864)")
      ->type_name("BYTES")
      ->check(whole_number(1024, 1ull << 31));
  cmd->add_flag("--nn-remote-json", o.json_only,
                "Send tensors as JSON even when a REST server offers the binary tensor extension");
}

std::string remote_spec_json(const RemoteModelOptions& o, const std::string& url) {
  nlohmann::json j{{"url", url}};
  if (o.timeout_ms) j["timeout_ms"] = o.timeout_ms;
  if (o.retries >= 0) j["retries"] = o.retries;
  if (o.max_message_bytes) j["max_message_bytes"] = o.max_message_bytes;
  if (!o.ca.empty()) j["ca_file"] = o.ca;
  if (!o.cert.empty()) j["cert_file"] = o.cert;
  if (!o.key.empty()) j["key_file"] = o.key;
  if (o.json_only) j["binary_tensors"] = "never";
  if (!o.headers.empty()) {
    nlohmann::json h = nlohmann::json::object();
    for (const auto& line : o.headers) {
      const auto colon = line.find(':');
      if (colon == std::string::npos || colon == 0)
        throw UsageError("--nn-remote-header: expected 'NAME: VALUE' (the value is not shown)");
      std::string value = line.substr(colon + 1);
      value.erase(0, value.find_first_not_of(" \t"));
      h[line.substr(0, colon)] = value;
    }
    j["headers"] = h;
  }
  return j.dump();
}

bool looks_like_remote_url(const std::string& text) {
  for (const char* scheme : {"http://", "https://", "grpc://", "grpcs://"})
    if (text.rfind(scheme, 0) == 0) return true;
  return false;
}

void apply_remote_options(const RemoteModelOptions& o, wasinn::HostOptions& host) {
  if ((!o.cert.empty()) != (!o.key.empty())) throw UsageError("--nn-remote-cert and --nn-remote-key go together");
  for (const auto& m : o.models) {
    const auto eq = m.find('=');
    if (eq == std::string::npos || eq == 0 || m.find(':') < eq)
      throw UsageError(
          fmt::format("--nn-remote '{}': expected NAME=URL (a name without ':')", wasinn::sdk::redact_credentials(m)));
    const std::string name = m.substr(0, eq), url = m.substr(eq + 1);
    if (!looks_like_remote_url(url))
      throw UsageError(fmt::format("--nn-remote '{}': the URL must start with http://, https://, grpc:// or grpcs://",
                                   wasinn::sdk::redact_credentials(m)));
    host.preloads.push_back(name + ":remote:cpu:" + remote_spec_json(o, url));
  }
}

}  // namespace wasinn_cli
