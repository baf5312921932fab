// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// WasmEdge's socket ABI for core modules under `wasinn run` (issue 43; the guest
// guest/tests/wasmedge_sockets.c): an HTTP server on an allowed loopback port answering this test
// (and curl when it is installed), the same refused without --listen, an outbound connect
// allowed and refused, poll_oneoff mixing a socket, a clock and a Wasmtime fd, and bad pointers,
// fds and enums answered with errnos. And a Rust guest on crates.io's wasmedge_wasi_socket, the
// crate WasmEdge's Rust guests use (guest/rust-web/wasmedge-sockets), serving and connecting.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "cli_test_env.h"

namespace wasinn_cli_test {
namespace {

// A loopback TCP socket bound to a free port (listening when asked); -1 on failure.
int loopback_socket(uint16_t* port, bool listening) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0 || (listening && ::listen(fd, 4) != 0)) {
    if (fd >= 0) ::close(fd);
    return -1;
  }
  *port = ntohs(a.sin_port);
  return fd;
}

uint16_t free_port() {
  uint16_t port = 0;
  const int fd = loopback_socket(&port, false);
  if (fd >= 0) ::close(fd);
  return port;
}

// Sends `request` to 127.0.0.1:port and reads until the server closes.
std::string exchange(uint16_t port, const std::string& request) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(port);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    ::close(fd);
    return "connect failed";
  }
  (void)!::write(fd, request.data(), request.size());
  std::string got;
  char buf[4096];
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) got.append(buf, static_cast<size_t>(n));
  ::close(fd);
  return got;
}

bool have_curl() { return std::system("curl --version >/dev/null 2>&1") == 0; }

ChildResult run_guest(const std::vector<std::string>& flags, const std::vector<std::string>& guest_args) {
  std::vector<std::string> args = {"run"};
  args.insert(args.end(), flags.begin(), flags.end());
  args.push_back(guest("wasmedge_sockets"));
  args.insert(args.end(), guest_args.begin(), guest_args.end());
  return wasinn(args);
}

TEST(WasmEdgeSockets, ServesHttpOnAnAllowedLoopbackPort) {
  const uint16_t port = free_port();
  ASSERT_NE(port, 0);
  const std::string addr = "127.0.0.1:" + std::to_string(port);
  wasinn_it::RunningChild server({wasinn_it::wasinn_binary(), "run", "--listen", addr, guest("wasmedge_sockets"),
                                  "serve", std::to_string(port), "2"});
  std::string out_seen;
  ASSERT_TRUE(server.wait_until([&](const std::string& out, const std::string&) {
    out_seen = out;
    const size_t at = out.find("listening on");
    return at != std::string::npos && out.find('\n', at) != std::string::npos;  // the whole line
  })) << out_seen;
  EXPECT_NE(out_seen.find("listening on " + std::to_string(port) + " (type 4, 127.0.0.1)"), std::string::npos)
      << out_seen;
  // The first request through sock_recv/sock_send, the second through fd_read/fd_write.
  const std::string first = exchange(port, "GET /first HTTP/1.0\r\nHost: x\r\n\r\n");
  EXPECT_EQ(first.rfind("HTTP/1.0 200 OK\r\n", 0), 0u) << first;
  EXPECT_NE(first.find("\r\n\r\nGET /first HTTP/1.0 from 127.0.0.1\n"), std::string::npos) << first;
  std::string second;
  if (have_curl()) {
    const ChildResult curl = wasinn_it::run_child({"/bin/sh", "-c", "curl -s --http1.0 http://" + addr + "/second"});
    EXPECT_EQ(curl.exit_code, 0) << curl.describe();
    second = curl.out;
  } else {
    second = exchange(port, "GET /second HTTP/1.0\r\n\r\n");
    second = second.substr(second.find("\r\n\r\n") + 4);
  }
  EXPECT_EQ(second, "GET /second HTTP/1.0 from 127.0.0.1\n");
  const ChildResult r = server.finish();
  EXPECT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_NE(r.out.find("served 2"), std::string::npos) << r.describe();
}

