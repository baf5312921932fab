// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "cli/host_port.h"

#include <charconv>

#include <fmt/format.h>

#include "cli/cli_common.h"

namespace wasinn_cli {

std::string HostPort::text() const { return fmt::format("{}:{}", host, port); }

HostPort parse_host_port(const std::string& text, const std::string& flag, std::optional<uint16_t> default_port,
                         const std::string& examples) {
  auto bad = [&] {
    return UsageError(fmt::format("{} '{}': expected HOST{} with a port from 0 to 65535, e.g. {}", flag, text,
                                  default_port ? "[:PORT]" : ":PORT", examples));
  };
  // The port is after the last colon, unless that colon is inside an IPv6 address's brackets.
  const auto colon = text.rfind(':');
  const auto bracket = text.rfind(']');
  const bool has_port = colon != std::string::npos && (bracket == std::string::npos || colon > bracket);
  HostPort out;
  out.host = has_port ? text.substr(0, colon) : text;
  if (out.host.empty() || (!has_port && !default_port)) throw bad();
  if (!has_port) {
    out.port = *default_port;
    return out;
  }
  const std::string port = text.substr(colon + 1);
  unsigned value = 0;
  const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
  if (port.empty() || ec != std::errc() || end != port.data() + port.size() || value > 65535) throw bad();
  out.port = static_cast<uint16_t>(value);
  return out;
}

}  // namespace wasinn_cli
