// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "remote_url.h"

#include <charconv>

namespace wasinn::remote {
namespace {

// Model names and versions go into a URL path unescaped: keep them to a safe alphabet.
bool safe_segment(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.')) return false;
  return s != "." && s != "..";
}

}  // namespace

std::string RemoteUrl::base() const { return std::string(tls ? "https://" : "http://") + authority(); }

std::string RemoteUrl::rest_model_path() const {
  return "/v2/models/" + model + (version.empty() ? "" : "/versions/" + version);
}

std::string RemoteUrl::text() const {
  const char* scheme = protocol == Protocol::grpc ? (tls ? "grpcs" : "grpc") : (tls ? "https" : "http");
  return std::string(scheme) + "://" + authority() + "/models/" + model +
         (version.empty() ? "" : "/versions/" + version);
}

sdk::Error parse_remote_url(std::string_view text, RemoteUrl& out) {
  out = {};
  auto bad = [&](const std::string& why) {
    return sdk::invalid("remote model URL '" + redact_credentials(text) + "': " + why +
                        " (expected SCHEME://HOST:PORT/models/NAME[/versions/VERSION], SCHEME "
                        "http, https, grpc or grpcs)");
  };
  const size_t sep = text.find("://");
  if (sep == std::string_view::npos) return bad("no scheme");
  const std::string_view scheme = text.substr(0, sep);
  if (scheme != "http" && scheme != "https" && scheme != "grpc" && scheme != "grpcs")
    return bad("unknown scheme '" + std::string(scheme) + "'");
  out.protocol = scheme.starts_with("grpc") ? Protocol::grpc : Protocol::rest;
  out.tls = scheme.back() == 's';
  std::string_view rest = text.substr(sep + 3);
  const size_t slash = rest.find('/');
  std::string_view authority = rest.substr(0, slash);
  std::string_view path = slash == std::string_view::npos ? std::string_view() : rest.substr(slash);
  if (authority.find('@') != std::string_view::npos)
    return bad(
        "credentials in the URL are not accepted; pass them in a header instead "
        "(--nn-remote-header 'Authorization: Basic ...')");
  std::string_view host = authority, port_text;
  if (!authority.empty() && authority.front() == '[') {
    const size_t close = authority.find(']');
    if (close == std::string_view::npos) return bad("unclosed '[' in the host");
    host = authority.substr(0, close + 1);
    if (close + 1 < authority.size()) {
      if (authority[close + 1] != ':') return bad("junk after the IPv6 address");
      port_text = authority.substr(close + 2);
    }
  } else if (const size_t colon = authority.rfind(':'); colon != std::string_view::npos) {
    host = authority.substr(0, colon);
    port_text = authority.substr(colon + 1);
  }
  if (host.empty()) return bad("no host");
  out.host = std::string(host);
  if (port_text.empty()) {
    out.port = out.protocol == Protocol::grpc ? 8001 : (out.tls ? 443 : 80);
  } else {
    int port = 0;
    auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
    if (ec != std::errc() || end != port_text.data() + port_text.size() || port < 1 || port > 65535)
      return bad("port '" + std::string(port_text) + "' is not a number from 1 to 65535");
    out.port = port;
  }
  if (path.starts_with("/v2/")) path.remove_prefix(3);
  if (!path.starts_with("/models/")) return bad("the path does not start with /models/");
  path.remove_prefix(8);
  if (!path.empty() && path.back() == '/') path.remove_suffix(1);
  const size_t vpos = path.find("/versions/");
  std::string_view model = path.substr(0, vpos);
  if (!safe_segment(model)) return bad("the model name must be letters, digits, '-', '_' or '.'");
  out.model = std::string(model);
  if (vpos != std::string_view::npos) {
    std::string_view version = path.substr(vpos + 10);
    if (!safe_segment(version)) return bad("the version must be letters, digits, '-', '_' or '.'");
    out.version = std::string(version);
  }
  return {};
}

}  // namespace wasinn::remote
