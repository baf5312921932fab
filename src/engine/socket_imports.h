// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// WasmEdge's socket ABI for core modules (abi/wasmedge_sockets.h), on a linker of its own: a
// module that imports it (sock_open, sock_bind, ..., or WasmEdge's two-parameter sock_accept)
// is instantiated on the Host's socket linker; every other module keeps the plain one and pays
// nothing. The socket linker is the plain one's WASI, wasi-nn and wasi:logging, plus the sock_*
// functions, plus wrappers shadowing fd_read, fd_write, fd_close, fd_fdstat_get,
// fd_fdstat_set_flags, fd_renumber, poll_oneoff, sock_recv, sock_send and sock_shutdown: an fd
// in the sockets' range is wasinn's, any other is handed to Wasmtime's own function (found per
// store on the plain linker and called re-entrantly with the caller's context). What the
// sockets may reach is the Host's NetworkPolicy; with none given they reach nothing.
#pragma once

#include <memory>
#include <optional>

#include <wasmtime.h>

#include "abi/network_policy.h"
#include "abi/wasmedge_sockets.h"
#include "core/error.h"
#include "engine/wasmtime_ptr.h"

namespace wasinn {

// One guest store's sockets, and the Wasmtime functions its wrappers hand other fds to.
// Wasmtime's WASI functions read the memory their caller exports, and a host function calling
// one is no wasm caller: they are called through a small module (the trampoline) that imports
// the guest's memory and those functions and exports the memory and a forwarder of each, made
// in the guest's store on the first call that needs one.
struct SocketGuest {
  enum Original {
    kFdRead,
    kFdWrite,
    kFdClose,
    kFdFdstatGet,
    kFdFdstatSetFlags,
    kFdRenumber,
    kPollOneoff,
    kSockRecv,
    kSockSend,
    kSockShutdown,
    kOriginalCount
  };
  SocketGuest(std::shared_ptr<const NetworkPolicy> policy, const wasmtime_linker_t* wasi_linker,
              const wasmtime_module_t* trampoline)
      : table(std::move(policy)), wasi_linker(wasi_linker), trampoline(trampoline) {}
  wasmedge_sockets::SocketTable table;
  const wasmtime_linker_t* wasi_linker;  // the plain linker, whose WASI functions are Wasmtime's
  const wasmtime_module_t* trampoline;   // the Host's, compiled once
  bool forwarders_made = false;
  bool forwarders_failed = false;  // then every fd but a socket's is NOSYS
  wasmtime_func_t forwarders[kOriginalCount] = {};
};

// The trampoline module (above), compiled for `engine`.
Result<ModulePtr> compile_socket_trampoline(wasm_engine_t* engine);

// Whether the module imports WasmEdge's socket ABI.
bool imports_wasmedge_sockets(const wasmtime_module_t* module);

// Defines the socket functions and the wrappers on `linker`, which must already hold WASI and
// allow shadowing.
Status define_wasmedge_sockets(wasmtime_linker_t* linker);

}  // namespace wasinn
