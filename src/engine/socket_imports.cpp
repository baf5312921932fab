// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "engine/socket_imports.h"

#include <cstring>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "abi/socket_poll.h"
#include "base/log.h"
#include "engine/guest_state.h"
#include "engine/nn_imports.h"
#include "engine/wasmtime_ptr.h"

namespace wasinn {

namespace {

namespace ws = wasmedge_sockets;

constexpr std::string_view kModule = "wasi_snapshot_preview1";

constexpr std::string_view kOriginalNames[SocketGuest::kOriginalCount] = {
    "fd_read",     "fd_write",    "fd_close",  "fd_fdstat_get", "fd_fdstat_set_flags",
    "fd_renumber", "poll_oneoff", "sock_recv", "sock_send",     "sock_shutdown"};

// One host call: the caller, its store's sockets and memory, the raw arguments, and a trap that
// a Wasmtime function handed an fd raised.
struct Ctx {
  wasmtime_caller_t* caller;
  wasmtime_context_t* cx;
  SocketGuest& net;
  const GuestMemoryView& memory;
  wasmtime_val_raw_t* args;
  wasm_trap_t* trap = nullptr;

  uint32_t u(size_t i) const { return static_cast<uint32_t>(args[i].i32); }
  ws::Call call() const { return ws::Call{net.table, memory}; }
};

constexpr size_t kOriginalParams[SocketGuest::kOriginalCount] = {4, 4, 1, 2, 2, 2, 4, 6, 5, 2};

// Instantiates the trampoline in the caller's store over its memory and Wasmtime's functions.
bool make_forwarders(Ctx& ctx) {
  SocketGuest& net = ctx.net;
  if (net.forwarders_made || net.forwarders_failed) return net.forwarders_made;
  net.forwarders_failed = true;  // until made: a guest that cannot have them is told once
  std::vector<wasmtime_extern_t> imports;
  wasmtime_extern_t memory;
  if (!wasmtime_caller_export_get(ctx.caller, "memory", 6, &memory)) return false;
  if (memory.kind != WASMTIME_EXTERN_MEMORY) {
    wasmtime_extern_delete(&memory);
    return false;
  }
  imports.push_back(memory);
  bool ok = true;
  for (std::string_view name : kOriginalNames) {
    wasmtime_extern_t item;
    if (!wasmtime_linker_get(net.wasi_linker, ctx.cx, kModule.data(), kModule.size(), name.data(), name.size(),
                             &item)) {
      ok = false;
      break;
    }
    imports.push_back(item);
  }
  wasmtime_instance_t instance;
  wasm_trap_t* trap = nullptr;
  if (ok) {
    ErrorPtr err(wasmtime_instance_new(ctx.cx, net.trampoline, imports.data(), imports.size(), &instance, &trap));
    if (err || trap) {
      logger().warn("guest: cannot reach Wasmtime's WASI functions for a socket guest: {}",
                    err ? message_of(err.get()) : message_of(trap));
      if (trap) wasm_trap_delete(trap);
      ok = false;
    }
  }
  for (auto& e : imports) wasmtime_extern_delete(&e);
  if (!ok) return false;
  for (size_t i = 0; i < SocketGuest::kOriginalCount && ok; ++i) {
    const std::string_view name = kOriginalNames[i];
    wasmtime_extern_t item;
    ok = wasmtime_instance_export_get(ctx.cx, &instance, name.data(), name.size(), &item) &&
         item.kind == WASMTIME_EXTERN_FUNC;
    if (ok) net.forwarders[i] = item.of.func;
    if (ok) wasmtime_extern_delete(&item);
  }
  net.forwarders_made = ok;
  net.forwarders_failed = !ok;
  return ok;
}

// Calls Wasmtime's own WASI function `which` with `n` i32 arguments; its errno (a trap it raised
// is kept in ctx.trap).
uint32_t wasmtime_call(Ctx& ctx, SocketGuest::Original which, const uint32_t* argv, size_t n) {
  if (!make_forwarders(ctx)) return ws::kNoSys;
  wasmtime_val_raw_t raw[8] = {};
  for (size_t i = 0; i < n && i < 8; ++i) raw[i].i32 = static_cast<int32_t>(argv[i]);
  wasm_trap_t* trap = nullptr;
  ErrorPtr err(wasmtime_func_call_unchecked(ctx.cx, &ctx.net.forwarders[which], raw, std::max<size_t>(n, 1), &trap));
  if (err) {
    const std::string msg = message_of(err.get());
    trap = wasmtime_trap_new(msg.data(), msg.size());
  }
  if (trap) {
    if (ctx.trap) wasm_trap_delete(ctx.trap);
    ctx.trap = trap;
    return ws::kIo;
  }
  return static_cast<uint32_t>(raw[0].i32);
}

// The call's own arguments, to Wasmtime unchanged.
uint32_t pass(Ctx& ctx, SocketGuest::Original which, size_t n) {
  uint32_t argv[8];
  for (size_t i = 0; i < n && i < 8; ++i) argv[i] = ctx.u(i);
  return wasmtime_call(ctx, which, argv, n);
}

bool ours(uint32_t fd) { return ws::SocketTable::in_range(fd); }

uint32_t poll_oneoff(Ctx& ctx) {
  const uint32_t in = ctx.u(0), out = ctx.u(1), n = ctx.u(2), nevents = ctx.u(3);
  // Wasmtime's poll over the subscriptions not ours: laid over the guest's own array at `in`
  // for the call (it has room: at least one subscription is a socket) and put back after.
  const ws::OtherPoll others = [&](std::span<const uint8_t> subs, uint32_t count, std::vector<ws::PollEvent>& events) {
    auto at = ctx.memory.bytes(in, subs.size(), "poll_oneoff");
    auto events_at = ctx.memory.bytes(out, uint64_t{count} * ws::kEventSize, "poll_oneoff");
    if (!at || !events_at || !ctx.memory.in_bounds(nevents, 4)) return uint16_t{ws::kFault};
    const std::vector<uint8_t> saved(at->begin(), at->end());
    std::memcpy(at->data(), subs.data(), subs.size());
    const uint32_t argv[4] = {in, out, count, nevents};
    const uint32_t rc = wasmtime_call(ctx, SocketGuest::kPollOneoff, argv, 4);
    uint32_t got = 0;
    if (rc == ws::kSuccess) {
      auto nb = ctx.memory.bytes(nevents, 4, "poll_oneoff");
      std::memcpy(&got, nb->data(), 4);
      for (uint32_t i = 0; i < got && i < count; ++i) {
        const uint8_t* e = events_at->data() + uint64_t{i} * ws::kEventSize;
        ws::PollEvent ev;
        std::memcpy(&ev.userdata, e, 8);
        std::memcpy(&ev.error, e + 8, 2);
        ev.type = e[10];
        std::memcpy(&ev.nbytes, e + 16, 8);
        std::memcpy(&ev.flags, e + 24, 2);
        events.push_back(ev);
      }
    }
    std::memcpy(at->data(), saved.data(), saved.size());
    return static_cast<uint16_t>(rc);
  };
  const uint32_t rc = ws::poll_oneoff(ctx.call(), in, out, n, nevents, others);
  if (rc == ws::kNoSockets) return pass(ctx, SocketGuest::kPollOneoff, 4);
  return rc;
}

using Handler = uint32_t (*)(Ctx&);

struct Spec {
  std::string_view name;
  size_t params;
  Handler handler;
};

// WasmEdge's V1 functions and the wrappers over Wasmtime's.
const Spec kSpecs[] = {
    {"sock_open", 3, [](Ctx& c) -> uint32_t { return ws::sock_open(c.call(), c.u(0), c.u(1), c.u(2)); }},
    {"sock_bind", 3, [](Ctx& c) -> uint32_t { return ws::sock_bind(c.call(), c.u(0), c.u(1), c.u(2)); }},
    {"sock_connect", 3, [](Ctx& c) -> uint32_t { return ws::sock_connect(c.call(), c.u(0), c.u(1), c.u(2)); }},
    {"sock_listen", 2, [](Ctx& c) -> uint32_t { return ws::sock_listen(c.call(), c.u(0), c.u(1)); }},
    {"sock_accept", 2, [](Ctx& c) -> uint32_t { return ws::sock_accept(c.call(), c.u(0), c.u(1)); }},
    {"sock_getlocaladdr", 4,
     [](Ctx& c) -> uint32_t { return ws::sock_getlocaladdr(c.call(), c.u(0), c.u(1), c.u(2), c.u(3)); }},
    {"sock_getpeeraddr", 4,
     [](Ctx& c) -> uint32_t { return ws::sock_getpeeraddr(c.call(), c.u(0), c.u(1), c.u(2), c.u(3)); }},
    {"sock_getsockopt", 5,
     [](Ctx& c) -> uint32_t { return ws::sock_getsockopt(c.call(), c.u(0), c.u(1), c.u(2), c.u(3), c.u(4)); }},
    {"sock_setsockopt", 5,
     [](Ctx& c) -> uint32_t { return ws::sock_setsockopt(c.call(), c.u(0), c.u(1), c.u(2), c.u(3), c.u(4)); }},
    {"sock_getaddrinfo", 8,
     [](Ctx& c) -> uint32_t {
       return ws::sock_getaddrinfo(c.call(), c.u(0), c.u(1), c.u(2), c.u(3), c.u(4), c.u(5), c.u(6), c.u(7));
     }},
    // Imported by guests built with the crate, not implemented: ENOSYS, so they still instantiate.
    {"sock_recv_from", 8,
     [](Ctx&) -> uint32_t {
       logger().warn("guest: sock_recv_from is not implemented by wasinn (errno {}, NOSYS)", ws::kNoSys);
       return ws::kNoSys;
     }},
    {"sock_send_to", 7,
     [](Ctx&) -> uint32_t {
       logger().warn("guest: sock_send_to is not implemented by wasinn (errno {}, NOSYS)", ws::kNoSys);
       return ws::kNoSys;
     }},
    {"sock_recv", 6,
     [](Ctx& c) -> uint32_t {
       return ours(c.u(0)) ? ws::sock_recv(c.call(), c.u(0), c.u(1), c.u(2), c.u(3), c.u(4), c.u(5))
                           : pass(c, SocketGuest::kSockRecv, 6);
     }},
    {"sock_send", 5,
     [](Ctx& c) -> uint32_t {
       return ours(c.u(0)) ? ws::sock_send(c.call(), c.u(0), c.u(1), c.u(2), c.u(3), c.u(4))
                           : pass(c, SocketGuest::kSockSend, 5);
     }},
    {"sock_shutdown", 2,
     [](Ctx& c) -> uint32_t {
       return ours(c.u(0)) ? ws::sock_shutdown(c.call(), c.u(0), c.u(1)) : pass(c, SocketGuest::kSockShutdown, 2);
     }},
    {"fd_read", 4,
     [](Ctx& c) -> uint32_t {
       return ours(c.u(0)) ? ws::fd_read(c.call(), c.u(0), c.u(1), c.u(2), c.u(3)) : pass(c, SocketGuest::kFdRead, 4);
     }},
    {"fd_write", 4,
     [](Ctx& c) -> uint32_t {
       return ours(c.u(0)) ? ws::fd_write(c.call(), c.u(0), c.u(1), c.u(2), c.u(3)) : pass(c, SocketGuest::kFdWrite, 4);
     }},
    {"fd_close", 1,
     [](Ctx& c) -> uint32_t {
       return ours(c.u(0)) ? ws::fd_close(c.call(), c.u(0)) : pass(c, SocketGuest::kFdClose, 1);
     }},
    {"fd_fdstat_get", 2,
     [](Ctx& c) -> uint32_t {
       return ours(c.u(0)) ? ws::fd_fdstat_get(c.call(), c.u(0), c.u(1)) : pass(c, SocketGuest::kFdFdstatGet, 2);
     }},
    {"fd_fdstat_set_flags", 2,
     [](Ctx& c) -> uint32_t {
       return ours(c.u(0)) ? ws::fd_fdstat_set_flags(c.call(), c.u(0), c.u(1))
                           : pass(c, SocketGuest::kFdFdstatSetFlags, 2);
     }},
    // A socket's fd is not renumbered, nor is another fd moved into the sockets' range.
    {"fd_renumber", 2,
     [](Ctx& c) -> uint32_t {
       return ours(c.u(0)) || ours(c.u(1)) ? uint32_t{ws::kBadf} : pass(c, SocketGuest::kFdRenumber, 2);
     }},
    {"poll_oneoff", 4, poll_oneoff},
    // WasmEdge's edge-triggered poll (the crate's `epoll` feature), served level-triggered: a
    // guest sees a ready fd again until it reads or writes it, which mio-style loops tolerate.
    {"epoll_oneoff", 4, poll_oneoff},
};

wasm_trap_t* trampoline(void* env, wasmtime_caller_t* caller, wasmtime_val_raw_t* args, size_t) {
  const auto* spec = static_cast<const Spec*>(env);
  wasmtime_context_t* cx = wasmtime_caller_context(caller);
  auto* state = static_cast<GuestState*>(wasmtime_context_get_data(cx));
  uint32_t rc = ws::kIo;
  wasm_trap_t* trap = nullptr;
  // No C++ exception may unwind into Wasmtime's frames.
  try {
    std::optional<GuestMemoryView> memory = state ? caller_memory(caller, *state) : std::nullopt;
    if (!state || !state->sockets) {
      rc = ws::kNoSys;
    } else if (!memory) {
      rc = ws::kFault;
    } else {
      Ctx ctx{caller, cx, *state->sockets, *memory, args};
      rc = spec->handler(ctx);
      trap = ctx.trap;
    }
  } catch (const std::exception& e) {
    logger().warn("guest: {}: internal error: {}", spec->name, e.what());
  } catch (...) {
    logger().warn("guest: {}: internal error", spec->name);
  }
  if (trap) return trap;
  args[0].i32 = static_cast<int32_t>(rc);
  return nullptr;
}

// WasmEdge-only names: a module importing one of them speaks WasmEdge's socket ABI.
constexpr std::string_view kWasmEdgeOnly[] = {
    "sock_open",       "sock_bind",       "sock_connect",     "sock_listen",    "sock_getlocaladdr", "sock_getpeeraddr",
    "sock_getsockopt", "sock_setsockopt", "sock_getaddrinfo", "sock_recv_from", "sock_send_to",      "epoll_oneoff"};

}  // namespace

Result<ModulePtr> compile_socket_trampoline(wasm_engine_t* engine) {
  std::string wat = "(module (import \"env\" \"memory\" (memory 0))\n";
  for (size_t i = 0; i < SocketGuest::kOriginalCount; ++i) {
    std::string params;
    for (size_t p = 0; p < kOriginalParams[i]; ++p) params += " i32";
    wat += fmt::format("(import \"{}\" \"{}\" (func $f{} (param{}) (result i32)))\n", kModule, kOriginalNames[i], i,
                       params);
  }
  wat += "(export \"memory\" (memory 0))\n";
  for (size_t i = 0; i < SocketGuest::kOriginalCount; ++i) {
    std::string params, gets;
    for (size_t p = 0; p < kOriginalParams[i]; ++p) {
      params += " i32";
      gets += fmt::format(" local.get {}", p);
    }
    wat +=
        fmt::format("(func (export \"{}\") (param{}) (result i32){} call $f{})\n", kOriginalNames[i], params, gets, i);
  }
  wat += ")";
  wasm_byte_vec_t wasm;
  if (ErrorPtr err(wasmtime_wat2wasm(wat.data(), wat.size(), &wasm)); err) {
    return make_error(Errc::runtime_error, "the socket trampoline: " + message_of(err.get()));
  }
  wasmtime_module_t* module = nullptr;
  ErrorPtr err(wasmtime_module_new(engine, reinterpret_cast<const uint8_t*>(wasm.data), wasm.size, &module));
  wasm_byte_vec_delete(&wasm);
  if (err) return make_error(Errc::runtime_error, "the socket trampoline: " + message_of(err.get()));
  return ModulePtr(module);
}

bool imports_wasmedge_sockets(const wasmtime_module_t* module) {
  wasm_importtype_vec_t imports;
  wasmtime_module_imports(module, &imports);
  bool found = false;
  for (size_t i = 0; i < imports.size && !found; ++i) {
    const wasm_importtype_t* imp = imports.data[i];
    const wasm_name_t* mod = wasm_importtype_module(imp);
    const wasm_name_t* name = wasm_importtype_name(imp);
    if (std::string_view(mod->data, mod->size) != kModule) continue;
    const std::string_view n(name->data, name->size);
    for (std::string_view w : kWasmEdgeOnly) found |= n == w;
    if (n == "sock_accept") {  // WasmEdge's takes two parameters, Wasmtime's three
      const wasm_externtype_t* type = wasm_importtype_type(imp);
      const wasm_functype_t* f = wasm_externtype_as_functype_const(type);
      found |= f && wasm_functype_params(f)->size == 2;
    }
  }
  wasm_importtype_vec_delete(&imports);
  return found;
}

Status define_wasmedge_sockets(wasmtime_linker_t* linker) {
  for (const Spec& spec : kSpecs) {
    WASINN_TRY(define_i32_func(linker, kModule, spec.name, spec.params, 1, trampoline, const_cast<Spec*>(&spec)));
  }
  return {};
}

}  // namespace wasinn
