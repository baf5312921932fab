// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "abi/wasmedge_sockets.h"

#include <fcntl.h>
#include <netdb.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "base/log.h"

namespace wasinn::wasmedge_sockets {

uint16_t wasi_errno(int e) {
  switch (e) {
    case 0: return kSuccess;
    case E2BIG: return 1;
    case EACCES: return kAcces;
    case EPERM: return 63;
    case EADDRINUSE: return 3;
    case EADDRNOTAVAIL: return 4;
    case EAFNOSUPPORT: return kAfNoSupport;
    case EAGAIN: return kAgain;
    case EALREADY: return 7;
    case EBADF: return kBadf;
    case ECONNABORTED: return 13;
    case ECONNREFUSED: return 14;
    case ECONNRESET: return 15;
    case EDESTADDRREQ: return 17;
    case EFAULT: return kFault;
    case EHOSTUNREACH: return 23;
    case EINPROGRESS: return 26;
    case EINTR: return 27;
    case EINVAL: return kInval;
    case EIO: return kIo;
    case EISCONN: return 30;
    case EMFILE: return kMfile;
    case EMSGSIZE: return 35;
    case ENETDOWN: return 38;
    case ENETRESET: return 39;
    case ENETUNREACH: return 40;
    case ENFILE: return 41;
    case ENOBUFS: return 42;
    case ENOMEM: return kNoMem;
    case ENOPROTOOPT: return kNoProtoOpt;
    case ENOSYS: return kNoSys;
    case ENOTCONN: return 53;
    case ENOTSOCK: return kNotSock;
    case EOPNOTSUPP: return kNotSup;
    case EPIPE: return 64;
    case EPROTONOSUPPORT: return 66;
    case EPROTOTYPE: return 67;
    case ETIMEDOUT: return 73;
    default: return kIo;
  }
}

SocketTable::SocketTable(std::shared_ptr<const NetworkPolicy> policy, bool force_nonblocking)
    : policy_(policy ? std::move(policy) : std::make_shared<const NetworkPolicy>()),
      force_nonblocking_(force_nonblocking) {}

SocketTable::~SocketTable() {
  for (auto& [fd, e] : entries_) ::close(e.os_fd);
}

SocketTable::Entry* SocketTable::find(uint32_t fd) {
  auto it = entries_.find(fd);
  return it == entries_.end() ? nullptr : &it->second;
}

uint32_t SocketTable::add(int os_fd, bool stream) {
  if (entries_.size() >= kMaxSockets || next_ == UINT32_MAX || next_ > INT32_MAX) {
    ::close(os_fd);
    return 0;
  }
  if (force_nonblocking_) ::fcntl(os_fd, F_SETFL, ::fcntl(os_fd, F_GETFL) | O_NONBLOCK);
  const uint32_t fd = next_++;  // never reused, as the nn handles
  entries_[fd] = Entry{os_fd, stream, false};
  return fd;
}

bool SocketTable::close(uint32_t fd) {
  auto it = entries_.find(fd);
  if (it == entries_.end()) return false;
  ::close(it->second.os_fd);
  entries_.erase(it);
  return true;
}

namespace {

// Little-endian fields of guest structs, read and written through the bounds-checked view.
template <class T>
bool read_le(const GuestMemoryView& m, uint32_t at, T* out) {
  auto b = m.bytes(at, sizeof(T), "");
  if (!b) return false;
  std::memcpy(out, b->data(), sizeof(T));
  return true;
}
template <class T>
bool write_le(const GuestMemoryView& m, uint64_t at, T v) {
  if (at > UINT32_MAX) return false;
  auto b = m.bytes(static_cast<uint32_t>(at), sizeof(T), "");
  if (!b) return false;
  std::memcpy(b->data(), &v, sizeof(T));
  return true;
}
bool can_write(const GuestMemoryView& m, uint32_t at, uint64_t n) { return m.in_bounds(at, n); }

// An errno from a failed host call, retried on EINTR by the callers.
uint16_t last_errno() { return wasi_errno(errno); }

// The guest's __wasi_address_t {u8* buf; u32 buf_len} at `at`: its buffer's bytes.
bool address_buffer(const GuestMemoryView& m, uint32_t at, std::span<uint8_t>* out) {
  uint32_t buf = 0, len = 0;
  if (!read_le(m, at, &buf) || !read_le(m, at + 4ull > UINT32_MAX ? UINT32_MAX : at + 4, &len)) return false;
  auto b = m.bytes(buf, len, "");
  if (!b) return false;
  *out = *b;
  return true;
}

// An address the guest passes for bind or connect: 4 bytes IPv4, 16 IPv6.
uint16_t guest_address(const GuestMemoryView& m, uint32_t at, uint32_t port, SocketAddress* out) {
  std::span<uint8_t> buf;
  if (!address_buffer(m, at, &buf)) return kFault;
  if (buf.size() != 4 && buf.size() != 16) return kInval;
  if (port > 65535) return kInval;
  *out = SocketAddress{};
  out->v6 = buf.size() == 16;
  std::memcpy(out->addr, buf.data(), buf.size());
  out->port = static_cast<uint16_t>(port);
  return kSuccess;
}

// The guest's iovec array {u8* buf; u32 len}[n] as host iovecs over guest memory.
uint16_t guest_iovs(const GuestMemoryView& m, uint32_t iovs, uint32_t n, std::vector<iovec>* out) {
  if (n > kMaxIovs) return kInval;
  auto arr = m.bytes(iovs, uint64_t{n} * 8, "");
  if (!arr) return kFault;
  out->clear();
  uint64_t total = 0;
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t buf = 0, len = 0;
    std::memcpy(&buf, arr->data() + i * 8, 4);
    std::memcpy(&len, arr->data() + i * 8 + 4, 4);
    len = static_cast<uint32_t>(std::min<uint64_t>(len, UINT32_MAX - total));  // the total fits a u32
    auto b = m.bytes(buf, len, "");
    if (!b) return kFault;
    total += len;
    out->push_back(iovec{b->data(), b->size()});
  }
  return kSuccess;
}

}  // namespace

