// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "abi/network_policy.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <strings.h>

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

namespace wasinn {

std::string SocketAddress::text() const {
  char buf[INET6_ADDRSTRLEN] = {};
  inet_ntop(v6 ? AF_INET6 : AF_INET, addr, buf, sizeof buf);
  return v6 ? fmt::format("[{}]:{}", buf, port) : fmt::format("{}:{}", buf, port);
}

sockaddr_storage SocketAddress::to_sockaddr(socklen_t* len) const {
  sockaddr_storage ss{};
  if (v6) {
    auto* s6 = reinterpret_cast<sockaddr_in6*>(&ss);
    s6->sin6_family = AF_INET6;
    s6->sin6_port = htons(port);
    std::memcpy(&s6->sin6_addr, addr, 16);
    *len = sizeof(sockaddr_in6);
  } else {
    auto* s4 = reinterpret_cast<sockaddr_in*>(&ss);
    s4->sin_family = AF_INET;
    s4->sin_port = htons(port);
    std::memcpy(&s4->sin_addr, addr, 4);
    *len = sizeof(sockaddr_in);
  }
  return ss;
}

bool SocketAddress::from_sockaddr(const sockaddr_storage& ss, SocketAddress* out) {
  *out = SocketAddress{};
  if (ss.ss_family == AF_INET) {
    const auto* s4 = reinterpret_cast<const sockaddr_in*>(&ss);
    std::memcpy(out->addr, &s4->sin_addr, 4);
    out->port = ntohs(s4->sin_port);
    return true;
  }
  if (ss.ss_family == AF_INET6) {
    const auto* s6 = reinterpret_cast<const sockaddr_in6*>(&ss);
    out->v6 = true;
    std::memcpy(out->addr, &s6->sin6_addr, 16);
    out->port = ntohs(s6->sin6_port);
    return true;
  }
  return false;
}

bool SocketAddress::same_ip(const SocketAddress& o) const {
  return v6 == o.v6 && std::memcmp(addr, o.addr, v6 ? 16 : 4) == 0;
}

namespace {

// An address literal (IPv4, or IPv6 without brackets), or nothing.
bool parse_ip(const std::string& host, SocketAddress* out) {
  *out = SocketAddress{};
  if (inet_pton(AF_INET, host.c_str(), out->addr) == 1) return true;
  if (inet_pton(AF_INET6, host.c_str(), out->addr) == 1) {
    out->v6 = true;
    return true;
  }
  return false;
}

// The addresses a name has now (A and AAAA records, /etc/hosts).
Result<std::vector<SocketAddress>> resolve(const std::string& host) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  if (const int rc = getaddrinfo(host.c_str(), nullptr, &hints, &res); rc != 0) {
    return make_error(Errc::invalid_argument, fmt::format("cannot resolve {}: {}", host, gai_strerror(rc)));
  }
  std::vector<SocketAddress> out;
  for (const addrinfo* ai = res; ai; ai = ai->ai_next) {
    sockaddr_storage ss{};
    std::memcpy(&ss, ai->ai_addr, std::min<size_t>(ai->ai_addrlen, sizeof ss));
    SocketAddress a;
    if (SocketAddress::from_sockaddr(ss, &a) &&
        std::none_of(out.begin(), out.end(), [&](const SocketAddress& b) { return b.same_ip(a); }))
      out.push_back(a);
  }
  freeaddrinfo(res);
  if (out.empty()) return make_error(Errc::invalid_argument, fmt::format("{} has no IP address", host));
  return out;
}

bool is_localhost(std::string_view name) { return name.size() == 9 && strncasecmp(name.data(), "localhost", 9) == 0; }

}  // namespace

