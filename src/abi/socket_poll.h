// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// poll_oneoff over WasmEdge-ABI sockets (abi/wasmedge_sockets.h) mixed with everything else a
// core module may poll: its relative realtime and monotonic clocks and its absolute realtime
// ones (the crate wasmedge_wasi_socket's timeouts) are timed here; its other subscriptions
// (Wasmtime's fds, absolute monotonic and CPU-time clocks) go to Wasmtime's own
// poll_oneoff through OtherPoll. While it waits it blocks in the OS's poll of the sockets, for at
// most `slice` when other subscriptions are pending, asking Wasmtime after each slice whether they
// are ready (waiting there up to 1 ms, for a file's readiness, which Wasmtime learns by a read on
// another thread): a socket wakes it within a millisecond, another fd within a slice, and nothing
// spins. The subscription (48 bytes) and event (32 bytes) layouts are WASI's.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "abi/wasmedge_sockets.h"

namespace wasinn::wasmedge_sockets {

inline constexpr uint32_t kSubscriptionSize = 48;
inline constexpr uint32_t kEventSize = 32;
// poll_oneoff's answer when no subscription names a socket: nothing was read or written, the
// caller hands the whole call to Wasmtime.
inline constexpr uint32_t kNoSockets = 0x10000;

struct PollEvent {
  uint64_t userdata = 0;
  uint16_t error = 0;
  uint8_t type = 0;  // 0 clock, 1 fd_read, 2 fd_write
  uint64_t nbytes = 0;
  uint16_t flags = 0;  // 1: hangup
};

// Wasmtime's poll_oneoff over `count` subscriptions laid out in `subscriptions` (the last a
// relative monotonic clock that bounds its wait: 0 ns on the first look); its errno, its events
// appended to `events`.
using OtherPoll =
    std::function<uint16_t(std::span<const uint8_t> subscriptions, uint32_t count, std::vector<PollEvent>& events)>;

uint32_t poll_oneoff(Call c, uint32_t in, uint32_t out, uint32_t nsubscriptions, uint32_t nevents_out,
                     const OtherPoll& others, std::chrono::milliseconds slice = std::chrono::milliseconds(10));

}  // namespace wasinn::wasmedge_sockets