uint16_t sock_open(Call c, uint32_t family, uint32_t type, uint32_t fd_out) {
  if (!can_write(c.memory, fd_out, 4)) return kFault;
  int domain;
  switch (family) {
    case 1: domain = AF_INET; break;
    case 2: domain = AF_INET6; break;
    case 3: return kNoSys;  // AF_UNIX: WasmEdge's too needs a flag for it; wasinn has none
    default: return kInval;
  }
  int kind;
  switch (type) {
    case 1: kind = SOCK_DGRAM; break;
    case 2: kind = SOCK_STREAM; break;
    default: return kInval;
  }
  if (c.table.size() >= kMaxSockets) return kMfile;
  const int os_fd = ::socket(domain, kind | SOCK_CLOEXEC, 0);
  if (os_fd < 0) return last_errno();
  const uint32_t fd = c.table.add(os_fd, kind == SOCK_STREAM);
  if (fd == 0) return kMfile;
  write_le<uint32_t>(c.memory, fd_out, fd);
  return kSuccess;
}

uint16_t sock_bind(Call c, uint32_t fd, uint32_t address, uint32_t port) {
  SocketTable::Entry* e = c.table.find(fd);
  if (!e) return kBadf;
  SocketAddress a;
  if (const uint16_t rc = guest_address(c.memory, address, port, &a); rc != kSuccess) return rc;
  if (!c.table.policy().allows_bind(a)) {
    logger().warn(
        "guest: sock_bind {} refused (errno {}, ACCES): a guest may listen only on an address {} names; "
        "run with {} {} to allow it",
        a.text(), kAcces, c.table.policy().names().listen, c.table.policy().names().listen,
        a.port ? a.text() : a.text().substr(0, a.text().rfind(':')) + ":*");
    return kAcces;
  }
  socklen_t len = 0;
  const sockaddr_storage ss = a.to_sockaddr(&len);
  if (::bind(e->os_fd, reinterpret_cast<const sockaddr*>(&ss), len) != 0) return last_errno();
  e->bound = true;
  return kSuccess;
}

