// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "cli/listen_check.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

namespace wasinn_cli {

namespace {

struct AddrInfoFree {
  void operator()(addrinfo* a) const { freeaddrinfo(a); }
};
using AddrInfoList = std::unique_ptr<addrinfo, AddrInfoFree>;

// The host as getaddrinfo takes it: "[::1]" as ::1.
std::string bare_host(const HostPort& address) {
  const std::string& host = address.host;
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') return host.substr(1, host.size() - 2);
  return host;
}

// The addresses a server would bind for `host`, as getaddrinfo's passive lookup gives them;
// getaddrinfo's code, 0 when `out` holds the list.
int passive_lookup(const std::string& host, const char* port, AddrInfoList& out) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo* found = nullptr;
  const int rc = ::getaddrinfo(host.c_str(), port, &hints, &found);
  if (rc == 0) out.reset(found);
  return rc;
}

// 0, or the errno of binding and listening on `ai` as the servers do (SO_REUSEADDR, so a
// previous run's connections in TIME_WAIT do not count, and never SO_REUSEPORT, which would let
// a second server share the port). The socket is held in `held` until the check ends, so two
// flags given the same address are seen to clash.
int try_listen(const addrinfo& ai, std::vector<int>& held) {
  const int fd = ::socket(ai.ai_family, ai.ai_socktype | SOCK_CLOEXEC, ai.ai_protocol);
  if (fd < 0) return errno;
  const int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (ai.ai_family == AF_INET6) ::setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
  if (::bind(fd, ai.ai_addr, ai.ai_addrlen) != 0 || ::listen(fd, 1) != 0) {
    const int err = errno;
    ::close(fd);
    return err;
  }
  held.push_back(fd);
  return 0;
}

std::string why(int err, const std::string& host, uint16_t port) {
  switch (err) {
    case EADDRINUSE:
      return fmt::format("the address is in use (another server listens on port {}: stop it, or choose another port)",
                         port);
    case EADDRNOTAVAIL:
      return fmt::format("{} is not an address of this machine (0.0.0.0 listens on all of them)", host);
    case EACCES: return fmt::format("binding port {} needs privileges (ports below 1024; choose a higher one)", port);
    default: return std::strerror(err);
  }
}

}  // namespace

void check_can_listen(const std::vector<ListenAddress>& addresses) {
  std::vector<int> held;
  struct Closer {
    std::vector<int>& fds;
    ~Closer() {
      for (int fd : fds) ::close(fd);
    }
  } closer{held};
  for (const ListenAddress& a : addresses) {
    if (a.address.port == 0) continue;
    const std::string host = bare_host(a.address);
    const std::string port = std::to_string(a.address.port);
    const auto fail = [&](const std::string& reason) {
      return std::runtime_error(fmt::format("{} {}: cannot listen there: {}", a.flag, a.address.text(), reason));
    };
    AddrInfoList found;
    if (const int rc = passive_lookup(host, port.c_str(), found); rc != 0)
      throw fail(fmt::format("{} does not resolve ({})", host, gai_strerror(rc)));
    // A name may stand for several addresses (localhost: 127.0.0.1 and ::1); one in use is a
    // clash, but one this machine lacks (::1 without IPv6) is not, if another binds.
    int first_error = 0;
    bool bound = false;
    for (const addrinfo* ai = found.get(); ai; ai = ai->ai_next) {
      const int err = try_listen(*ai, held);
      if (err == EADDRINUSE) {
        for (const ListenAddress* before = addresses.data(); before != &a; ++before)
          if (before->address.port == a.address.port)
            throw fail(fmt::format("{} {} takes that port already; give each flag a port of its own", before->flag,
                                   before->address.text()));
        throw fail(why(err, host, a.address.port));
      }
      if (err == 0)
        bound = true;
      else if (first_error == 0)
        first_error = err;
    }
    if (!bound) throw fail(why(first_error ? first_error : EADDRNOTAVAIL, host, a.address.port));
  }
}

bool reachable_from_other_machines(const HostPort& address) {
  AddrInfoList found;
  if (passive_lookup(bare_host(address), nullptr, found) != 0) return true;
  for (const addrinfo* ai = found.get(); ai; ai = ai->ai_next) {
    if (ai->ai_family == AF_INET) {
      const auto* in = reinterpret_cast<const sockaddr_in*>(ai->ai_addr);
      if ((ntohl(in->sin_addr.s_addr) >> 24) != 127) return true;
    } else if (ai->ai_family == AF_INET6) {
      const auto* in6 = reinterpret_cast<const sockaddr_in6*>(ai->ai_addr);
      if (!IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr)) return true;
    } else {
      return true;
    }
  }
  return false;
}

void warn_if_exposed_without_key(const std::vector<ListenAddress>& addresses, bool keyed, const char* what) {
  if (keyed) return;
  std::vector<std::string> exposed;
  for (const ListenAddress& a : addresses)
    if (a.flag != "--metrics-addr" && reachable_from_other_machines(a.address))
      exposed.push_back(fmt::format("{} {}", a.flag, a.address.text()));
  if (exposed.empty()) return;
  spdlog::warn(
      "{} {} reachable from other machines and no --api-key is set: anyone who reaches {} can {} (give "
      "--api-key or --api-key-file, or listen on 127.0.0.1)",
      fmt::join(exposed, " and "), exposed.size() == 1 ? "is" : "are", exposed.size() == 1 ? "it" : "them", what);
}

}  // namespace wasinn_cli
