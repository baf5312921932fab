// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// WasmEdge's socket ABI as LlamaEdge's llama-api-server imports it (tests/cli/sockets_test.cpp):
// the sock_* functions declared as WasmEdge defines them, with fd_read, fd_write, fd_close,
// fd_fdstat_get and poll_oneoff from wasi-libc's <wasi/api.h> on the same sockets.
//   serve PORT N    bind 127.0.0.1:PORT (0: any port), print "listening on PORT", answer N HTTP
//                   requests (HTTP/1.0, the body echoes the request line), each awaited with
//                   poll_oneoff (socket + a 20 s clock); errno E of a call: "NAME: errno E", exit 2
//   connect PORT    connect to 127.0.0.1:PORT, send "ping\n", print the answer
//   poll PORT [FILE] poll_oneoff mixing a listening socket, a clock, stdout and FILE (Wasmtime's fds)
//   bad             bad pointers, fds and enums: prints "CASE=ERRNO" per case
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>
#include <wasi/api.h>

#define WASMEDGE(name) __attribute__((import_module("wasi_snapshot_preview1"), import_name(#name)))

typedef struct {
  uint8_t* buf;
  uint32_t len;
} wasi_address_t;

WASMEDGE(sock_open) uint32_t we_sock_open(uint32_t family, uint32_t type, uint32_t* fd);
WASMEDGE(sock_bind) uint32_t we_sock_bind(uint32_t fd, wasi_address_t* addr, uint32_t port);
WASMEDGE(sock_connect) uint32_t we_sock_connect(uint32_t fd, wasi_address_t* addr, uint32_t port);
WASMEDGE(sock_listen) uint32_t we_sock_listen(uint32_t fd, uint32_t backlog);
WASMEDGE(sock_accept) uint32_t we_sock_accept(uint32_t fd, uint32_t* new_fd);
WASMEDGE(sock_recv)
uint32_t we_sock_recv(uint32_t fd, __wasi_iovec_t* iovs, uint32_t n, uint32_t flags, uint32_t* got, uint32_t* oflags);
WASMEDGE(sock_send)
uint32_t we_sock_send(uint32_t fd, const __wasi_ciovec_t* iovs, uint32_t n, uint32_t flags, uint32_t* sent);
WASMEDGE(sock_shutdown) uint32_t we_sock_shutdown(uint32_t fd, uint32_t how);
WASMEDGE(sock_getlocaladdr)
uint32_t we_sock_getlocaladdr(uint32_t fd, wasi_address_t* addr, uint32_t* type, uint32_t* port);
WASMEDGE(sock_getpeeraddr)
uint32_t we_sock_getpeeraddr(uint32_t fd, wasi_address_t* addr, uint32_t* type, uint32_t* port);
WASMEDGE(sock_setsockopt)
uint32_t we_sock_setsockopt(uint32_t fd, uint32_t level, uint32_t name, const void* flag, uint32_t size);
WASMEDGE(sock_getsockopt)
uint32_t we_sock_getsockopt(uint32_t fd, uint32_t level, uint32_t name, void* flag, uint32_t* size);
WASMEDGE(sock_getaddrinfo)
uint32_t we_sock_getaddrinfo(const char* node, uint32_t node_len, const char* service, uint32_t service_len,
                             const void* hints, uint32_t* res, uint32_t max, uint32_t* res_len);

static uint8_t kLoopback[4] = {127, 0, 0, 1};

static void fail(const char* what, uint32_t e) {
  printf("%s: errno %u\n", what, e);
  exit(2);
}

#define CHECK(what, call)          \
  do {                             \
    uint32_t e_ = (call);          \
    if (e_ != 0) fail((what), e_); \
  } while (0)

static uint32_t stream_socket(void) {
  uint32_t fd = 0;
  CHECK("sock_open", we_sock_open(1, 2, &fd));
  return fd;
}

// Waits for fd to be readable, or 20 s: poll_oneoff with the socket and a clock.
static void await_readable(uint32_t fd) {
  __wasi_subscription_t subs[2];
  memset(subs, 0, sizeof subs);
  subs[0].userdata = 1;
  subs[0].u.tag = __WASI_EVENTTYPE_FD_READ;
  subs[0].u.u.fd_read.file_descriptor = fd;
  subs[1].userdata = 2;
  subs[1].u.tag = __WASI_EVENTTYPE_CLOCK;
  subs[1].u.u.clock.id = __WASI_CLOCKID_MONOTONIC;
  subs[1].u.u.clock.timeout = 20000000000ull;
  __wasi_event_t events[2];
  __wasi_size_t n = 0;
  CHECK("poll_oneoff", __wasi_poll_oneoff(subs, events, 2, &n));
  if (n < 1 || events[0].userdata != 1 || events[0].error != 0) fail("poll_oneoff: no socket event", 0);
}

