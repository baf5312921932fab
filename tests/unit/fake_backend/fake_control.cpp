// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The fake plugin's test control surface (fake_control.h), exported beside wasinn_backend_api_v1,
// and the state behind it (fake_hooks.h): object counters, the compute gate, and the functions
// that fill a short table's fields past its struct_size.
#include <chrono>
#include <condition_variable>
#include <mutex>

#include "fake_control.h"
#include "fake_hooks.h"

namespace wasinn::fake {
namespace {

std::mutex gate_mu;
std::condition_variable gate_cv;
int64_t blocked = 0;           // computes waiting at the gate now
uint64_t gate_generation = 0;  // bumped by every fake_open_gate

std::atomic<int64_t> calls_past_struct{0};

int past_struct(wasinn_context*, wasinn_diag*) {
  ++calls_past_struct;
  return WASINN_OK;
}
int past_struct_get(wasinn_context*, const wasinn_tensor_id*, wasinn_tensor*, wasinn_diag*) {
  ++calls_past_struct;
  return WASINN_OK;
}
void past_struct_cancel(wasinn_context*) { ++calls_past_struct; }
void past_struct_log_sink(const wasinn_log_sink*) { ++calls_past_struct; }

}  // namespace

bool wait_at_gate(std::atomic<bool>& cancelled) {
  std::unique_lock lock(gate_mu);
  const uint64_t generation = gate_generation;
  cancelled.store(false);
  ++blocked;
  gate_cv.notify_all();  // fake_wait_blocked
  gate_cv.wait(lock, [&] { return gate_generation != generation || cancelled.load(); });
  --blocked;
  return !cancelled.exchange(false);
}

void cancel_gate_wait(std::atomic<bool>& cancelled) noexcept {
  std::lock_guard lock(gate_mu);
  cancelled.store(true);
  gate_cv.notify_all();
}

void fill_past_struct_size(wasinn_backend_api& api) {
  api.compute_single = past_struct;
  api.get_output_single = past_struct_get;
  api.fini_single = past_struct;
  api.cancel = past_struct_cancel;
  api.set_log_sink = past_struct_log_sink;
}

}  // namespace wasinn::fake

using namespace wasinn::fake;

extern "C" {

WASINN_PLUGIN_EXPORT fake_stats fake_get_stats(void) {
  std::lock_guard lock(gate_mu);
  return fake_stats{live_backends.load(),    live_graphs.load(), live_contexts.load(), graph_loads.load(), blocked,
                    calls_past_struct.load()};
}

WASINN_PLUGIN_EXPORT int fake_wait_blocked(int64_t count, int timeout_ms) {
  std::unique_lock lock(gate_mu);
  return gate_cv.wait_for(lock, std::chrono::milliseconds(timeout_ms), [&] { return blocked >= count; }) ? 1 : 0;
}

WASINN_PLUGIN_EXPORT void fake_open_gate(void) {
  std::lock_guard lock(gate_mu);
  ++gate_generation;
  gate_cv.notify_all();
}

}  // extern "C"
