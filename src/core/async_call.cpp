// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "core/async_call.h"

#include <utility>
#include <vector>

namespace wasinn {

namespace {
// How often close repeats its cancels while steps are still in a framework.
constexpr auto kCloseRepeat = std::chrono::milliseconds(5);

}  // namespace

void AsyncCallCount::add() {
  std::lock_guard lock(mu_);
  ++live_;
}

void AsyncCallCount::remove() {
  bool idle;
  {
    std::lock_guard lock(mu_);
    idle = --live_ == 0;
  }
  if (idle) idle_.notify_all();
}

bool AsyncCallCount::wait_idle(std::chrono::milliseconds most) {
  std::unique_lock lock(mu_);
  return idle_.wait_for(lock, most, [this] { return live_ == 0; });
}

AsyncCall::AsyncCall(std::shared_ptr<AsyncCalls> owner) : owner_(std::move(owner)) { owner_->count_->add(); }

AsyncCall::~AsyncCall() {
  std::unique_ptr<Claim> claim;
  {
    std::lock_guard lock(owner_->mu_);
    claim.swap(claim_);
    owner_->calls_.erase(this);
  }
  release(claim);
  owner_->count_->remove();  // last: its framework work is over
}

ExecutionContext* AsyncCall::claimed(uint32_t handle) {
  std::lock_guard lock(owner_->mu_);
  return claim_ && claim_->handle == handle ? claim_->ctx.get() : nullptr;
}

void AsyncCall::claim(uint32_t handle, std::shared_ptr<ExecutionContext> ctx, ExecutionContext::Lease lease) {
  auto claim = std::make_unique<Claim>(Claim{handle, std::move(ctx), std::move(lease)});
  {
    std::lock_guard lock(owner_->mu_);
    claim.swap(claim_);
  }
  release(claim);  // the one it held before, if any
}

void AsyncCall::end_generation() {
  std::unique_ptr<Claim> claim;
  {
    std::lock_guard lock(owner_->mu_);
    claim.swap(claim_);
  }
  release(claim);
}

void AsyncCall::release(std::unique_ptr<Claim>& claim) {
  if (!claim) return;
  // Under the lease still: a stream left mid-answer must not leak its KV state into the next.
  (void)claim->ctx->fini_single();
  claim->lease.reset();
  claim->ctx.reset();
}

Result<std::shared_ptr<AsyncCall>> AsyncCalls::begin() {
  auto call = std::make_shared<AsyncCall>(shared_from_this());
  std::lock_guard lock(mu_);
  if (closed_) return make_error(Errc::timeout, "compute was cancelled: the guest has ended");
  calls_.insert(call.get());
  return call;
}

bool AsyncCalls::enter() {
  std::lock_guard lock(mu_);
  if (closed_) return false;
  ++steps_;
  return true;
}

void AsyncCalls::leave() {
  bool idle;
  {
    std::lock_guard lock(mu_);
    idle = --steps_ == 0;
  }
  if (idle) idle_.notify_all();
}

void AsyncCalls::close(const std::function<void()>& cancel_all) {
  std::vector<std::unique_ptr<AsyncCall::Claim>> claims;
  {
    std::unique_lock lock(mu_);
    closed_ = true;
    for (AsyncCall* call : calls_) call->cancel();
    while (steps_ > 0) {
      lock.unlock();
      cancel_all();
      lock.lock();
      idle_.wait_for(lock, kCloseRepeat, [this] { return steps_ == 0; });
    }
    for (AsyncCall* call : calls_) {
      if (call->claim_) claims.push_back(std::move(call->claim_));
    }
  }
  for (auto& claim : claims) AsyncCall::release(claim);
}

}  // namespace wasinn
