// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What the graph and contexts need from a transport (REST or gRPC), so neither knows which one
// serves it. A Transport is shared by a graph's contexts and threads; a Call is one context's
// way to run inferences, one at a time, with cancel() from any thread.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "config.h"
#include "oip/oip_types.h"
#include "wasinn/plugin_sdk/error.hpp"

namespace wasinn::remote {

// What cancel() needs in either transport: a flag, and the handle of the request in flight (a
// libcurl multi handle, a grpc::ClientContext) that `wake` interrupts, under a lock.
template <typename Handle>
class CancelSlot {
 public:
  template <typename Wake>
  void cancel(Wake&& wake) noexcept {
    cancelled_.store(true);  // first: a request that starts after this sees it
    std::lock_guard lock(mu_);
    if (active_) wake(active_);
  }
  void reset() noexcept { cancelled_.store(false); }
  bool cancelled() const noexcept { return cancelled_.load(); }
  void set_active(Handle* h) {
    std::lock_guard lock(mu_);
    active_ = h;
  }

 private:
  std::atomic<bool> cancelled_{false};
  std::mutex mu_;
  Handle* active_ = nullptr;
};

class Call {
 public:
  virtual ~Call() = default;
  // One inference. TIMEOUT when cancelled or past the request timeout; never retried.
  virtual sdk::Error infer(std::span<const InputTensor> inputs, std::span<const std::string> output_names,
                           std::vector<OutputTensor>& outputs) = 0;
  // Stops a running infer() soon (it returns TIMEOUT); a later infer() runs normally.
  virtual void cancel() noexcept = 0;
  // Clears a cancel left from before: called when a compute starts.
  virtual void reset_cancel() noexcept = 0;
};

class Transport {
 public:
  virtual ~Transport() = default;
  // Idempotent, so retried with backoff on connection failures and 5xx/UNAVAILABLE.
  virtual sdk::Error model_metadata(ModelMeta& out) = 0;
  virtual std::unique_ptr<Call> open_call() = 0;
  // "REST binary", "REST JSON", "gRPC": for descriptions.
  virtual std::string describe() const = 0;
};

// Made in rest_transport.cpp / grpc_transport.cpp. The REST one asks GET /v2 which extensions
// the server has, to choose binary tensors.
sdk::Error make_rest_transport(const ModelTarget& target, std::unique_ptr<Transport>& out);
sdk::Error make_grpc_transport(const ModelTarget& target, std::unique_ptr<Transport>& out);

// What both do: a transport T for the target, started (T::start(): its first contact), or why not.
template <typename T>
sdk::Error start_transport(const ModelTarget& target, std::unique_ptr<Transport>& out) {
  auto t = std::make_unique<T>(target);
  if (sdk::Error e = t->start()) return e;
  out = std::move(t);
  return {};
}

// Sleeps before retry number `attempt` (1, 2, ...): 100 ms doubling, at most 2 s.
void backoff_sleep(unsigned attempt);

}  // namespace wasinn::remote
