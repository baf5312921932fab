// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Issue 41: every listening flag (--addr, --oip-http, --oip-grpc, --metrics-addr) refuses an
// address in use, exit 1 naming the address, and says so before any model loads; gRPC no longer
// shares a port with another server through SO_REUSEPORT.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <chrono>
#include <functional>
#include <regex>

#include "child_process.h"
#include "cli_test_env.h"

namespace wasinn_cli_test {
namespace {

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

// A port on 127.0.0.1 this test listens on, as another server would. With `reuseport`, as a gRPC
// server does by default (the way a second gRPC server used to share it).
class TakenPort {
 public:
  explicit TakenPort(bool reuseport = false) : fd_(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
    const int one = 1;
    if (reuseport) ::setsockopt(fd_, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(fd_, 4) != 0 ||
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len) != 0)
      throw std::runtime_error("cannot take a port on 127.0.0.1");
    port_ = ntohs(a.sin_port);
  }
  ~TakenPort() { ::close(fd_); }
  uint16_t port() const { return port_; }
  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }

 private:
  int fd_;
  uint16_t port_ = 0;
};

// errno of binding a SO_REUSEPORT socket to 127.0.0.1:port (0: it bound, so the listener there
// shares the port).
int bind_reuseport(uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(port);
  const int rc = ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 ? 0 : errno;
  ::close(fd);
  return rc;
}

std::string in_use(const std::string& flag, const TakenPort& taken) {
  return "wasinn: error: " + flag + " " + taken.address() + ": cannot listen there: the address is in use (another " +
         "server listens on port " + std::to_string(taken.port()) + ": stop it, or choose another port)";
}

// A fake-backend model (tests/unit/fake_backend): add1, after a load of `load_ms`.
std::vector<std::string> fake_model(const ScratchDir& dir, int load_ms = 0) {
  write_text(dir / "m.onnx", "fake:slow_load:" + std::to_string(load_ms) + "\n");
  return {"--backend-dir", WASINN_FAKE_BACKEND_DIR, "--nn-preload", "m:onnx:cpu:" + (dir / "m.onnx").string()};
}

std::vector<std::string> with(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

TEST(AddressInUse, EachListeningFlagRefusesItNamingTheAddress) {
  ScratchDir dir;
  const auto model = fake_model(dir);
  struct Case {
    std::string flag;
    std::function<std::vector<std::string>(const std::string& taken)> args;
    bool reuseport = false;
  };
  const std::vector<Case> cases = {
      {"--metrics-addr",
       [&](const std::string& t) {
         return with({"run", "--metrics-addr", t}, {guest("wasi_probe"), "exit", "0"});
       }},
      {"--addr",
       [&](const std::string& t) {
         return std::vector<std::string>{"serve", "--addr", t, guest("wasi_probe")};
       }},
      {"--metrics-addr",
       [&](const std::string& t) {
         return std::vector<std::string>{"serve", "--addr", "127.0.0.1:0", "--metrics-addr", t, guest("wasi_probe")};
       }},
      {"--oip-http",
       [&](const std::string& t) {
         return with({"serve", "--oip-http", t}, model);
       }},
      {"--oip-grpc",
       [&](const std::string& t) {
         return with({"serve", "--oip-grpc", t}, model);
       },
       true},
      {"--metrics-addr",
       [&](const std::string& t) {
         return with({"serve", "--oip-http", "127.0.0.1:0", "--metrics-addr", t}, model);
       }},
  };
  for (const Case& c : cases) {
    const TakenPort taken(c.reuseport);
    const auto args = c.args(taken.address());
    const ChildResult r = wasinn(args);
    EXPECT_EQ(r.exit_code, 1) << args[0] << " " << c.flag << "\n" << r.describe();
    EXPECT_EQ(first_line(r.err), in_use(c.flag, taken)) << args[0] << "\n" << r.describe();
    EXPECT_EQ(r.err.find("Serving"), std::string::npos) << r.describe();
  }
}

// The check comes first: a model whose load takes 20 s is never started on.
TEST(AddressInUse, IsReportedBeforeAnyModelLoads) {
  ScratchDir dir;
  const auto slow = fake_model(dir, 20000);
  for (const std::string flag : {"--oip-http", "--oip-grpc"}) {
    const TakenPort taken(flag == "--oip-grpc");
    const auto started = std::chrono::steady_clock::now();
    const ChildResult r = wasinn(with({"serve", "-v", flag, taken.address()}, slow));
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    EXPECT_EQ(r.exit_code, 1) << r.describe();
    EXPECT_EQ(first_line(r.err), in_use(flag, taken)) << r.describe();
    EXPECT_EQ(r.err.find("m.onnx"), std::string::npos) << "no load line\n" << r.describe();
    EXPECT_LT(seconds, 10) << r.describe();
  }
}

// Two wasinn on one gRPC port: the second is refused, and the first's listener does not let a
// SO_REUSEPORT socket share its port (gRPC's default before GRPC_ARG_ALLOW_REUSEPORT = 0).
TEST(AddressInUse, ASecondGrpcServerOnThePortIsRefused) {
  ScratchDir dir, other;
  const auto model = fake_model(dir);
  wasinn_it::RunningChild first(with({wasinn_it::wasinn_binary(), "serve", "--oip-grpc", "127.0.0.1:0"}, model));
  std::smatch m;
  const std::regex serving(R"(Serving the Open Inference Protocol \(gRPC\) on 127\.0\.0\.1:([0-9]+))");
  std::string err_seen;
  ASSERT_TRUE(first.wait_until([&](const std::string&, const std::string& err) {
    err_seen = err;
    return std::regex_search(err, serving);
  })) << err_seen;
  ASSERT_TRUE(std::regex_search(err_seen, m, serving));
  const std::string port = m[1];
  EXPECT_EQ(bind_reuseport(static_cast<uint16_t>(std::stoi(port))), EADDRINUSE) << "the gRPC listener shares its port";
  const ChildResult second = wasinn(with({"serve", "--oip-grpc", "127.0.0.1:" + port}, fake_model(other)));
  EXPECT_EQ(second.exit_code, 1) << second.describe();
  EXPECT_EQ(first_line(second.err), "wasinn: error: --oip-grpc 127.0.0.1:" + port +
                                        ": cannot listen there: the address "
                                        "is in use (another server listens on port " +
                                        port +
                                        ": stop it, or choose another "
                                        "port)")
      << second.describe();
}

TEST(AddressInUse, TwoFlagsOnOnePortAreRefusedByName) {
  ScratchDir dir;
  uint16_t port = 0;
  {
    const TakenPort free_now;  // a port free once this lets it go
    port = free_now.port();
  }
  const std::string at = "127.0.0.1:" + std::to_string(port);
  const ChildResult r = wasinn(with({"serve", "--oip-http", at, "--oip-grpc", at}, fake_model(dir)));
  EXPECT_EQ(r.exit_code, 1) << r.describe();
  EXPECT_EQ(first_line(r.err), "wasinn: error: --oip-grpc " + at + ": cannot listen there: --oip-http " + at +
                                   " takes that port already; give each flag a port of its own")
      << r.describe();
}

}  // namespace
}  // namespace wasinn_cli_test