// The crate's own layouts (its WasiAddress, its address and port out-parameters) on the same ABI.
TEST(WasmEdgeSockets, TheWasmEdgeCratesRustGuestServesAndConnects) {
  const std::string rust = guest("wasmedge_sockets_rust");
  if (!std::filesystem::exists(rust)) GTEST_SKIP() << rust << " is not built (scripts/fetch-deps.sh rust-web)";
  const uint16_t port = free_port();
  ASSERT_NE(port, 0);
  const std::string addr = "127.0.0.1:" + std::to_string(port), p = std::to_string(port);
  wasinn_it::RunningChild server({wasinn_it::wasinn_binary(), "run", "--listen", addr, rust, "serve", p, "2"});
  std::string out_seen;
  ASSERT_TRUE(server.wait_until([&](const std::string& out, const std::string&) {
    out_seen = out;
    return out.find("listening on port " + p + "\n") != std::string::npos;
  })) << out_seen;
  const std::string first = exchange(port, "GET /first HTTP/1.0\r\n\r\n");
  EXPECT_EQ(first.rfind("HTTP/1.0 200 OK\r\n", 0), 0u) << first;
  EXPECT_NE(first.find("\r\n\r\nGET /first HTTP/1.0 on port " + p + "\n"), std::string::npos) << first;
  // The crate's client, allowed by --connect, to the crate's server.
  const ChildResult client = wasinn({"run", "--connect", addr, rust, "get", p, "/second"});
  EXPECT_EQ(client.exit_code, 0) << client.describe();
  EXPECT_EQ(client.out, "GET /second HTTP/1.0 on port " + p + "\n") << client.describe();
  const ChildResult r = server.finish();
  EXPECT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_NE(r.out.find("served 2"), std::string::npos) << r.describe();

  // Neither without its flag: the crate sees PermissionDenied, the log names the flag.
  const ChildResult no_listen = wasinn({"run", rust, "serve", p, "1"});
  EXPECT_EQ(no_listen.exit_code, 2) << no_listen.describe();
  EXPECT_NE(no_listen.out.find("error: bind:"), std::string::npos) << no_listen.describe();
  EXPECT_NE(no_listen.err.find("run with --listen " + addr), std::string::npos) << no_listen.describe();
  const ChildResult no_connect = wasinn({"run", rust, "get", p, "/"});
  EXPECT_EQ(no_connect.exit_code, 2) << no_connect.describe();
  EXPECT_NE(no_connect.out.find("error: connect:"), std::string::npos) << no_connect.describe();
  EXPECT_NE(no_connect.err.find("--connect"), std::string::npos) << no_connect.describe();
}

TEST(WasmEdgeSockets, AListenNotAllowedIsRefusedNamingTheFlag) {
  const std::string port = std::to_string(free_port());
  for (const std::vector<std::string>& flags :
       {std::vector<std::string>{}, std::vector<std::string>{"--listen", "127.0.0.1:1"},
        std::vector<std::string>{"--connect", "127.0.0.1:" + port}}) {
    const ChildResult r = run_guest(flags, {"serve", port, "1"});
    EXPECT_EQ(r.exit_code, 2) << r.describe();
    EXPECT_NE(r.out.find("sock_bind: errno 2"), std::string::npos) << r.describe();
    EXPECT_NE(r.err.find("sock_bind 127.0.0.1:" + port + " refused"), std::string::npos) << r.describe();
    EXPECT_NE(r.err.find("run with --listen 127.0.0.1:" + port + " to allow it"), std::string::npos) << r.describe();
  }
}

TEST(WasmEdgeSockets, AnyPortOfAnAddressWithAStar) {
  const ChildResult r = run_guest({"--listen", "127.0.0.1:*"}, {"serve", "0", "0"});
  EXPECT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_NE(r.out.find("listening on "), std::string::npos) << r.describe();
  EXPECT_EQ(r.out.find("listening on 0 "), std::string::npos) << r.describe();
}

TEST(WasmEdgeSockets, AnOutboundConnectIsAllowedOnlyToAConnectHost) {
  uint16_t port = 0;
  const int listener = loopback_socket(&port, true);
  ASSERT_GE(listener, 0);
  std::atomic<bool> stop{false};
  std::thread echo([&] {
    while (!stop) {
      const int c = ::accept(listener, nullptr, nullptr);
      if (c < 0) break;
      char buf[64];
      const ssize_t n = ::read(c, buf, sizeof buf);
      if (n > 0) (void)!::write(c, "pong\n", 5);
      ::close(c);
    }
  });
  const std::string p = std::to_string(port);
  const ChildResult allowed = run_guest({"--connect", "127.0.0.1:" + p}, {"connect", p});
  EXPECT_EQ(allowed.exit_code, 0) << allowed.describe();
  EXPECT_NE(allowed.out.find("answer: pong"), std::string::npos) << allowed.describe();
  const ChildResult any_port = run_guest({"--connect", "localhost"}, {"connect", p});
  EXPECT_EQ(any_port.exit_code, 0) << any_port.describe();
  for (const std::vector<std::string>& flags :
       {std::vector<std::string>{}, std::vector<std::string>{"--connect", "127.0.0.1:1"},
        std::vector<std::string>{"--listen", "127.0.0.1:" + p}}) {
    const ChildResult refused = run_guest(flags, {"connect", p});
    EXPECT_EQ(refused.exit_code, 2) << refused.describe();
    EXPECT_NE(refused.out.find("sock_connect: errno 2"), std::string::npos) << refused.describe();
    EXPECT_NE(refused.err.find("run with --connect 127.0.0.1:" + p + " to allow it"), std::string::npos)
        << refused.describe();
  }
  stop = true;
  ::shutdown(listener, SHUT_RDWR);
  echo.join();
  ::close(listener);
}

