// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// sock_getaddrinfo of WasmEdge's socket ABI (abi/wasmedge_sockets.h): an address literal is
// answered without a lookup; a name only if the NetworkPolicy allows looking it up (a --connect
// host's, or localhost). Results go into the guest's own chain of __wasi_addrinfo_t (28 bytes:
// u16 flags, u8 family, u8 socktype, u8 protocol, u32 addrlen, sockaddr*, canonname*, u32
// canonname_len, next*) and its __wasi_sockaddr_t (12 bytes: u8 family, u32 sa_data_len, sa_data*)
// whose sa_data takes the OS's sa_data (the port, big-endian, then the address), cut to the
// length the guest gave: the crate wasmedge_wasi_socket gives 14 bytes, an IPv4 sockaddr's.
#include <arpa/inet.h>
#include <netdb.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "abi/wasmedge_sockets.h"
#include "base/log.h"

namespace wasinn::wasmedge_sockets {

namespace {

constexpr uint32_t kAddrinfoSize = 28, kSockaddrSize = 12;

// WASI's aiflags bits, in order: PASSIVE, CANONNAME, NUMERICHOST, NUMERICSERV, V4MAPPED, ALL,
// ADDRCONFIG.
constexpr int kAiFlags[] = {AI_PASSIVE,  AI_CANONNAME, AI_NUMERICHOST, AI_NUMERICSERV,
                            AI_V4MAPPED, AI_ALL,       AI_ADDRCONFIG};

int host_ai_flags(uint16_t wasi) {
  int out = 0;
  for (size_t i = 0; i < std::size(kAiFlags); ++i)
    if (wasi & (1u << i)) out |= kAiFlags[i];
  return out;
}

uint16_t wasi_ai_flags(int host) {
  uint16_t out = 0;
  for (size_t i = 0; i < std::size(kAiFlags); ++i)
    if (host & kAiFlags[i]) out |= static_cast<uint16_t>(1u << i);
  return out;
}

uint16_t eai_errno(int rc) {
  switch (rc) {
#ifdef EAI_ADDRFAMILY
    case EAI_ADDRFAMILY: return 77;
#endif
    case EAI_AGAIN: return 78;
    case EAI_BADFLAGS: return kAiBadFlag;
    case EAI_FAIL: return 80;
    case EAI_FAMILY: return kAiFamily;
    case EAI_MEMORY: return kAiMemory;
#ifdef EAI_NODATA
    case EAI_NODATA: return 83;
#endif
    case EAI_NONAME: return kAiNoName;
    case EAI_SERVICE: return 85;
    case EAI_SOCKTYPE: return 86;
    case EAI_SYSTEM: return 87;
    default: return 80;
  }
}

std::string_view without_nuls(std::string_view s) {
  while (!s.empty() && s.back() == '\0') s.remove_suffix(1);  // the crate sends a C string's NUL
  return s;
}

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
}

bool read_u32(const GuestMemoryView& m, uint64_t at, uint32_t* v) {
  if (at > UINT32_MAX) return false;
  auto b = m.bytes(static_cast<uint32_t>(at), 4, "");
  if (!b) return false;
  std::memcpy(v, b->data(), 4);
  return true;
}

// One guest result slot, checked before anything is written.
struct Slot {
  uint8_t* info;                 // 28 bytes
  uint8_t* sockaddr;             // 12 bytes
  std::span<uint8_t> sa_data;    // as long as the guest said
  std::span<uint8_t> canonname;  // as long as the guest said (0: none)
};

}  // namespace

