// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// GuestState: what the host functions of one Wasmtime store need: the guest's NnSession and
// its memory. Owned by whoever owns the store; touched only by the store's thread. The threads
// of one wasi-threads guest each have a GuestState, sharing the session and the shared memory.
#pragma once

#include <atomic>
#include <memory>
#include <optional>

#include <wasmtime.h>

#include "abi/wit_nn.h"
#include "core/nn_session.h"

namespace wasinn {

struct SocketGuest;

struct GuestState {
  std::shared_ptr<NnSession> session;
  // A component guest's WIT resources (over `session`), else null.
  std::shared_ptr<wit_nn::WitSession> wit;
  // Cached after instantiation so a host call need not look the export up by name.
  std::optional<wasmtime_memory_t> memory;
  // A wasi-threads guest's imported shared memory (owned by its GuestThreads), else null.
  const wasmtime_sharedmemory_t* shared_memory = nullptr;
  // Counts this guest's threads inside a wasi-nn call (they return to wasm and stop soon; a
  // thread outside one that does not stop is parked), else null.
  std::atomic<int>* nn_calls = nullptr;
  // The tensor whose bytes a component's last tensor.data lent out: they are lowered into guest
  // memory after the host call returns, so they must live until then (engine/wit_host.h).
  std::shared_ptr<const OwnedTensor> lent_tensor;
  // A share for one wasinn:nn-async call on other threads (wit_host.h's guest_share), else null:
  // its table calls are the call's steps (NnSession::AsyncScope).
  std::shared_ptr<AsyncCall> async_call;
  // Bumped (acq_rel) once a share is filled and after each of its calls, read (acquire) at each
  // call's start and at its release: a share crosses threads through tokio and Rust's Arc, whose
  // synchronisation ThreadSanitizer cannot see, so the hand-offs are made visible here. A bump,
  // not a store: calls on two threads (a cancel and the compute it stops) must chain.
  std::atomic<uint32_t> published{0};
  // A core module that imports WasmEdge's socket ABI: its sockets (engine/socket_imports.h), else null.
  std::shared_ptr<SocketGuest> sockets;

  // The store that owns this state is gone: the guest's async calls are cancelled and their
  // framework work waited for (NnSession::close_async_calls). For a component's own state only.
  void end_async_calls() const {
    if (session && !async_call) session->close_async_calls();
  }

  // A component guest's state: a session over `env` and its WIT resources.
  static std::unique_ptr<GuestState> for_component(std::shared_ptr<NnEnvironment> env) {
    auto state = std::make_unique<GuestState>();
    state->session = std::make_shared<NnSession>(std::move(env));
    state->wit = std::make_shared<wit_nn::WitSession>(state->session);
    return state;
  }
};

}  // namespace wasinn