TEST(WasmEdgeSockets, PollOneoffMixesASocketAClockAndAWasmtimeFd) {
  const std::string port = std::to_string(free_port());
  ScratchDir dir;
  write_text(dir / "file.txt", "some bytes\n");
  const ChildResult r = run_guest({"--listen", "127.0.0.1:" + port, "--dir", dir.path().string() + "::/d"},
                                  {"poll", port, "/d/file.txt"});
  EXPECT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_NE(r.out.find("clock: n=1 userdata=11 type=0 waited_enough=1"), std::string::npos) << r.describe();
  EXPECT_NE(r.out.find("stdout: n=1 userdata=12 type=2 quick=1"), std::string::npos) << r.describe();
  EXPECT_NE(r.out.find("kept: 10 1 12 1 13"), std::string::npos) << r.describe();
  EXPECT_NE(r.out.find("file: n=1 userdata=14 type=1 quick=1"), std::string::npos) << r.describe();
  EXPECT_NE(r.out.find("nonblocking: flags=4 accept=6"), std::string::npos) << r.describe();
}

TEST(WasmEdgeSockets, BadPointersFdsAndEnumsAreErrnos) {
  const ChildResult r = run_guest({}, {"bad"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  for (const char* line : {"open_bad_out=21",
                           "open_bad_family=28",
                           "open_bad_type=28",
                           "bind_bad_len=28",
                           "bind_bad_buf=21",
                           "bind_bad_fd=8",
                           "bind_stdout=8",
                           "listen_unbound=2",
                           "recv_bad_iov=21",
                           "recv_bad_flags=28",
                           "recv_bad_iovs=21",
                           "getsockopt_bad_level=28",
                           "getsockopt_bad_name=28",
                           "getsockopt_bad_size=21",
                           "getsockopt_type=0:2",
                           "shutdown_bad_how=28",
                           "getaddrinfo_name=2",
                           "getaddrinfo_bad_hints=21",
                           "getaddrinfo_numeric=0:1:family=1:port=8080:127.0.0.1",
                           "poll_closed_socket=0:1:8",
                           "poll_bad_out=21",
                           "renumber=8",
                           "close=0",
                           "close_again=8",
                           "write_closed=8",
                           "fdstat_closed=8"}) {
    EXPECT_NE(r.out.find(std::string(line) + "\n"), std::string::npos) << line << "\n" << r.describe();
  }
  EXPECT_NE(r.err.find("sock_getaddrinfo of 'example.com' refused"), std::string::npos) << r.describe();
}

TEST(WasmEdgeSockets, BadOptionValuesAreCaughtAtStart) {
  const struct {
    std::vector<std::string> flags;
    std::string message;
  } cases[] = {
      {{"--listen", "8080"}, "--listen '8080': expected ADDR:PORT"},
      {{"--listen", "127.0.0.1:99999"}, "--listen '127.0.0.1:99999': the port is not a number"},
      {{"--listen", "example.com:80"}, "--listen 'example.com:80': not an IP address"},
      {{"--listen", "[::1:80"}, "lacks its ']'"},
      {{"--connect", "127.0.0.1:x"}, "--connect '127.0.0.1:x': the port is not a number"},
      {{"--connect", "no-such-host.invalid"}, "--connect 'no-such-host.invalid': cannot resolve"},
  };
  for (const auto& c : cases) {
    const ChildResult r = run_guest(c.flags, {"bad"});
    EXPECT_EQ(r.exit_code, 2) << c.message << "\n" << r.describe();
    EXPECT_NE(r.err.find(c.message), std::string::npos) << c.message << "\n" << r.describe();
    EXPECT_EQ(r.out.find("open_bad_out"), std::string::npos) << "the guest ran: " << r.describe();
  }
}

TEST(WasmEdgeSockets, OnlyModulesSpeakingWasmEdgesAbiGetIt) {
  ScratchDir dir;
  // Wasmtime's three-parameter sock_accept: the plain linker, as before.
  write_text(dir / "wasmtime_accept.wat",
             "(module (import \"wasi_snapshot_preview1\" \"sock_accept\" (func (param i32 i32 i32) (result i32)))\n"
             "  (memory (export \"memory\") 1) (func (export \"_start\")))");
  const ChildResult plain = wasinn({"run", (dir / "wasmtime_accept.wat").string()});
  EXPECT_EQ(plain.exit_code, 0) << plain.describe();
  // A wasi-threads guest: refused, saying why.
  write_text(dir / "threads.wat",
             "(module (import \"env\" \"memory\" (memory 1 1 shared))\n"
             "  (import \"wasi_snapshot_preview1\" \"sock_open\" (func (param i32 i32 i32) (result i32)))\n"
             "  (func (export \"_start\")))");
  const ChildResult threads = wasinn({"run", "--listen", "127.0.0.1:*", (dir / "threads.wat").string()});
  EXPECT_EQ(threads.exit_code, 1) << threads.describe();
  EXPECT_NE(threads.err.find("wasinn serves those sockets to single-threaded modules only"), std::string::npos)
      << threads.describe();
}

}  // namespace
}  // namespace wasinn_cli_test