uint16_t sock_connect(Call c, uint32_t fd, uint32_t address, uint32_t port) {
  SocketTable::Entry* e = c.table.find(fd);
  if (!e) return kBadf;
  SocketAddress a;
  if (const uint16_t rc = guest_address(c.memory, address, port, &a); rc != kSuccess) return rc;
  if (!c.table.policy().allows_connect(a)) {
    logger().warn(
        "guest: sock_connect to {} refused (errno {}, ACCES): a guest may connect only to hosts {} names; "
        "run with {} {} to allow it",
        a.text(), kAcces, c.table.policy().names().connect, c.table.policy().names().connect, a.text());
    return kAcces;
  }
  socklen_t len = 0;
  const sockaddr_storage ss = a.to_sockaddr(&len);
  int rc;
  do rc = ::connect(e->os_fd, reinterpret_cast<const sockaddr*>(&ss), len);
  while (rc != 0 && errno == EINTR);
  return rc == 0 ? kSuccess : last_errno();
}

uint16_t sock_listen(Call c, uint32_t fd, uint32_t backlog) {
  SocketTable::Entry* e = c.table.find(fd);
  if (!e) return kBadf;
  if (!e->bound) {
    // listen() on an unbound socket would bind it to any address and a free port.
    logger().warn(
        "guest: sock_listen refused (errno {}, ACCES): the socket is not bound; bind it first to an "
        "address {} allows",
        kAcces, c.table.policy().names().listen);
    return kAcces;
  }
  const int n = static_cast<int32_t>(backlog) <= 0 ? SOMAXCONN : std::min<int>(backlog, SOMAXCONN);
  return ::listen(e->os_fd, n) == 0 ? kSuccess : last_errno();
}

uint16_t sock_accept(Call c, uint32_t fd, uint32_t fd_out) {
  SocketTable::Entry* e = c.table.find(fd);
  if (!e) return kBadf;
  if (!can_write(c.memory, fd_out, 4)) return kFault;
  if (c.table.size() >= kMaxSockets) return kMfile;
  int os_fd;
  do os_fd = ::accept4(e->os_fd, nullptr, nullptr, SOCK_CLOEXEC);
  while (os_fd < 0 && errno == EINTR);
  if (os_fd < 0) return last_errno();
  const uint32_t new_fd = c.table.add(os_fd, true);
  if (new_fd == 0) return kMfile;
  write_le<uint32_t>(c.memory, fd_out, new_fd);
  return kSuccess;
}

namespace {

// The socket behind a guest fd and the guest's iovecs (ptr, len pairs, bounds-checked) as a
// message over them, for recvmsg/sendmsg.
struct GuestMessage {
  int os_fd = -1;
  std::vector<iovec> iov;
  msghdr msg{};
};
uint16_t guest_message(Call c, uint32_t fd, uint32_t iovs, uint32_t iovs_len, GuestMessage* m) {
  SocketTable::Entry* e = c.table.find(fd);
  if (!e) return kBadf;
  if (const uint16_t rc = guest_iovs(c.memory, iovs, iovs_len, &m->iov); rc != kSuccess) return rc;
  m->os_fd = e->os_fd;
  m->msg.msg_iov = m->iov.data();
  m->msg.msg_iovlen = m->iov.size();
  return kSuccess;
}

uint16_t receive(Call c, uint32_t fd, uint32_t iovs, uint32_t iovs_len, int flags, uint32_t* n, bool* truncated) {
  GuestMessage m;
  if (const uint16_t rc = guest_message(c, fd, iovs, iovs_len, &m); rc != kSuccess) return rc;
  ssize_t got;
  do got = ::recvmsg(m.os_fd, &m.msg, flags);
  while (got < 0 && errno == EINTR);
  if (got < 0) return last_errno();
  *n = static_cast<uint32_t>(got);
  *truncated = (m.msg.msg_flags & MSG_TRUNC) != 0;
  return kSuccess;
}

uint16_t transmit(Call c, uint32_t fd, uint32_t iovs, uint32_t iovs_len, uint32_t* n) {
  GuestMessage m;
  if (const uint16_t rc = guest_message(c, fd, iovs, iovs_len, &m); rc != kSuccess) return rc;
  ssize_t sent;
  // MSG_NOSIGNAL: a peer gone is EPIPE for the guest, never SIGPIPE for the host.
  do sent = ::sendmsg(m.os_fd, &m.msg, MSG_NOSIGNAL);
  while (sent < 0 && errno == EINTR);
  if (sent < 0) return last_errno();
  *n = static_cast<uint32_t>(sent);
  return kSuccess;
}

}  // namespace

