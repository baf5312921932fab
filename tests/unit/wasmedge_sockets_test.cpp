// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// WasmEdge's socket ABI without wasm (abi/network_policy, abi/wasmedge_sockets, abi/socket_poll):
// what --listen and --connect allow, a lookup's results cut to the guest's buffers, and
// poll_oneoff waking for a socket at once and for Wasmtime's fds within a slice, never spinning.
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <ctime>
#include <cstring>
#include <vector>

#include <gtest/gtest.h>

#include "abi/network_policy.h"
#include "abi/socket_poll.h"
#include "abi/wasmedge_sockets.h"

namespace wasinn {
namespace {

namespace ws = wasmedge_sockets;

SocketAddress v4(uint8_t a, uint8_t b, uint8_t c, uint8_t d, uint16_t port) {
  SocketAddress s;
  s.addr[0] = a, s.addr[1] = b, s.addr[2] = c, s.addr[3] = d;
  s.port = port;
  return s;
}

TEST(NetworkPolicy, AllowsExactlyWhatItNames) {
  auto p = NetworkPolicy::make({"127.0.0.1:8080", "0.0.0.0:*", "[::1]:9000"}, {"10.1.2.3", "localhost:5432"});
  ASSERT_TRUE(p.ok()) << p.error().detail;
  EXPECT_TRUE(p->allows_bind(v4(127, 0, 0, 1, 8080)));
  EXPECT_FALSE(p->allows_bind(v4(127, 0, 0, 1, 8081)));
  EXPECT_TRUE(p->allows_bind(v4(0, 0, 0, 0, 0)));  // * takes a port the system picks
  EXPECT_FALSE(p->allows_bind(v4(10, 1, 2, 3, 80)));
  SocketAddress six;
  six.v6 = true;
  six.addr[15] = 1;
  six.port = 9000;
  EXPECT_TRUE(p->allows_bind(six));
  EXPECT_TRUE(p->allows_connect(v4(10, 1, 2, 3, 1)));
  SocketAddress mapped;  // ::ffff:10.1.2.3
  mapped.v6 = true;
  mapped.addr[10] = mapped.addr[11] = 0xff;
  mapped.addr[12] = 10, mapped.addr[13] = 1, mapped.addr[14] = 2, mapped.addr[15] = 3;
  EXPECT_TRUE(p->allows_connect(mapped));
  EXPECT_TRUE(p->allows_connect(v4(127, 0, 0, 1, 5432)));
  EXPECT_FALSE(p->allows_connect(v4(127, 0, 0, 1, 5433)));
  EXPECT_FALSE(p->allows_connect(v4(127, 0, 0, 1, 8080)));  // a listen address is not a connect host
  EXPECT_TRUE(p->allows_lookup("LOCALHOST"));
  EXPECT_FALSE(p->allows_lookup("example.com"));
  EXPECT_FALSE(NetworkPolicy().allows_anything());
  EXPECT_FALSE(NetworkPolicy().allows_lookup("localhost"));
}

TEST(NetworkPolicy, BadEntriesNameTheirOption) {
  for (const auto& [listen, connect, words] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"8080", "", "--listen '8080': expected ADDR:PORT"},
           {"127.0.0.1:0", "", "--listen '127.0.0.1:0': the port is not a number from 1 to 65535"},
           {"127.0.0.1:", "", "the port is not a number"},
           {":80", "", "the host is empty"},
           {"[::1:80", "", "lacks its ']'"},
           {"[::1]x", "", "expected :PORT after ']'"},
           {"example.com:80", "", "not an IP address"},
           {"", "1.2.3.4:70000", "--connect '1.2.3.4:70000': the port is not a number"},
       }) {
    auto p = NetworkPolicy::make(listen.empty() ? std::vector<std::string>{} : std::vector<std::string>{listen},
                                 connect.empty() ? std::vector<std::string>{} : std::vector<std::string>{connect});
    ASSERT_FALSE(p.ok()) << listen << connect;
    EXPECT_NE(p.error().detail.find(words), std::string::npos) << p.error().detail;
  }
}

