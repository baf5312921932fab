// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "serve/oip/read_deadlines.h"

#include <signal.h>

#include <algorithm>

namespace wasinn::oip_server {

namespace {

// A worker that was signalled outside poll() (between two reads) is signalled again this soon.
constexpr auto kResignal = std::chrono::milliseconds(20);

// Interrupting a poll() is all the signal is for: no work in the handler.
extern "C" void on_wake_signal(int) {}

// The first real-time signal (after glibc's own, which SIGRTMIN leaves out) that has no handler,
// given ours without SA_RESTART; 0 when there is none.
int take_wake_signal() {
  for (int sig = SIGRTMIN + 1; sig <= SIGRTMAX; ++sig) {
    struct sigaction old {};
    if (sigaction(sig, nullptr, &old) != 0 || old.sa_handler != SIG_DFL) continue;
    struct sigaction wake {};
    wake.sa_handler = on_wake_signal;
    sigemptyset(&wake.sa_mask);
    wake.sa_flags = 0;
    if (sigaction(sig, &wake, nullptr) == 0) return sig;
  }
  return 0;
}

}  // namespace

int ReadDeadlines::wake_signal() {
  static const int sig = take_wake_signal();
  return sig;
}

Result<std::unique_ptr<ReadDeadlines>> ReadDeadlines::start() {
  if (wake_signal() == 0)
    return make_error(Errc::runtime_error,
                      "--oip-http: every real-time signal has a handler already; the REST server needs one to cut "
                      "slow clients (--header-timeout)");
  std::unique_ptr<ReadDeadlines> d(new ReadDeadlines());
  d->thread_ = std::thread([self = d.get()] { self->run(); });
  return d;
}

ReadDeadlines::~ReadDeadlines() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  changed_.notify_one();
  if (thread_.joinable()) thread_.join();
}

void ReadDeadlines::arm(Clock::time_point deadline) {
  bool sooner;
  {
    std::lock_guard lock(mu_);
    armed_[pthread_self()] = Armed{deadline, false};
    sooner = deadline < next_wake_;
  }
  if (sooner) changed_.notify_one();
}

bool ReadDeadlines::disarm() {
  std::lock_guard lock(mu_);
  const auto it = armed_.find(pthread_self());
  if (it == armed_.end()) return false;
  const bool fired = it->second.fired || Clock::now() >= it->second.deadline;
  armed_.erase(it);
  return fired;
}

void ReadDeadlines::run() {
  std::unique_lock lock(mu_);
  while (!stopping_) {
    const auto now = Clock::now();
    next_wake_ = Clock::time_point::max();
    for (auto& [thread, armed] : armed_) {
      if (armed.deadline <= now) {
        // Under mu_: the worker cannot disarm (and go on to other work, or end) meanwhile.
        armed.fired = true;
        pthread_kill(thread, wake_signal());
        next_wake_ = std::min(next_wake_, now + kResignal);
      } else {
        next_wake_ = std::min(next_wake_, armed.deadline);
      }
    }
    if (next_wake_ == Clock::time_point::max())
      changed_.wait(lock);
    else
      changed_.wait_until(lock, next_wake_);
  }
}

}  // namespace wasinn::oip_server