Result<NetworkPolicy> NetworkPolicy::make(const std::vector<std::string>& listen,
                                          const std::vector<std::string>& connect, Names names) {
  NetworkPolicy p;
  const auto parse = [](const std::string& spec, bool port_required, bool names_allowed,
                        const std::string& option) -> Result<Rule> {
    const auto bad = [&](const std::string& why) {
      return make_error(Errc::invalid_argument, fmt::format("{} '{}': {}", option, spec, why));
    };
    Rule r;
    std::string port_text;
    bool has_port = false;
    if (!spec.empty() && spec[0] == '[') {
      const auto close = spec.find(']');
      if (close == std::string::npos) return bad("an IPv6 address in brackets lacks its ']'");
      r.host = spec.substr(1, close - 1);
      if (close + 1 < spec.size()) {
        if (spec[close + 1] != ':') return bad("expected :PORT after ']'");
        has_port = true;
        port_text = spec.substr(close + 2);
      }
    } else if (std::count(spec.begin(), spec.end(), ':') > 1) {
      r.host = spec;  // a bare IPv6 address: no port
    } else if (const auto colon = spec.rfind(':'); colon != std::string::npos) {
      r.host = spec.substr(0, colon);
      has_port = true;
      port_text = spec.substr(colon + 1);
    } else {
      r.host = spec;
    }
    if (r.host.empty()) return bad("the host is empty");
    if (port_required && !has_port) return bad("expected ADDR:PORT (PORT a number, or * for any port)");
    if (!has_port || port_text == "*") {
      r.any_port = true;
    } else {
      if (port_text.empty() || port_text.size() > 5 ||
          !std::all_of(port_text.begin(), port_text.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return bad("the port is not a number from 1 to 65535 (or *)");
      const unsigned long port = std::stoul(port_text);
      if (port == 0 || port > 65535) return bad("the port is not a number from 1 to 65535 (or *)");
      r.port = static_cast<uint16_t>(port);
    }
    SocketAddress a;
    if (parse_ip(r.host, &a)) {
      r.addresses.push_back(a);
    } else if (is_localhost(r.host) || names_allowed) {
      auto addrs = resolve(r.host);
      if (!addrs) return bad(addrs.error().detail);
      r.addresses = std::move(*addrs);
    } else {
      return bad("not an IP address (write an IPv4 address, [IPv6] or localhost)");
    }
    return r;
  };
  for (const auto& s : listen) {
    auto r = parse(s, /*port_required=*/true, /*names_allowed=*/false, names.listen);
    if (!r) return r.take_error();
    p.listen_.push_back(std::move(*r));
  }
  for (const auto& s : connect) {
    auto r = parse(s, /*port_required=*/false, /*names_allowed=*/true, names.connect);
    if (!r) return r.take_error();
    p.connect_.push_back(std::move(*r));
  }
  p.names_ = std::move(names);
  return p;
}

bool NetworkPolicy::matches(const std::vector<Rule>& rules, const SocketAddress& given) {
  // An IPv4-mapped IPv6 address (::ffff:a.b.c.d) is the IPv4 address it maps.
  SocketAddress a = given;
  static constexpr uint8_t kMapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  if (a.v6 && std::memcmp(a.addr, kMapped, 12) == 0) {
    a.v6 = false;
    std::memmove(a.addr, a.addr + 12, 4);
    std::memset(a.addr + 4, 0, 12);
  }
  for (const Rule& r : rules) {
    if (!r.any_port && r.port != a.port) continue;
    for (const SocketAddress& b : r.addresses) {
      if (b.same_ip(a)) return true;
    }
  }
  return false;
}

bool NetworkPolicy::allows_bind(const SocketAddress& a) const { return matches(listen_, a); }
bool NetworkPolicy::allows_connect(const SocketAddress& a) const { return matches(connect_, a); }

bool NetworkPolicy::allows_lookup(std::string_view name) const {
  if (is_localhost(name)) return allows_anything();
  return std::any_of(connect_.begin(), connect_.end(), [&](const Rule& r) {
    return r.host.size() == name.size() && strncasecmp(r.host.data(), name.data(), name.size()) == 0;
  });
}

}  // namespace wasinn
