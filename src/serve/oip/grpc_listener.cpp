// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "serve/oip/grpc_listener.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include <fmt/format.h>

#include "base/log.h"

namespace wasinn::oip_server {
namespace {

// What an epoll event is about: the upper half of its data says which kind, the lower the fd.
enum Kind : uint64_t { kStop = 1, kListening = 2, kWatched = 3 };
uint64_t tag(Kind kind, int fd) { return (static_cast<uint64_t>(kind) << 32) | static_cast<uint32_t>(fd); }

std::string peer_text(const sockaddr_storage& a) {
  char host[INET6_ADDRSTRLEN] = "?";
  if (a.ss_family == AF_INET) {
    const auto& in = reinterpret_cast<const sockaddr_in&>(a);
    inet_ntop(AF_INET, &in.sin_addr, host, sizeof host);
    return fmt::format("{}:{}", host, ntohs(in.sin_port));
  }
  const auto& in6 = reinterpret_cast<const sockaddr_in6&>(a);
  inet_ntop(AF_INET6, &in6.sin6_addr, host, sizeof host);
  return fmt::format("[{}]:{}", host, ntohs(in6.sin6_port));
}

void set_port(sockaddr* a, int port) {
  if (a->sa_family == AF_INET)
    reinterpret_cast<sockaddr_in*>(a)->sin_port = htons(static_cast<uint16_t>(port));
  else
    reinterpret_cast<sockaddr_in6*>(a)->sin6_port = htons(static_cast<uint16_t>(port));
}

}  // namespace

Result<std::unique_ptr<GrpcListener>> GrpcListener::bind(const std::string& address) {
  const auto colon = address.rfind(':');
  std::string host = address.substr(0, colon);
  const std::string port = colon == std::string::npos ? "" : address.substr(colon + 1);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  // gRPC's own listener takes 0.0.0.0 as every address of both families (its "::" socket takes
  // IPv4 too); so does this one, on a machine without IPv6 as 0.0.0.0 alone.
  if (host == "0.0.0.0") {
    if (auto both = bind_host("::", port, address)) return both;
  }
  return bind_host(host, port, address);
}

Result<std::unique_ptr<GrpcListener>> GrpcListener::bind_host(const std::string& host, const std::string& port,
                                                              const std::string& address) {
  auto fail = [&](const std::string& why) {
    return make_error(Errc::invalid_argument, fmt::format("--oip-grpc {}: cannot listen there: {}", address, why));
  };
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo* found = nullptr;
  if (const int rc = getaddrinfo(host.c_str(), port.c_str(), &hints, &found); rc != 0)
    return fail(fmt::format("{} does not resolve ({})", host, gai_strerror(rc)));
  std::unique_ptr<addrinfo, void (*)(addrinfo*)> list(found, freeaddrinfo);
  bool has_ipv4 = false;
  for (const addrinfo* ai = found; ai; ai = ai->ai_next) has_ipv4 |= ai->ai_family == AF_INET;
  std::unique_ptr<GrpcListener> l(new GrpcListener());
  int first_error = 0;
  for (const addrinfo* ai = found; ai; ai = ai->ai_next) {
    if (ai->ai_family != AF_INET && ai->ai_family != AF_INET6) continue;
    const int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
      first_error = first_error ? first_error : errno;
      continue;
    }
    // As gRPC's own listener: SO_REUSEADDR but never SO_REUSEPORT (a second server on the port
    // is refused), "::" alone is both IPv6 and IPv4, Nagle off (calls are small writes).
    const int one = 1, zero = 0;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (ai->ai_family == AF_INET6) {
      const bool dual = !has_ipv4 && IN6_IS_ADDR_UNSPECIFIED(&reinterpret_cast<sockaddr_in6*>(ai->ai_addr)->sin6_addr);
      setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, dual ? &zero : &one, sizeof one);
    }
    if (l->port_) set_port(ai->ai_addr, l->port_);  // port 0: every address gets the port the first one got
    if (::bind(fd, ai->ai_addr, ai->ai_addrlen) != 0 || listen(fd, SOMAXCONN) != 0) {
      const int err = errno;
      close(fd);
      if (err == EADDRINUSE) return fail("the address is in use (another server listens on that port)");
      first_error = first_error ? first_error : err;
      continue;
    }
    sockaddr_storage bound{};
    socklen_t len = sizeof bound;
    getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &len);
    l->port_ = ntohs(bound.ss_family == AF_INET ? reinterpret_cast<sockaddr_in&>(bound).sin_port
                                                : reinterpret_cast<sockaddr_in6&>(bound).sin6_port);
    l->listening_.push_back(fd);
  }
  if (l->listening_.empty())
    return fail(first_error ? std::strerror(first_error) : "no IPv4 or IPv6 address to listen on");
  return l;
}