static int serve(uint32_t port, int count) {
  const uint32_t fd = stream_socket();
  const int one = 1;
  CHECK("sock_setsockopt", we_sock_setsockopt(fd, 0, 0, &one, 4));  // SO_REUSEADDR
  wasi_address_t addr = {kLoopback, 4};
  CHECK("sock_bind", we_sock_bind(fd, &addr, port));
  CHECK("sock_listen", we_sock_listen(fd, 16));
  uint8_t local[16] = {0};
  wasi_address_t local_addr = {local, 16};
  uint32_t type = 0, bound_port = 0;
  CHECK("sock_getlocaladdr", we_sock_getlocaladdr(fd, &local_addr, &type, &bound_port));
  printf("listening on %u (type %u, %u.%u.%u.%u)\n", bound_port, type, local[0], local[1], local[2], local[3]);
  fflush(stdout);
  for (int i = 0; i < count; ++i) {
    await_readable(fd);
    uint32_t conn = 0;
    CHECK("sock_accept", we_sock_accept(fd, &conn));
    uint8_t peer[16] = {0};
    wasi_address_t peer_addr = {peer, 16};
    uint32_t peer_type = 0, peer_port = 0;
    CHECK("sock_getpeeraddr", we_sock_getpeeraddr(conn, &peer_addr, &peer_type, &peer_port));
    __wasi_fdstat_t st;
    CHECK("fd_fdstat_get", __wasi_fd_fdstat_get(conn, &st));
    if (st.fs_filetype != __WASI_FILETYPE_SOCKET_STREAM) fail("fd_fdstat_get: not a stream socket", st.fs_filetype);
    // The request: sock_recv on even connections, fd_read on odd ones, until the blank line.
    char req[2048];
    size_t have = 0;
    while (have < sizeof req - 1 && !strstr(req, "\r\n\r\n")) {
      __wasi_iovec_t iov = {(uint8_t*)req + have, sizeof req - 1 - have};
      uint32_t got = 0, oflags = 0;
      if (i % 2 == 0) {
        CHECK("sock_recv", we_sock_recv(conn, &iov, 1, 0, &got, &oflags));
      } else {
        __wasi_size_t n = 0;
        CHECK("fd_read", __wasi_fd_read(conn, &iov, 1, &n));
        got = n;
      }
      if (got == 0) break;
      have += got;
      req[have] = 0;
    }
    const char* eol = strstr(req, "\r\n");
    const size_t line = eol ? (size_t)(eol - req) : have;
    char body[2200];
    const int body_len =
        snprintf(body, sizeof body, "%.*s from %u.%u.%u.%u\n", (int)line, req, peer[0], peer[1], peer[2], peer[3]);
    char head[128];
    const int head_len = snprintf(
        head, sizeof head, "HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n\r\n", body_len);
    __wasi_ciovec_t out[2] = {{(const uint8_t*)head, (size_t)head_len}, {(const uint8_t*)body, (size_t)body_len}};
    uint32_t sent = 0;
    if (i % 2 == 0) {
      CHECK("sock_send", we_sock_send(conn, out, 2, 0, &sent));
    } else {
      __wasi_size_t n = 0;
      CHECK("fd_write", __wasi_fd_write(conn, out, 2, &n));
      sent = n;
    }
    if (sent != (uint32_t)(head_len + body_len)) fail("short send", sent);
    CHECK("sock_shutdown", we_sock_shutdown(conn, 3));
    CHECK("fd_close", __wasi_fd_close(conn));
  }
  CHECK("fd_close", __wasi_fd_close(fd));
  printf("served %d\n", count);
  return 0;
}

