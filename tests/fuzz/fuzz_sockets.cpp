// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// libFuzzer target: WasmEdge's socket ABI (abi/wasmedge_sockets.h, abi/socket_poll.h): every
// sock_* function, the fd functions on sockets and poll_oneoff, called in fuzzed order with
// fuzzed i32 arguments against fuzzed guest memory, through a real GuestMemoryView and
// SocketTable over real loopback sockets. The table is the fuzzer's: every socket non-blocking,
// poll_oneoff never waiting. The policy lets a guest listen on 127.0.0.1 (any port) and connect
// only to a port this process holds, so no input reaches another program. Input: call_script.h.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "abi/socket_poll.h"
#include "abi/wasmedge_sockets.h"
#include "base/log.h"
#include "call_script.h"
#include "seed_script.h"

using namespace wasinn;
using namespace wasinn::fuzz;
namespace ws = wasinn::wasmedge_sockets;

namespace {

enum Op : uint32_t {
  kOpen,
  kBind,
  kConnect,
  kListen,
  kAccept,
  kRecv,
  kSend,
  kShutdown,
  kLocalAddr,
  kPeerAddr,
  kGetOpt,
  kSetOpt,
  kAddrinfo,
  kRead,
  kWrite,
  kClose,
  kFdstat,
  kSetFlags,
  kPoll,
  kOpCount
};

struct World {
  GuestLayout layout{256};
  int harness = -1;  // a listening socket of this process: the one port a guest may connect to
  uint16_t harness_port = 0;
  std::shared_ptr<const NetworkPolicy> policy;
};

void put_u32(std::vector<uint8_t>& b, size_t at, uint32_t v) { std::memcpy(b.data() + at, &v, 4); }
void put_u64(std::vector<uint8_t>& b, size_t at, uint64_t v) { std::memcpy(b.data() + at, &v, 8); }

const World& world() {
  static const World* w = [] {
    auto* made = new World;
    logger().set_level(spdlog::level::off);  // refusals log a line each
    made->harness = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (made->harness < 0 || ::bind(made->harness, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
        ::getsockname(made->harness, reinterpret_cast<sockaddr*>(&a), &len) != 0 || ::listen(made->harness, 64) != 0) {
      std::fprintf(stderr, "fuzz_sockets: cannot listen on 127.0.0.1\n");
      std::abort();
    }
    made->harness_port = ntohs(a.sin_port);
    auto policy = NetworkPolicy::make({"127.0.0.1:*"}, {"127.0.0.1:" + std::to_string(made->harness_port)});
    if (!policy) std::abort();
    made->policy = std::make_shared<const NetworkPolicy>(std::move(*policy));

    GuestLayout& l = made->layout;
    const uint8_t v4[4] = {127, 0, 0, 1};
    uint8_t v6[16] = {};
    v6[15] = 1;
    const uint32_t a4 = l.place({v4, 4}, 4);
    const uint32_t a6 = l.place({v6, 16}, 4);
    l.name(l.place_u32s({a4, 4}), 8, "address");
    l.name(l.place_u32s({a6, 16}), 8, "address6");
    const uint32_t buffer = l.place(std::vector<uint8_t>(256, 'x'));
    l.name(buffer, 256, "buffer");
    l.name(l.place_u32s({buffer, 128, buffer + 128, 128}), 2, "iovs");
    l.name(l.place_u32s({0}), 4, "slot");
    l.name(l.place_u32s({0}), 4, "slot2");
    l.name(l.place_u32s({16}), 4, "size_io");
    l.name(l.place_u32s({1, 0, 0, 0}), 16, "flag");
    l.name(l.place("127.0.0.1"), 9, "node");
    l.name(l.place(std::string_view("localhost\0", 10), 1), 10, "localhost");
    l.name(l.place("80"), 2, "service");
    std::vector<uint8_t> hints(28, 0);
    hints[3] = 2;
    l.name(l.place(hints, 4), 28, "hints");
    // A chain of two addrinfo records, each with its sockaddr and a 26-byte sa_data.
    const uint32_t sa_data0 = l.place(std::vector<uint8_t>(26, 0), 4);
    const uint32_t sa_data1 = l.place(std::vector<uint8_t>(26, 0), 4);
    const uint32_t sa0 = l.place_u32s({0, 26, sa_data0});
    const uint32_t sa1 = l.place_u32s({0, 14, sa_data1});
    const uint32_t canon = l.place(std::vector<uint8_t>(16, 0), 4);
    // The second record first, so the first can point at it.
    std::vector<uint8_t> second(28, 0);
    put_u32(second, 12, sa1);
    const uint32_t second_at = l.place(second, 4);
    std::vector<uint8_t> first(28, 0);
    put_u32(first, 12, sa0);
    put_u32(first, 16, canon);
    put_u32(first, 20, 16);
    put_u32(first, 24, second_at);
    const uint32_t chain_at = l.place(first, 4);
    l.name(chain_at, 2, "chain");
    l.name(l.place_u32s({chain_at}), 2, "res");
    // poll_oneoff: the first socket, a 1 ms clock, stdout; room for their events.
    std::vector<uint8_t> subs(3 * ws::kSubscriptionSize, 0);
    put_u64(subs, 0, 1);
    subs[8] = 1;
    put_u32(subs, 16, ws::kFdBase);
    put_u64(subs, 48, 2);
    subs[56] = 0;
    put_u32(subs, 64, 1);
    put_u64(subs, 72, 1000000);
    put_u64(subs, 96, 3);
    subs[104] = 2;
    put_u32(subs, 112, 1);
    l.name(l.place(subs), 3, "subs");
    l.name(l.place(std::vector<uint8_t>(3 * ws::kEventSize, 0)), 3, "events");
    l.name(l.place(std::vector<uint8_t>(24, 0)), 24, "fdstat");
    l.pad_to(65536);
    return made;
  }();
  return *w;
}

// Wasmtime's poll_oneoff, faked: the added 0 ns clock fires, and stdout (fd 1) is writable.
uint16_t fake_wasmtime_poll(std::span<const uint8_t> subs, uint32_t count, std::vector<ws::PollEvent>& events) {
  if (subs.size() != uint64_t{count} * ws::kSubscriptionSize || count == 0) {
    std::fprintf(stderr, "fuzz invariant: poll_oneoff handed Wasmtime %zu bytes for %u subscriptions\n", subs.size(),
                 count);
    std::abort();
  }
  for (uint32_t i = 0; i < count; ++i) {
    const uint8_t* s = subs.data() + uint64_t{i} * ws::kSubscriptionSize;
    uint64_t userdata;
    uint32_t fd;
    std::memcpy(&userdata, s, 8);
    std::memcpy(&fd, s + 16, 4);
    if (userdata != i) {
      std::fprintf(stderr, "fuzz invariant: Wasmtime's subscription %u carries userdata %llu\n", i,
                   static_cast<unsigned long long>(userdata));
      std::abort();
    }
    if (s[8] == 0 || (s[8] == 2 && fd == 1)) events.push_back(ws::PollEvent{userdata, 0, s[8], 0, 0});
    if (s[8] != 0 && ws::SocketTable::in_range(fd)) {
      std::fprintf(stderr, "fuzz invariant: a socket fd reached Wasmtime's poll_oneoff\n");
      std::abort();
    }
  }
  return 0;
}

void run(CallScript& script, FuzzGuest& g, ws::SocketTable& table) {
  const World& w = world();
  const auto& items = w.layout.items();
  const ws::Call c{table, g.view()};
  uint32_t op;
  while (script.next_op(kOpCount, op)) {
    auto a = [&] { return script.arg(g, items); };
    switch (op) {
      case kOpen: {
        const uint32_t family = a(), type = a(), out = a();
        uint32_t fd;
        if (ws::sock_open(c, family, type, out) == 0 && g.read_u32(out, fd)) script.remember_handle(fd);
        break;
      }
      case kBind: {
        const uint32_t fd = a(), addr = a(), port = a();
        ws::sock_bind(c, fd, addr, port);
        break;
      }
      case kConnect: {
        const uint32_t fd = a(), addr = a(), port = a();
        ws::sock_connect(c, fd, addr, port == 1 ? w.harness_port : port);
        break;
      }
      case kListen: {
        const uint32_t fd = a(), backlog = a();
        ws::sock_listen(c, fd, backlog);
        break;
      }
      case kAccept: {
        const uint32_t fd = a(), out = a();
        uint32_t got;
        if (ws::sock_accept(c, fd, out) == 0 && g.read_u32(out, got)) script.remember_handle(got);
        break;
      }
      case kRecv: {
        const uint32_t fd = a(), iovs = a(), n = a(), flags = a(), o1 = a(), o2 = a();
        ws::sock_recv(c, fd, iovs, n, flags, o1, o2);
        break;
      }
      case kSend: {
        const uint32_t fd = a(), iovs = a(), n = a(), flags = a(), o = a();
        ws::sock_send(c, fd, iovs, n, flags, o);
        break;
      }
      case kShutdown: {
        const uint32_t fd = a(), how = a();
        ws::sock_shutdown(c, fd, how);
        break;
      }
      case kLocalAddr:
      case kPeerAddr: {
        const uint32_t fd = a(), addr = a(), type = a(), port = a();
        if (op == kLocalAddr) {
          ws::sock_getlocaladdr(c, fd, addr, type, port);
        } else {
          ws::sock_getpeeraddr(c, fd, addr, type, port);
        }
        break;
      }
      case kGetOpt:
      case kSetOpt: {
        const uint32_t fd = a(), level = a(), name = a(), flag = a(), size = a();
        if (op == kGetOpt) {
          ws::sock_getsockopt(c, fd, level, name, flag, size);
        } else {
          ws::sock_setsockopt(c, fd, level, name, flag, size);
        }
        break;
      }
      case kAddrinfo: {
        const uint32_t node = a(), node_len = a(), service = a(), service_len = a(), hints = a(), res = a(), max = a(),
                       out = a();
        uint32_t n;
        if (ws::sock_getaddrinfo(c, node, node_len, service, service_len, hints, res, max, out) == 0 &&
            (!g.read_u32(out, n) || n > max)) {
          std::fprintf(stderr, "fuzz invariant: sock_getaddrinfo gave more results than asked for\n");
          std::abort();
        }
        break;
      }
      case kRead:
      case kWrite: {
        const uint32_t fd = a(), iovs = a(), n = a(), out = a();
        if (op == kRead) {
          ws::fd_read(c, fd, iovs, n, out);
        } else {
          ws::fd_write(c, fd, iovs, n, out);
        }
        break;
      }
      case kClose: ws::fd_close(c, a()); break;
      case kFdstat: {
        const uint32_t fd = a(), out = a();
        ws::fd_fdstat_get(c, fd, out);
        break;
      }
      case kSetFlags: {
        const uint32_t fd = a(), flags = a();
        ws::fd_fdstat_set_flags(c, fd, flags);
        break;
      }
      case kPoll: {
        const uint32_t in = a(), out = a(), n = a() % 64, nevents = a();
        uint32_t got;
        const uint32_t rc = ws::poll_oneoff(c, in, out, n, nevents, fake_wasmtime_poll);
        if (rc == 0 && (!g.read_u32(nevents, got) || got > n)) {
          std::fprintf(stderr, "fuzz invariant: poll_oneoff gave more events than subscriptions\n");
          std::abort();
        }
        break;
      }
      default: break;
    }
    if (table.size() > ws::kMaxSockets) {
      std::fprintf(stderr, "fuzz invariant: the socket table outgrew its bound\n");
      std::abort();
    }
  }
}

std::vector<ScriptWriter> seeds(const GuestLayout& l) {
  std::vector<ScriptWriter> out;
  {  // listen, connect to the harness, send, poll, accept, read, close
    ScriptWriter s(l);
    s.op(kOpen).raw(1).raw(2).item("slot");
    s.op(kBind).raw(ws::kFdBase).item("address").raw(0);
    s.op(kListen).raw(ws::kFdBase).raw(4);
    s.op(kLocalAddr).raw(ws::kFdBase).item("address6").item("slot2").item("slot2");
    s.op(kOpen).raw(1).raw(2).item("slot");
    s.op(kConnect).raw(ws::kFdBase + 1).item("address").raw(1);
    s.op(kSend).raw(ws::kFdBase + 1).item("iovs").item_len("iovs").raw(0).item("slot2");
    s.op(kPoll).item("subs").item("events").item_len("subs").item("slot");
    s.op(kAccept).raw(ws::kFdBase).item("slot");
    s.op(kRecv).raw(ws::kFdBase + 1).item("iovs").item_len("iovs").raw(1).item("slot").item("slot2");
    s.op(kRead).raw(ws::kFdBase + 1).item("iovs").item_len("iovs").item("slot");
    s.op(kWrite).raw(ws::kFdBase + 1).item("iovs").item_len("iovs").item("slot");
    s.op(kShutdown).raw(ws::kFdBase + 1).raw(3);
    s.op(kPeerAddr).raw(ws::kFdBase + 1).item("address").item("slot").item("slot2");
    s.op(kClose).raw(ws::kFdBase + 1);
    out.push_back(std::move(s));
  }
  {  // name lookups: a literal, localhost, a refused name
    ScriptWriter s(l);
    s.op(kAddrinfo)
        .item("node")
        .item_len("node")
        .item("service")
        .item_len("service")
        .item("hints")
        .item("res")
        .raw(2)
        .item("slot");
    s.op(kAddrinfo)
        .item("localhost")
        .item_len("localhost")
        .item("service")
        .item_len("service")
        .item("hints")
        .item("res")
        .raw(2)
        .item("slot");
    s.op(kAddrinfo).item("service").item_len("service").item("node").raw(0).item("hints").item("res").raw(1).item(
        "slot");
    out.push_back(std::move(s));
  }
  {  // options and flags
    ScriptWriter s(l);
    s.op(kOpen).raw(2).raw(1).item("slot");
    s.op(kFdstat).raw(ws::kFdBase).item("fdstat");
    s.op(kSetFlags).raw(ws::kFdBase).raw(4);
    s.op(kSetOpt).raw(ws::kFdBase).raw(0).raw(11).item("flag").raw(16);
    s.op(kGetOpt).raw(ws::kFdBase).raw(0).raw(11).item("flag").item("size_io");
    s.op(kGetOpt).raw(ws::kFdBase).raw(0).raw(1).item("flag").item("size_io");
    s.op(kSetOpt).raw(ws::kFdBase).raw(0).raw(9).item("flag").raw(8);
    s.op(kBind).raw(ws::kFdBase).item("address6").raw(0);
    s.op(kPoll).item("subs").item("events").item_len("subs").item("slot");
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  write_seeds_if_asked(seeds(world().layout));
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const World& w = world();
  CallScript script({data, size});
  FuzzGuest g(w.layout, script.image());
  {
    ws::SocketTable table(w.policy, /*force_nonblocking=*/true);
    run(script, g, table);
  }  // every socket of the input closed
  // Connections the input made to the harness: accepted and closed, so its backlog never fills.
  for (int fd; (fd = ::accept4(w.harness, nullptr, nullptr, SOCK_CLOEXEC)) >= 0;) ::close(fd);
  return 0;
}
