// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The address a server flag listens on (--addr, --oip-http, --oip-grpc, --metrics-addr),
// checked at start so a typo is a usage error before anything loads; binding it is the server's.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace wasinn_cli {

struct HostPort {
  std::string host;          // as given: a name, an IPv4 address or a bracketed IPv6 one ("[::1]")
  uint16_t port = 0;         // 0: any free port
  std::string text() const;  // HOST:PORT
};

// HOST:PORT, or HOST alone when `default_port` is given. Throws UsageError
// "FLAG 'TEXT': expected HOST:PORT with a port from 0 to 65535, e.g. EXAMPLES".
HostPort parse_host_port(const std::string& text, const std::string& flag, std::optional<uint16_t> default_port,
                         const std::string& examples);

}  // namespace wasinn_cli