// A little guest memory with helpers to lay structs in it.
struct Memory {
  std::vector<uint8_t> bytes = std::vector<uint8_t>(4096, 0);
  GuestMemoryView view{bytes.data(), bytes.size()};
  void u32(uint32_t at, uint32_t v) { std::memcpy(bytes.data() + at, &v, 4); }
  uint32_t u32(uint32_t at) const {
    uint32_t v;
    std::memcpy(&v, bytes.data() + at, 4);
    return v;
  }
  void text(uint32_t at, const char* s) { std::memcpy(bytes.data() + at, s, std::strlen(s)); }
};

TEST(WasmEdgeSocketsAbi, ALookupIsCutToTheGuestsBuffers) {
  auto policy = std::make_shared<const NetworkPolicy>();
  ws::SocketTable table(policy);
  Memory m;
  m.text(0, "::1");
  m.text(16, "443");
  // hints at 64 (AF_INET6, stream); addrinfo at 128 -> sockaddr at 192 -> sa_data at 256 (14 bytes).
  m.bytes[64 + 2] = 2;
  m.bytes[64 + 3] = 2;
  m.u32(128 + 12, 192);
  m.u32(192 + 4, 14);
  m.u32(192 + 8, 256);
  m.u32(100, 128);  // *res
  std::memset(m.bytes.data() + 256 + 14, 0xAB, 16);
  const ws::Call c{table, m.view};
  ASSERT_EQ(ws::sock_getaddrinfo(c, 0, 3, 16, 3, 64, 100, 4, 104), ws::kSuccess);
  EXPECT_EQ(m.u32(104), 1u);
  EXPECT_EQ(m.bytes[128 + 2], 2);  // INET6
  EXPECT_EQ(m.bytes[192], 2);
  EXPECT_EQ(m.u32(192 + 4), 14u);  // what was written, no more than given
  EXPECT_EQ((m.bytes[256] << 8) | m.bytes[257], 443);
  EXPECT_EQ(m.bytes[256 + 14], 0xAB) << "written past the guest's sa_data";
  // A name is looked up only if a policy allows it; nothing is written then.
  m.text(0, "example.com");
  EXPECT_EQ(ws::sock_getaddrinfo(c, 0, 11, 16, 3, 64, 100, 4, 104), ws::kAcces);
  // A chain through a bad pointer is FAULT before anything is written.
  m.u32(100, 0xfffffff0u);
  m.text(0, "127.0.0.1");
  m.bytes[64 + 2] = 1;
  EXPECT_EQ(ws::sock_getaddrinfo(c, 0, 9, 16, 3, 64, 100, 4, 104), ws::kFault);
}

// A subscription at `at`: WASI's 48-byte layout.
void subscribe_fd(Memory& m, uint32_t at, uint64_t userdata, uint8_t tag, uint32_t fd) {
  std::memcpy(m.bytes.data() + at, &userdata, 8);
  m.bytes[at + 8] = tag;
  m.u32(at + 16, fd);
}
void subscribe_clock(Memory& m, uint32_t at, uint64_t userdata, uint64_t ns) {
  std::memcpy(m.bytes.data() + at, &userdata, 8);
  m.bytes[at + 8] = 0;
  m.u32(at + 16, 1);
  std::memcpy(m.bytes.data() + at + 24, &ns, 8);
}
uint64_t event_userdata(const Memory& m, uint32_t at) {
  uint64_t v;
  std::memcpy(&v, m.bytes.data() + at, 8);
  return v;
}