uint16_t sock_recv(Call c, uint32_t fd, uint32_t iovs, uint32_t iovs_len, uint32_t ri_flags, uint32_t ro_datalen,
                   uint32_t ro_flags) {
  if (!c.table.find(fd)) return kBadf;
  if (ri_flags & ~3u) return kInval;  // RECV_PEEK 1, RECV_WAITALL 2
  if (!can_write(c.memory, ro_datalen, 4) || !can_write(c.memory, ro_flags, 2)) return kFault;
  const int flags = ((ri_flags & 1) ? MSG_PEEK : 0) | ((ri_flags & 2) ? MSG_WAITALL : 0);
  uint32_t n = 0;
  bool truncated = false;
  if (const uint16_t rc = receive(c, fd, iovs, iovs_len, flags, &n, &truncated); rc != kSuccess) return rc;
  write_le<uint32_t>(c.memory, ro_datalen, n);
  write_le<uint16_t>(c.memory, ro_flags, truncated ? 1 : 0);  // RECV_DATA_TRUNCATED
  return kSuccess;
}

uint16_t sock_send(Call c, uint32_t fd, uint32_t iovs, uint32_t iovs_len, uint32_t si_flags, uint32_t so_datalen) {
  if (!c.table.find(fd)) return kBadf;
  if (si_flags != 0) return kInval;  // WASI defines no send flags
  if (!can_write(c.memory, so_datalen, 4)) return kFault;
  uint32_t n = 0;
  if (const uint16_t rc = transmit(c, fd, iovs, iovs_len, &n); rc != kSuccess) return rc;
  write_le<uint32_t>(c.memory, so_datalen, n);
  return kSuccess;
}

uint16_t sock_shutdown(Call c, uint32_t fd, uint32_t how) {
  SocketTable::Entry* e = c.table.find(fd);
  if (!e) return kBadf;
  int h;
  switch (how) {
    case 1: h = SHUT_RD; break;
    case 2: h = SHUT_WR; break;
    case 3: h = SHUT_RDWR; break;
    default: return kInval;
  }
  return ::shutdown(e->os_fd, h) == 0 ? kSuccess : last_errno();
}

namespace {

uint16_t socket_address(Call c, uint32_t fd, bool peer, uint32_t address, uint32_t type_out, uint32_t port_out) {
  SocketTable::Entry* e = c.table.find(fd);
  if (!e) return kBadf;
  std::span<uint8_t> buf;
  if (!address_buffer(c.memory, address, &buf)) return kFault;
  if (buf.size() != 4 && buf.size() != 16) return kInval;
  if (!can_write(c.memory, type_out, 4) || !can_write(c.memory, port_out, 4)) return kFault;
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  const int rc = peer ? ::getpeername(e->os_fd, reinterpret_cast<sockaddr*>(&ss), &len)
                      : ::getsockname(e->os_fd, reinterpret_cast<sockaddr*>(&ss), &len);
  if (rc != 0) return last_errno();
  SocketAddress a;
  if (!SocketAddress::from_sockaddr(ss, &a)) return kAfNoSupport;
  if (buf.size() < (a.v6 ? 16u : 4u)) return kNoMem;  // as WasmEdge: an IPv6 address in 4 bytes
  std::memcpy(buf.data(), a.addr, a.v6 ? 16 : 4);
  // WasmEdge's V1 answers 4 or 6 here, not its address family enum (kept for old guests).
  write_le<uint32_t>(c.memory, type_out, a.v6 ? 6 : 4);
  write_le<uint32_t>(c.memory, port_out, a.port);
  return kSuccess;
}

// WasmEdge's __wasi_sock_opt_so_t -> SO_*; -1 for none.
int option_name(uint32_t name) {
  constexpr int kNames[] = {SO_REUSEADDR, SO_TYPE,     SO_ERROR,     SO_DONTROUTE,  SO_BROADCAST,
                            SO_SNDBUF,    SO_RCVBUF,   SO_KEEPALIVE, SO_OOBINLINE,  SO_LINGER,
                            SO_RCVLOWAT,  SO_RCVTIMEO, SO_SNDTIMEO,  SO_ACCEPTCONN, SO_BINDTODEVICE};
  return name < std::size(kNames) ? kNames[name] : -1;
}

bool is_timeout(uint32_t name) { return name == 11 || name == 12; }

}  // namespace