uint16_t sock_getaddrinfo(Call c, uint32_t node_ptr, uint32_t node_len, uint32_t service_ptr, uint32_t service_len,
                          uint32_t hints, uint32_t res, uint32_t max_res, uint32_t res_len_out) {
  const GuestMemoryView& m = c.memory;
  auto node_bytes = m.string(node_ptr, node_len, "");
  auto service_bytes = m.string(service_ptr, service_len, "");
  auto hint = m.bytes(hints, kAddrinfoSize, "");
  uint32_t first = 0;
  if (!node_bytes || !service_bytes || !hint || !read_u32(m, res, &first) || !m.in_bounds(res_len_out, 4))
    return kFault;
  const std::string node(without_nuls(*node_bytes)), service(without_nuls(*service_bytes));
  if (node.find('\0') != std::string::npos || service.find('\0') != std::string::npos) return kAiNoName;
  if (node.empty() && service.empty()) return kAiNoName;
  if (max_res < 1) return kAiMemory;
  uint16_t flags = 0;
  std::memcpy(&flags, hint->data(), 2);
  const uint8_t family = hint->data()[2], socktype = hint->data()[3], protocol = hint->data()[4];
  if (flags & ~0x7fu) return kAiBadFlag;
  if ((flags & 2) && node.empty()) return kAiBadFlag;  // CANONNAME needs a name
  if (family > 2) return kAiFamily;
  if (protocol > 2 || socktype > 2) return kNoSys;

  addrinfo h{};
  h.ai_flags = host_ai_flags(flags);
  h.ai_family = family == 1 ? AF_INET : family == 2 ? AF_INET6 : AF_UNSPEC;
  h.ai_socktype = socktype == 1 ? SOCK_DGRAM : socktype == 2 ? SOCK_STREAM : 0;
  h.ai_protocol = protocol == 1 ? IPPROTO_TCP : protocol == 2 ? IPPROTO_UDP : 0;
  uint8_t scratch[16];
  const bool literal =
      inet_pton(AF_INET, node.c_str(), scratch) == 1 || inet_pton(AF_INET6, node.c_str(), scratch) == 1;
  if (node.empty() || literal) {
    h.ai_flags |= AI_NUMERICHOST;  // nothing to look up
  } else if (!c.table.policy().allows_lookup(node)) {
    logger().warn(
        "guest: sock_getaddrinfo of '{}' refused (errno {}, ACCES): a guest may look up only the hosts {} names "
        "(and localhost); run with {} {} to allow it",
        node, kAcces, c.table.policy().names().connect, c.table.policy().names().connect, node);
    return kAcces;
  }
  if (all_digits(service)) h.ai_flags |= AI_NUMERICSERV;
  addrinfo* found = nullptr;
  if (const int rc =
          ::getaddrinfo(node.empty() ? nullptr : node.c_str(), service.empty() ? nullptr : service.c_str(), &h, &found);
      rc != 0)
    return eai_errno(rc);
  std::vector<const addrinfo*> results;
  for (const addrinfo* ai = found; ai && results.size() < max_res; ai = ai->ai_next) {
    if (ai->ai_addr && (ai->ai_family == AF_INET || ai->ai_family == AF_INET6)) results.push_back(ai);
  }

  // The guest's chain, as many slots as there are results, each checked before any is written.
  std::vector<Slot> slots;
  uint32_t at = first;
  uint16_t rc = kSuccess;
  for (size_t i = 0; i < results.size(); ++i) {
    auto info = m.bytes(at, kAddrinfoSize, "");
    uint32_t sa_ptr = 0, canon_ptr = 0, canon_len = 0, next = 0, sa_data_ptr = 0, sa_data_len = 0;
    if (!info) {
      rc = kFault;
      break;
    }
    std::memcpy(&sa_ptr, info->data() + 12, 4);
    std::memcpy(&canon_ptr, info->data() + 16, 4);
    std::memcpy(&canon_len, info->data() + 20, 4);
    std::memcpy(&next, info->data() + 24, 4);
    auto sa = m.bytes(sa_ptr, kSockaddrSize, "");
    if (!sa) {
      rc = kFault;
      break;
    }
    std::memcpy(&sa_data_len, sa->data() + 4, 4);
    std::memcpy(&sa_data_ptr, sa->data() + 8, 4);
    auto sa_data = m.bytes(sa_data_ptr, sa_data_len, "");
    auto canon = m.bytes(canon_ptr, canon_len, "");
    if (!sa_data || !canon) {
      rc = kFault;
      break;
    }
    slots.push_back(Slot{info->data(), sa->data(), *sa_data, *canon});
    at = next;
  }
  if (rc == kSuccess) {
    for (size_t i = 0; i < slots.size(); ++i) {
      const addrinfo* ai = results[i];
      Slot& s = slots[i];
      const uint16_t f = wasi_ai_flags(ai->ai_flags);
      std::memcpy(s.info, &f, 2);
      s.info[2] = ai->ai_family == AF_INET6 ? 2 : 1;
      s.info[3] = ai->ai_socktype == SOCK_DGRAM ? 1 : ai->ai_socktype == SOCK_STREAM ? 2 : 0;
      s.info[4] = ai->ai_protocol == IPPROTO_TCP ? 1 : ai->ai_protocol == IPPROTO_UDP ? 2 : 0;
      const uint32_t addrlen = ai->ai_addrlen;
      std::memcpy(s.info + 8, &addrlen, 4);
      uint32_t canon_written = 0;
      if (ai->ai_canonname && !s.canonname.empty()) {
        canon_written = static_cast<uint32_t>(std::min(std::strlen(ai->ai_canonname), s.canonname.size()));
        std::memcpy(s.canonname.data(), ai->ai_canonname, canon_written);
      }
      std::memcpy(s.info + 20, &canon_written, 4);
      s.sockaddr[0] = s.info[2];
      // sa_data: what follows sa_family in the OS's sockaddr (14 bytes IPv4, 26 IPv6).
      const size_t os_len = ai->ai_family == AF_INET6 ? sizeof(sockaddr_in6) - 2 : sizeof(sockaddr_in) - 2;
      const uint32_t n = static_cast<uint32_t>(std::min(os_len, s.sa_data.size()));
      std::memcpy(s.sa_data.data(), reinterpret_cast<const uint8_t*>(ai->ai_addr) + 2, n);
      std::memcpy(s.sockaddr + 4, &n, 4);
    }
    const uint32_t count = static_cast<uint32_t>(slots.size());
    auto out = m.bytes(res_len_out, 4, "");
    std::memcpy(out->data(), &count, 4);
  }
  freeaddrinfo(found);
  return rc;
}

}  // namespace wasinn::wasmedge_sockets