TEST(WasmEdgeSocketsAbi, PollWaitsForASocketAndLooksAtWasmtimesFdsEachSlice) {
  int pair[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair), 0);
  ws::SocketTable table(std::make_shared<const NetworkPolicy>());
  const uint32_t fd = table.add(pair[0], true);
  ASSERT_EQ(fd, ws::kFdBase);
  Memory m;
  subscribe_fd(m, 0, 7, 1, fd);              // the socket
  subscribe_fd(m, 48, 8, 1, 0);              // stdin: Wasmtime's
  subscribe_clock(m, 96, 9, 2000000000ull);  // 2 s
  const ws::Call c{table, m.view};
  // Wasmtime's stdin becomes ready on its 6th look; each look hands it stdin and a clock bounding
  // its wait: 0 ns on the first look, 1 ms after (time for a file's read on its blocking pool).
  int looks = 0;
  const ws::OtherPoll others = [&](std::span<const uint8_t> subs, uint32_t count,
                                   std::vector<ws::PollEvent>& events) -> uint16_t {
    EXPECT_EQ(count, 2u);
    EXPECT_EQ(subs.size(), 96u);
    uint64_t wait_ns;
    std::memcpy(&wait_ns, subs.data() + 48 + 24, 8);
    EXPECT_EQ(subs[48 + 16], 1u) << "a monotonic clock";
    EXPECT_EQ(wait_ns, looks <= 0 ? 0u : 1000000u) << "look " << looks;
    if (++looks >= 6) events.push_back(ws::PollEvent{0, 0, 1, 1, 0});
    events.push_back(ws::PollEvent{1, 0, 0, 0, 0});  // the clock
    return 0;
  };
  auto t0 = std::chrono::steady_clock::now();
  ASSERT_EQ(ws::poll_oneoff(c, 0, 1024, 3, 2048, others, std::chrono::milliseconds(10)), ws::kSuccess);
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(m.u32(2048), 1u);
  EXPECT_EQ(event_userdata(m, 1024), 8u) << "stdin, under the guest's own userdata";
  EXPECT_EQ(looks, 6);
  EXPECT_GE(ms, 40) << "slices of 10 ms, not a spin";
  EXPECT_LT(ms, 1000);
  // The socket wakes it at once, however long the slice.
  ASSERT_EQ(::write(pair[1], "x", 1), 1);
  looks = -1000;
  t0 = std::chrono::steady_clock::now();
  ASSERT_EQ(ws::poll_oneoff(c, 0, 1024, 3, 2048, others, std::chrono::milliseconds(5000)), ws::kSuccess);
  ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(m.u32(2048), 1u);
  EXPECT_EQ(event_userdata(m, 1024), 7u);
  EXPECT_LT(ms, 1000);
  // Only the socket and the clock: the clock fires.
  char drain;
  ASSERT_EQ(::read(pair[0], &drain, 1), 1);
  subscribe_clock(m, 48, 9, 30000000ull);
  t0 = std::chrono::steady_clock::now();
  ASSERT_EQ(ws::poll_oneoff(c, 0, 1024, 2, 2048, others), ws::kSuccess);
  ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(m.u32(2048), 1u);
  EXPECT_EQ(event_userdata(m, 1024), 9u);
  EXPECT_GE(ms, 25);
  // A realtime instant (the crate's timeouts) is timed here too: Wasmtime is not asked.
  timespec now{};
  ::clock_gettime(CLOCK_REALTIME, &now);
  const uint64_t at = static_cast<uint64_t>(now.tv_sec) * 1000000000ull + now.tv_nsec + 30000000ull;
  subscribe_clock(m, 48, 10, at);
  m.u32(48 + 16, 0);     // CLOCK_REALTIME
  m.bytes[48 + 40] = 1;  // ABSTIME
  looks = 0;
  t0 = std::chrono::steady_clock::now();
  ASSERT_EQ(ws::poll_oneoff(c, 0, 1024, 2, 2048, others), ws::kSuccess);
  ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(event_userdata(m, 1024), 10u);
  EXPECT_GE(ms, 25);
  EXPECT_EQ(looks, 0);
  m.bytes[48 + 40] = 0;
  // No socket among the subscriptions: the whole call is Wasmtime's.
  subscribe_fd(m, 0, 7, 1, 0);
  EXPECT_EQ(ws::poll_oneoff(c, 0, 1024, 2, 2048, others), ws::kNoSockets);
  ::close(pair[1]);
}

}  // namespace
}  // namespace wasinn
