// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// wasinn:nn-async's calls on a session (docs/compatibility.md), whose framework work runs on
// threads other than the guest's. AsyncCall is one call: its cancel flag and, for a generation,
// the context it holds from its start to its end (a claim), so no other call's step runs between
// two of its tokens. AsyncCalls is a session's set of them: the gate each step passes, and
// close(), which at the guest's end cancels them all and waits until no step is left in a
// framework, so nothing runs for a guest that has ended and no framework is torn down under it.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_set>

#include "core/error.h"
#include "core/graph.h"

namespace wasinn {

class AsyncCalls;

// The live AsyncCalls of an environment, counted: whoever tears the frameworks down waits for
// none to be left first (a call's last reference may be dropped on any thread, at any time).
class AsyncCallCount {
 public:
  void add();
  void remove();
  // Whether none was left within `most`.
  bool wait_idle(std::chrono::milliseconds most);

 private:
  std::mutex mu_;
  std::condition_variable idle_;
  size_t live_ = 0;
};

class AsyncCall {
 public:
  explicit AsyncCall(std::shared_ptr<AsyncCalls> owner);
  ~AsyncCall();  // ends its generation, if one is still held, and leaves the set
  AsyncCall(const AsyncCall&) = delete;
  AsyncCall& operator=(const AsyncCall&) = delete;

  // The caller gave up (it dropped the call, or the guest ended): its steps stop.
  void cancel() { cancelled_.store(true, std::memory_order_release); }
  bool cancelled() const { return cancelled_.load(std::memory_order_acquire); }
  // What a lease of this call carries: the tag a cancel aims at, and the flag that ends its wait.
  ExecutionContext::Holder holder() const { return {this, &cancelled_}; }

  // The context the generation holds, if it is `handle`'s, else null.
  ExecutionContext* claimed(uint32_t handle);
  // Holds `ctx` (under `lease`) until end_generation, for the generation's steps.
  void claim(uint32_t handle, std::shared_ptr<ExecutionContext> ctx, ExecutionContext::Lease lease);
  // The generation is over (complete, failed, cancelled): its stream is finished in the plugin
  // (fini_single: the next one starts from an empty KV cache) and the context let go.
  void end_generation();

 private:
  friend class AsyncCalls;
  struct Claim {
    uint32_t handle = 0;
    std::shared_ptr<ExecutionContext> ctx;
    std::optional<ExecutionContext::Lease> lease;
  };
  static void release(std::unique_ptr<Claim>& claim);

  std::shared_ptr<AsyncCalls> owner_;
  std::atomic<bool> cancelled_{false};
  std::unique_ptr<Claim> claim_;  // under owner_->mu_
};

class AsyncCalls : public std::enable_shared_from_this<AsyncCalls> {
 public:
  explicit AsyncCalls(std::shared_ptr<AsyncCallCount> count) : count_(std::move(count)) {}
  // A new call; `cancelled` once the session has closed.
  Result<std::shared_ptr<AsyncCall>> begin();
  // A step of a call (one table call on its thread) starts and ends; false: closed, refused.
  bool enter();
  void leave();
  // Cancels every call and refuses steps from now on; runs cancel_all (which cancels the
  // session's busy contexts) every few milliseconds until no step is left, then ends every
  // generation still held. Idempotent.
  void close(const std::function<void()>& cancel_all);

 private:
  friend class AsyncCall;
  std::shared_ptr<AsyncCallCount> count_;
  std::mutex mu_;
  std::condition_variable idle_;
  bool closed_ = false;
  size_t steps_ = 0;
  std::unordered_set<AsyncCall*> calls_;
};

}  // namespace wasinn
