// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// NetworkPolicy: what a core module's WasmEdge sockets (abi/wasmedge_sockets) may reach. Nothing,
// unless the user named it: listen addresses (`--listen ADDR:PORT`) a guest may bind, and hosts
// (`--connect HOST[:PORT]`) it may connect to and look up. A bad entry is an error when the
// policy is made, never when a guest runs. Immutable once made: shared by every guest of a Host.
#pragma once

#include <netinet/in.h>
#include <sys/socket.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"

namespace wasinn {

// An IPv4 or IPv6 address with a port, as the sockets ABI passes one.
struct SocketAddress {
  bool v6 = false;
  uint8_t addr[16] = {};  // 4 bytes used for IPv4
  uint16_t port = 0;

  // "1.2.3.4:80", "[::1]:80".
  std::string text() const;
  // The OS's sockaddr_in or sockaddr_in6; its length in *len.
  sockaddr_storage to_sockaddr(socklen_t* len) const;
  static bool from_sockaddr(const sockaddr_storage& sa, SocketAddress* out);
  bool same_ip(const SocketAddress& other) const;
};

// The option names a NetworkPolicy's messages cite (the command line's flags, the C API's fields).
struct NetworkOptionNames {
  std::string listen = "--listen";
  std::string connect = "--connect";
};

class NetworkPolicy {
 public:
  using Names = NetworkOptionNames;

  NetworkPolicy() = default;  // allows nothing
  // listen: ADDR:PORT (ADDR an IPv4 address, [IPv6] or localhost; PORT 1-65535 or * for any);
  // connect: HOST[:PORT] (an address, [IPv6], or a name resolved now; no port: any port).
  static Result<NetworkPolicy> make(const std::vector<std::string>& listen, const std::vector<std::string>& connect,
                                    Names names = {});

  bool allows_anything() const { return !listen_.empty() || !connect_.empty(); }
  bool allows_bind(const SocketAddress& a) const;
  bool allows_connect(const SocketAddress& a) const;
  // A name sock_getaddrinfo may look up: a --connect host's, or localhost.
  bool allows_lookup(std::string_view name) const;
  const Names& names() const { return names_; }

 private:
  struct Rule {
    std::string host;  // as written: an address or a name
    std::vector<SocketAddress> addresses;
    bool any_port = false;
    uint16_t port = 0;
  };
  static bool matches(const std::vector<Rule>& rules, const SocketAddress& a);
  std::vector<Rule> listen_;
  std::vector<Rule> connect_;
  Names names_;
};

}  // namespace wasinn
