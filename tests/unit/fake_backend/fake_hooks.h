// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The plugin's side of the fake's test control surface (fake_control.h): the counters
// fake_get_stats reports and the gate "fake:block" computes wait at. fake_backend.cpp updates
// them, fake_control.cpp exports them to the tests. Not part of a backend: a real one has none of
// this. Thread-safe.
#pragma once

#include <atomic>
#include <cstdint>

#include "wasinn/backend_plugin.h"

namespace wasinn::fake {

inline std::atomic<int64_t> live_backends{0}, live_graphs{0}, live_contexts{0}, graph_loads{0};

// Counts one live object in `count` for as long as the member holding it lives.
class LiveCount {
 public:
  explicit LiveCount(std::atomic<int64_t>& count) : count_(count) { ++count_; }
  ~LiveCount() { --count_; }
  LiveCount(const LiveCount&) = delete;
  LiveCount& operator=(const LiveCount&) = delete;

 private:
  std::atomic<int64_t>& count_;
};

// Waits until a test opens the gate (true) or cancel_gate_wait(cancelled) is called (false). A
// cancel from before the wait is forgotten: cancel affects only a compute already running.
bool wait_at_gate(std::atomic<bool>& cancelled);
void cancel_gate_wait(std::atomic<bool>& cancelled) noexcept;

// For FAKE_NO_STREAMING: fills the fields past api.struct_size with functions that only count
// their calls (fake_stats.calls_past_struct), which a host honouring struct_size never makes.
void fill_past_struct_size(wasinn_backend_api& api);

}  // namespace wasinn::fake