uint16_t sock_getlocaladdr(Call c, uint32_t fd, uint32_t address, uint32_t type_out, uint32_t port_out) {
  return socket_address(c, fd, false, address, type_out, port_out);
}

uint16_t sock_getpeeraddr(Call c, uint32_t fd, uint32_t address, uint32_t type_out, uint32_t port_out) {
  return socket_address(c, fd, true, address, type_out, port_out);
}

uint16_t sock_getsockopt(Call c, uint32_t fd, uint32_t level, uint32_t name, uint32_t flag, uint32_t flag_size_io) {
  SocketTable::Entry* e = c.table.find(fd);
  if (!e) return kBadf;
  if (level != 0) return kInval;  // SOL_SOCKET only
  const int opt = option_name(name);
  if (opt < 0) return kInval;
  uint32_t size = 0;
  if (!read_le(c.memory, flag_size_io, &size) || !can_write(c.memory, flag_size_io, 4)) return kFault;
  auto out = c.memory.bytes(flag, size, "");
  if (!out) return kFault;
  if (opt == SO_BINDTODEVICE) {  // wasinn binds to no device
    write_le<uint32_t>(c.memory, flag_size_io, 0);
    return kSuccess;
  }
  if (is_timeout(name)) {  // a wasm32 timeval: i64 seconds, i64 microseconds
    if (size < 16) return kInval;
    timeval tv{};
    socklen_t len = sizeof tv;
    if (::getsockopt(e->os_fd, SOL_SOCKET, opt, &tv, &len) != 0) return last_errno();
    const int64_t sec = tv.tv_sec, usec = tv.tv_usec;
    std::memcpy(out->data(), &sec, 8);
    std::memcpy(out->data() + 8, &usec, 8);
    write_le<uint32_t>(c.memory, flag_size_io, 16);
    return kSuccess;
  }
  if (opt == SO_LINGER) {
    if (size < 8) return kInval;
    linger l{};
    socklen_t len = sizeof l;
    if (::getsockopt(e->os_fd, SOL_SOCKET, opt, &l, &len) != 0) return last_errno();
    const int32_t v[2] = {l.l_onoff, l.l_linger};
    std::memcpy(out->data(), v, 8);
    write_le<uint32_t>(c.memory, flag_size_io, 8);
    return kSuccess;
  }
  if (size < 4) return kInval;
  int v = 0;
  socklen_t len = sizeof v;
  if (::getsockopt(e->os_fd, SOL_SOCKET, opt, &v, &len) != 0) return last_errno();
  if (opt == SO_TYPE) v = v == SOCK_DGRAM ? 1 : v == SOCK_STREAM ? 2 : 0;
  if (opt == SO_ERROR) v = wasi_errno(v);
  const int32_t v32 = v;
  std::memcpy(out->data(), &v32, 4);
  write_le<uint32_t>(c.memory, flag_size_io, 4);
  return kSuccess;
}