void GrpcListener::start(std::unique_ptr<grpc::experimental::ExternalConnectionAcceptor> acceptor,
                         ConnectionLimit& limit) {
  acceptor_ = std::move(acceptor);
  limit_ = &limit;
  epoll_ = epoll_create1(EPOLL_CLOEXEC);
  stop_event_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  epoll_event stop{EPOLLIN, {.u64 = tag(kStop, stop_event_)}};
  epoll_ctl(epoll_, EPOLL_CTL_ADD, stop_event_, &stop);
  for (int fd : listening_) {
    epoll_event in{EPOLLIN, {.u64 = tag(kListening, fd)}};
    epoll_ctl(epoll_, EPOLL_CTL_ADD, fd, &in);
  }
  thread_ = std::thread([this] { run(); });
}

void GrpcListener::run() {
  epoll_event events[64];
  for (;;) {
    const int n = epoll_wait(epoll_, events, 64, -1);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      logger().error("gRPC's listener stopped accepting: epoll_wait: {}", std::strerror(errno));
      return;
    }
    for (int i = 0; i < n; ++i) {
      const auto kind = static_cast<Kind>(events[i].data.u64 >> 32);
      const int fd = static_cast<int>(events[i].data.u64 & 0xffffffffu);
      if (kind == kStop) return;
      if (kind == kListening) {
        accept_all(fd);
        continue;
      }
      // A watched connection was shut down (by gRPC) or closed by its client: no longer open.
      epoll_ctl(epoll_, EPOLL_CTL_DEL, fd, nullptr);
      close(fd);
      watched_.erase(fd);
      limit_->closed();
    }
  }
}

void GrpcListener::accept_all(int listening) {
  for (;;) {
    sockaddr_storage peer{};
    socklen_t len = sizeof peer;
    const int fd = accept4(listening, reinterpret_cast<sockaddr*>(&peer), &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) return;
      // Out of descriptors, say: wait a little rather than spin on the ready listener, and say
      // so once a minute at most.
      const auto now = std::chrono::steady_clock::now();
      if (now - last_accept_warning_ > std::chrono::minutes(1)) {
        logger().warn("gRPC's listener cannot accept a connection: {}", std::strerror(errno));
        last_accept_warning_ = now;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      return;
    }
    if (!limit_->admit(peer_text(peer))) {
      close(fd);
      continue;
    }
    const int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    // The duplicate sees the socket's end (EPOLLRDHUP: the client closed; EPOLLHUP: shut down
    // both ways) and, asking for no EPOLLIN, never wakes for the data gRPC reads.
    const int watch = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    epoll_event end{EPOLLRDHUP, {.u64 = tag(kWatched, watch)}};
    if (watch < 0 || epoll_ctl(epoll_, EPOLL_CTL_ADD, watch, &end) != 0) {
      if (watch >= 0) close(watch);
      close(fd);
      limit_->closed();
      continue;
    }
    watched_.insert(watch);
    grpc::experimental::ExternalConnectionAcceptor::NewConnectionParameters p;
    p.listener_fd = listening;
    p.fd = fd;  // gRPC's from here
    acceptor_->HandleNewConnection(&p);
  }
}

void GrpcListener::stop() {
  if (thread_.joinable()) {
    const uint64_t one = 1;
    [[maybe_unused]] const auto written = write(stop_event_, &one, sizeof one);
    thread_.join();
  }
  for (int fd : listening_) close(fd);
  listening_.clear();
  // gRPC holds its own descriptor of each connection still open: closing these ends nothing.
  for (int fd : watched_) close(fd);
  watched_.clear();
  if (epoll_ >= 0) close(epoll_);
  if (stop_event_ >= 0) close(stop_event_);
  epoll_ = stop_event_ = -1;
}

GrpcListener::~GrpcListener() { stop(); }

}  // namespace wasinn::oip_server
