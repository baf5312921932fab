// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// WasmEdge's socket ABI in module `wasi_snapshot_preview1` (the V1 functions WasmEdge's
// wasifunc.h declares and the crate wasmedge_wasi_socket calls; LlamaEdge's llama-api-server
// imports them), over a guest's SocketTable, plus the WASI fd functions for those sockets.
//
// A guest socket is a host socket behind a guest fd from kFdBase up (Wasmtime numbers its own
// fds from 0, so the two never meet; engine/socket_imports sends every other fd to Wasmtime).
// What a socket may reach is the table's NetworkPolicy: bind and connect are refused with
// ACCES and a log line naming the flag that would allow them. Every pointer, length, fd and enum
// is checked through GuestMemoryView; an out-pointer is checked before the work. Each function
// returns a WASI errno. Not synchronized: one guest store's thread.
#pragma once

#include <cstdint>
#include <map>
#include <memory>

#include "abi/guest_memory.h"
#include "abi/network_policy.h"

namespace wasinn::wasmedge_sockets {

inline constexpr uint32_t kFdBase = 0x40000000u;  // the first guest fd of a socket
inline constexpr size_t kMaxSockets = 1024;       // open sockets per guest; past it MFILE
inline constexpr uint32_t kMaxIovs = 1024;        // IOV_MAX, as WasmEdge's kIOVMax

// The WASI errnos these functions answer.
inline constexpr uint16_t kSuccess = 0;
inline constexpr uint16_t kAcces = 2;
inline constexpr uint16_t kAfNoSupport = 5;
inline constexpr uint16_t kAgain = 6;
inline constexpr uint16_t kBadf = 8;
inline constexpr uint16_t kFault = 21;
inline constexpr uint16_t kInval = 28;
inline constexpr uint16_t kIo = 29;
inline constexpr uint16_t kMfile = 33;
inline constexpr uint16_t kNoMem = 48;
inline constexpr uint16_t kNoProtoOpt = 50;
inline constexpr uint16_t kNoSys = 52;
inline constexpr uint16_t kNotSock = 57;
inline constexpr uint16_t kNotSup = 58;
inline constexpr uint16_t kAiBadFlag = 79;
inline constexpr uint16_t kAiFamily = 81;
inline constexpr uint16_t kAiMemory = 82;
inline constexpr uint16_t kAiNoName = 84;

// A host errno as WASI numbers it (IO for one WASI has no word for).
uint16_t wasi_errno(int host_errno);

class SocketTable {
 public:
  struct Entry {
    int os_fd = -1;
    bool stream = true;
    bool bound = false;  // bound through sock_bind, so it may listen
  };
  // force_nonblocking: every socket is non-blocking whatever the guest asks, and poll_oneoff
  // looks once without waiting (the fuzzer's table, which must never wait).
  explicit SocketTable(std::shared_ptr<const NetworkPolicy> policy, bool force_nonblocking = false);
  ~SocketTable();  // closes every socket
  SocketTable(const SocketTable&) = delete;
  SocketTable& operator=(const SocketTable&) = delete;

  static bool in_range(uint32_t fd) { return fd >= kFdBase; }
  Entry* find(uint32_t fd);
  // Takes os_fd; 0 (and os_fd closed) when the table is full.
  uint32_t add(int os_fd, bool stream);
  bool close(uint32_t fd);
  size_t size() const { return entries_.size(); }
  const NetworkPolicy& policy() const { return *policy_; }
  bool force_nonblocking() const { return force_nonblocking_; }

 private:
  std::shared_ptr<const NetworkPolicy> policy_;
  bool force_nonblocking_;
  std::map<uint32_t, Entry> entries_;
  uint32_t next_ = kFdBase;
};

struct Call {
  SocketTable& table;
  const GuestMemoryView& memory;
};

uint16_t sock_open(Call c, uint32_t family, uint32_t type, uint32_t fd_out);
uint16_t sock_bind(Call c, uint32_t fd, uint32_t address, uint32_t port);
uint16_t sock_connect(Call c, uint32_t fd, uint32_t address, uint32_t port);
uint16_t sock_listen(Call c, uint32_t fd, uint32_t backlog);
// WasmEdge's V1: two parameters (Wasmtime's takes flags too).
uint16_t sock_accept(Call c, uint32_t fd, uint32_t fd_out);
uint16_t sock_recv(Call c, uint32_t fd, uint32_t iovs, uint32_t iovs_len, uint32_t ri_flags, uint32_t ro_datalen,
                   uint32_t ro_flags);
uint16_t sock_send(Call c, uint32_t fd, uint32_t iovs, uint32_t iovs_len, uint32_t si_flags, uint32_t so_datalen);
uint16_t sock_shutdown(Call c, uint32_t fd, uint32_t how);
uint16_t sock_getlocaladdr(Call c, uint32_t fd, uint32_t address, uint32_t type_out, uint32_t port_out);
uint16_t sock_getpeeraddr(Call c, uint32_t fd, uint32_t address, uint32_t type_out, uint32_t port_out);
uint16_t sock_getsockopt(Call c, uint32_t fd, uint32_t level, uint32_t name, uint32_t flag, uint32_t flag_size_io);
uint16_t sock_setsockopt(Call c, uint32_t fd, uint32_t level, uint32_t name, uint32_t flag, uint32_t flag_size);
uint16_t sock_getaddrinfo(Call c, uint32_t node, uint32_t node_len, uint32_t service, uint32_t service_len,
                          uint32_t hints, uint32_t res, uint32_t max_res, uint32_t res_len_out);

// The WASI fd functions, for an fd in the sockets' range.
uint16_t fd_read(Call c, uint32_t fd, uint32_t iovs, uint32_t iovs_len, uint32_t nread_out);
uint16_t fd_write(Call c, uint32_t fd, uint32_t iovs, uint32_t iovs_len, uint32_t nwritten_out);
uint16_t fd_close(Call c, uint32_t fd);
uint16_t fd_fdstat_get(Call c, uint32_t fd, uint32_t stat_out);
uint16_t fd_fdstat_set_flags(Call c, uint32_t fd, uint32_t flags);

}  // namespace wasinn::wasmedge_sockets