uint16_t sock_setsockopt(Call c, uint32_t fd, uint32_t level, uint32_t name, uint32_t flag, uint32_t flag_size) {
  SocketTable::Entry* e = c.table.find(fd);
  if (!e) return kBadf;
  if (level != 0) return kInval;
  const int opt = option_name(name);
  if (opt < 0) return kInval;
  auto in = c.memory.bytes(flag, flag_size, "");
  if (!in) return kFault;
  switch (opt) {
    case SO_TYPE:
    case SO_ERROR:
    case SO_ACCEPTCONN: return kNoProtoOpt;  // read-only
    case SO_BINDTODEVICE: return flag_size == 0 ? kSuccess : kNotSup;
    default: break;
  }
  if (is_timeout(name)) {
    if (flag_size != 16) return kInval;
    int64_t sec = 0, usec = 0;
    std::memcpy(&sec, in->data(), 8);
    std::memcpy(&usec, in->data() + 8, 8);
    if (sec < 0 || usec < 0 || usec >= 1000000) return kInval;
    const timeval tv{static_cast<time_t>(sec), static_cast<suseconds_t>(usec)};
    return ::setsockopt(e->os_fd, SOL_SOCKET, opt, &tv, sizeof tv) == 0 ? kSuccess : last_errno();
  }
  if (opt == SO_LINGER) {
    if (flag_size != 8) return kInval;
    int32_t v[2];
    std::memcpy(v, in->data(), 8);
    const linger l{v[0], v[1]};
    return ::setsockopt(e->os_fd, SOL_SOCKET, opt, &l, sizeof l) == 0 ? kSuccess : last_errno();
  }
  if (flag_size != 4) return kInval;
  int32_t v;
  std::memcpy(&v, in->data(), 4);
  const int iv = v;
  return ::setsockopt(e->os_fd, SOL_SOCKET, opt, &iv, sizeof iv) == 0 ? kSuccess : last_errno();
}

uint16_t fd_read(Call c, uint32_t fd, uint32_t iovs, uint32_t iovs_len, uint32_t nread_out) {
  if (!c.table.find(fd)) return kBadf;
  if (!can_write(c.memory, nread_out, 4)) return kFault;
  uint32_t n = 0;
  bool truncated = false;
  if (const uint16_t rc = receive(c, fd, iovs, iovs_len, 0, &n, &truncated); rc != kSuccess) return rc;
  write_le<uint32_t>(c.memory, nread_out, n);
  return kSuccess;
}

uint16_t fd_write(Call c, uint32_t fd, uint32_t iovs, uint32_t iovs_len, uint32_t nwritten_out) {
  if (!c.table.find(fd)) return kBadf;
  if (!can_write(c.memory, nwritten_out, 4)) return kFault;
  uint32_t n = 0;
  if (const uint16_t rc = transmit(c, fd, iovs, iovs_len, &n); rc != kSuccess) return rc;
  write_le<uint32_t>(c.memory, nwritten_out, n);
  return kSuccess;
}

uint16_t fd_close(Call c, uint32_t fd) { return c.table.close(fd) ? kSuccess : kBadf; }

uint16_t fd_fdstat_get(Call c, uint32_t fd, uint32_t stat_out) {
  SocketTable::Entry* e = c.table.find(fd);
  if (!e) return kBadf;
  if (!can_write(c.memory, stat_out, 24)) return kFault;
  const int fl = ::fcntl(e->os_fd, F_GETFL);
  if (fl < 0) return last_errno();
  // fd_read, fd_fdstat_set_flags, fd_write, poll_fd_readwrite, sock_shutdown, sock_accept
  constexpr uint64_t kRights = (1ull << 1) | (1ull << 3) | (1ull << 6) | (1ull << 27) | (1ull << 28) | (1ull << 29);
  auto out = c.memory.bytes(stat_out, 24, "");
  std::memset(out->data(), 0, 24);
  out->data()[0] = e->stream ? 6 : 5;  // SOCKET_STREAM, SOCKET_DGRAM
  const uint16_t flags = (fl & O_NONBLOCK) ? 4 : 0;
  std::memcpy(out->data() + 2, &flags, 2);
  std::memcpy(out->data() + 8, &kRights, 8);
  std::memcpy(out->data() + 16, &kRights, 8);
  return kSuccess;
}

uint16_t fd_fdstat_set_flags(Call c, uint32_t fd, uint32_t flags) {
  SocketTable::Entry* e = c.table.find(fd);
  if (!e) return kBadf;
  if (flags & ~uint32_t{4}) return flags > 0x1f ? kInval : kNotSup;  // only NONBLOCK means anything here
  const int fl = ::fcntl(e->os_fd, F_GETFL);
  if (fl < 0) return last_errno();
  const bool nonblocking = (flags & 4) || c.table.force_nonblocking();
  if (::fcntl(e->os_fd, F_SETFL, nonblocking ? (fl | O_NONBLOCK) : (fl & ~O_NONBLOCK)) != 0) return last_errno();
  return kSuccess;
}

}  // namespace wasinn::wasmedge_sockets