static int connect_to(uint32_t port) {
  const uint32_t fd = stream_socket();
  wasi_address_t addr = {kLoopback, 4};
  CHECK("sock_connect", we_sock_connect(fd, &addr, port));
  __wasi_ciovec_t out = {(const uint8_t*)"ping\n", 5};
  uint32_t sent = 0;
  CHECK("sock_send", we_sock_send(fd, &out, 1, 0, &sent));
  char buf[256];
  __wasi_iovec_t in = {(uint8_t*)buf, sizeof buf - 1};
  uint32_t got = 0, oflags = 0;
  CHECK("sock_recv", we_sock_recv(fd, &in, 1, 0, &got, &oflags));
  buf[got] = 0;
  printf("answer: %s", buf);
  CHECK("fd_close", __wasi_fd_close(fd));
  return 0;
}

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int poll_mixed(uint32_t port, const char* file) {
  const uint32_t fd = stream_socket();
  wasi_address_t addr = {kLoopback, 4};
  CHECK("sock_bind", we_sock_bind(fd, &addr, port));
  CHECK("sock_listen", we_sock_listen(fd, 4));
  // 1. A socket nobody connects to and a 150 ms clock: the clock alone, after 150 ms.
  __wasi_subscription_t subs[3];
  __wasi_event_t events[3];
  __wasi_size_t n = 0;
  memset(subs, 0, sizeof subs);
  subs[0].userdata = 10;
  subs[0].u.tag = __WASI_EVENTTYPE_FD_READ;
  subs[0].u.u.fd_read.file_descriptor = fd;
  subs[1].userdata = 11;
  subs[1].u.tag = __WASI_EVENTTYPE_CLOCK;
  subs[1].u.u.clock.id = __WASI_CLOCKID_MONOTONIC;
  subs[1].u.u.clock.timeout = 150000000ull;
  uint64_t t0 = now_ns();
  CHECK("poll_oneoff", __wasi_poll_oneoff(subs, events, 2, &n));
  uint64_t ms = (now_ns() - t0) / 1000000;
  printf("clock: n=%u userdata=%llu type=%u waited_enough=%d\n", (unsigned)n, (unsigned long long)events[0].userdata,
         events[0].type, ms >= 140);
  // 2. The socket, stdout (Wasmtime's fd, always writable) and a 5 s clock: stdout, at once.
  subs[2] = subs[1];
  subs[1].userdata = 12;
  subs[1].u.tag = __WASI_EVENTTYPE_FD_WRITE;
  subs[1].u.u.fd_write.file_descriptor = 1;
  subs[2].userdata = 13;
  subs[2].u.u.clock.timeout = 5000000000ull;
  t0 = now_ns();
  CHECK("poll_oneoff", __wasi_poll_oneoff(subs, events, 3, &n));
  ms = (now_ns() - t0) / 1000000;
  printf("stdout: n=%u userdata=%llu type=%u quick=%d\n", (unsigned)n, (unsigned long long)events[0].userdata,
         events[0].type, ms < 1000);
  // 3. The same subscriptions are still the guest's (the host lent their memory to Wasmtime).
  printf("kept: %llu %u %llu %u %llu\n", (unsigned long long)subs[0].userdata,
         (uint32_t)subs[0].u.u.fd_read.file_descriptor == fd, (unsigned long long)subs[1].userdata,
         subs[1].u.u.fd_write.file_descriptor, (unsigned long long)subs[2].userdata);
  // 3b. A file (a Wasmtime fd) read with the socket and a 5 s clock: the file, at once.
  if (file) {
    const int ffd = open(file, O_RDONLY);
    if (ffd < 0) fail("open", 0);
    subs[1].userdata = 14;
    subs[1].u.tag = __WASI_EVENTTYPE_FD_READ;
    subs[1].u.u.fd_read.file_descriptor = (__wasi_fd_t)ffd;
    t0 = now_ns();
    CHECK("poll_oneoff", __wasi_poll_oneoff(subs, events, 3, &n));
    ms = (now_ns() - t0) / 1000000;
    printf("file: n=%u userdata=%llu type=%u quick=%d\n", (unsigned)n, (unsigned long long)events[0].userdata,
           events[0].type, ms < 1000);
    close(ffd);
  }
  // 4. Non-blocking: an accept with nobody waiting is EAGAIN (6).
  CHECK("fd_fdstat_set_flags", __wasi_fd_fdstat_set_flags(fd, __WASI_FDFLAGS_NONBLOCK));
  __wasi_fdstat_t st;
  CHECK("fd_fdstat_get", __wasi_fd_fdstat_get(fd, &st));
  uint32_t conn = 0;
  printf("nonblocking: flags=%u accept=%u\n", st.fs_flags, we_sock_accept(fd, &conn));
  CHECK("fd_close", __wasi_fd_close(fd));
  return 0;
}

