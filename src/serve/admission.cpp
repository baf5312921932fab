// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "serve/admission.h"

#include <utility>

namespace wasinn {

Admission::Admission(size_t workers, size_t max_queue) : max_queue_(max_queue), workers_(workers ? workers : 1) {}

Admission::Entry Admission::enter(Grant grant, uint64_t* ticket) {
  std::lock_guard lock(mu_);
  if (closed_) {
    ++refused_;
    return Entry::refused;
  }
  // Waiters first: a place is free while others wait only between leave() and their grant.
  if (holding_ < workers_ && waiting_.empty()) {
    ++holding_;
    return Entry::admitted;
  }
  if (waiting_.size() >= max_queue_) {
    ++refused_;
    return Entry::refused;
  }
  const uint64_t id = next_ticket_++;
  waiting_.push_back({id, std::move(grant)});
  if (ticket) *ticket = id;
  return Entry::queued;
}

bool Admission::withdraw(uint64_t ticket) {
  std::lock_guard lock(mu_);
  for (auto it = waiting_.begin(); it != waiting_.end(); ++it)
    if (it->ticket == ticket) {
      waiting_.erase(it);
      return true;
    }
  return false;
}

void Admission::leave() {
  Grant next;
  {
    std::lock_guard lock(mu_);
    if (holding_ > 0) --holding_;
    if (closed_ || waiting_.empty() || holding_ >= workers_) return;
    // The place passes to the oldest waiter, counted as held before its grant runs.
    next = std::move(waiting_.front().grant);
    waiting_.pop_front();
    ++holding_;
  }
  next(true);
}

void Admission::pause() { leave(); }

void Admission::resume() {
  std::lock_guard lock(mu_);
  ++holding_;
}

void Admission::close() {
  std::list<Waiter> ended;
  {
    std::lock_guard lock(mu_);
    closed_ = true;
    ended.swap(waiting_);
  }
  for (Waiter& w : ended) w.grant(false);
}

void Admission::resize(size_t places) {
  std::list<Waiter> let_in;
  {
    std::lock_guard lock(mu_);
    workers_ = places ? places : 1;
    while (!closed_ && !waiting_.empty() && holding_ < workers_) {
      let_in.splice(let_in.end(), waiting_, waiting_.begin());
      ++holding_;
    }
  }
  for (Waiter& w : let_in) w.grant(true);
}

Admission::Gauges Admission::gauges() const {
  std::lock_guard lock(mu_);
  return {holding_, waiting_.size(), refused_};
}

}  // namespace wasinn