static int bad(void) {
  const uint32_t kFar = 0xfffffff0u;  // past any memory this guest has
  uint32_t fd = 0;
  printf("open_bad_out=%u\n", we_sock_open(1, 2, (uint32_t*)kFar));
  printf("open_bad_family=%u\n", we_sock_open(9, 2, &fd));
  printf("open_bad_type=%u\n", we_sock_open(1, 7, &fd));
  fd = stream_socket();
  wasi_address_t five = {kLoopback, 5};
  printf("bind_bad_len=%u\n", we_sock_bind(fd, &five, 80));
  wasi_address_t far = {(uint8_t*)kFar, 4};
  printf("bind_bad_buf=%u\n", we_sock_bind(fd, &far, 80));
  printf("bind_bad_fd=%u\n", we_sock_bind(0x40001234u, &five, 80));
  printf("bind_stdout=%u\n", we_sock_bind(1, &five, 80));
  printf("listen_unbound=%u\n", we_sock_listen(fd, 1));
  __wasi_iovec_t iov = {(uint8_t*)kFar, 64};
  uint32_t got = 0, oflags = 0;
  printf("recv_bad_iov=%u\n", we_sock_recv(fd, &iov, 1, 0, &got, &oflags));
  printf("recv_bad_flags=%u\n", we_sock_recv(fd, &iov, 1, 99, &got, &oflags));
  printf("recv_bad_iovs=%u\n", we_sock_recv(fd, (__wasi_iovec_t*)kFar, 4, 0, &got, &oflags));
  int v = 0;
  uint32_t size = 4;
  printf("getsockopt_bad_level=%u\n", we_sock_getsockopt(fd, 1, 0, &v, &size));
  printf("getsockopt_bad_name=%u\n", we_sock_getsockopt(fd, 0, 99, &v, &size));
  printf("getsockopt_bad_size=%u\n", we_sock_getsockopt(fd, 0, 1, &v, (uint32_t*)kFar));
  printf("getsockopt_type=%u:%d\n", we_sock_getsockopt(fd, 0, 1, &v, &size), v);
  printf("shutdown_bad_how=%u\n", we_sock_shutdown(fd, 9));
  uint8_t hints[28] = {0};
  uint32_t res = 0, res_len = 0;
  printf("getaddrinfo_name=%u\n", we_sock_getaddrinfo("example.com", 11, "80", 2, hints, &res, 1, &res_len));
  printf("getaddrinfo_bad_hints=%u\n",
         we_sock_getaddrinfo("127.0.0.1", 9, "80", 2, (const void*)kFar, &res, 1, &res_len));
  // A numeric address is answered without a lookup, into the guest's own chain.
  uint8_t info[28] = {0}, sockaddr[12] = {0}, sa_data[14] = {0};
  uint32_t sa_data_ptr = (uint32_t)(uintptr_t)sa_data, sa_len = sizeof sa_data, sa_ptr = (uint32_t)(uintptr_t)sockaddr;
  memcpy(sockaddr + 4, &sa_len, 4);
  memcpy(sockaddr + 8, &sa_data_ptr, 4);
  memcpy(info + 12, &sa_ptr, 4);
  hints[3] = 2;  // SOCK_STREAM
  res = (uint32_t)(uintptr_t)info;
  const uint32_t e = we_sock_getaddrinfo("127.0.0.1\0", 10, "8080\0", 5, hints, &res, 1, &res_len);
  printf("getaddrinfo_numeric=%u:%u:family=%u:port=%u:%u.%u.%u.%u\n", e, res_len, sockaddr[0],
         (sa_data[0] << 8) | sa_data[1], sa_data[2], sa_data[3], sa_data[4], sa_data[5]);
  // poll_oneoff with a socket fd that is not open: its event says BADF (8).
  __wasi_subscription_t sub;
  memset(&sub, 0, sizeof sub);
  sub.userdata = 5;
  sub.u.tag = __WASI_EVENTTYPE_FD_READ;
  sub.u.u.fd_read.file_descriptor = 0x40001234u;
  __wasi_event_t ev;
  __wasi_size_t n = 0;
  const uint32_t pe = __wasi_poll_oneoff(&sub, &ev, 1, &n);
  printf("poll_closed_socket=%u:%u:%u\n", pe, (unsigned)n, ev.error);
  printf("poll_bad_out=%u\n", __wasi_poll_oneoff(&sub, (__wasi_event_t*)kFar, 1, &n));
  printf("renumber=%u\n", __wasi_fd_renumber(fd, 1));
  printf("close=%u\n", __wasi_fd_close(fd));
  printf("close_again=%u\n", __wasi_fd_close(fd));
  __wasi_ciovec_t out = {(const uint8_t*)"x", 1};
  __wasi_size_t wrote = 0;
  printf("write_closed=%u\n", __wasi_fd_write(fd, &out, 1, &wrote));
  printf("fdstat_closed=%u\n", __wasi_fd_fdstat_get(fd, (__wasi_fdstat_t*)&v));
  return 0;
}

int main(int argc, char** argv) {
  if (argc >= 2 && strcmp(argv[1], "serve") == 0 && argc == 4) return serve(atoi(argv[2]), atoi(argv[3]));
  if (argc >= 2 && strcmp(argv[1], "connect") == 0 && argc == 3) return connect_to(atoi(argv[2]));
  if (argc >= 2 && strcmp(argv[1], "poll") == 0 && (argc == 3 || argc == 4))
    return poll_mixed(atoi(argv[2]), argc == 4 ? argv[3] : NULL);
  if (argc == 2 && strcmp(argv[1], "bad") == 0) return bad();
  fprintf(stderr, "usage: wasmedge_sockets serve PORT N | connect PORT | poll PORT | bad\n");
  return 64;
}
