// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ReadDeadlines: a deadline on what a civetweb worker thread waits for from its client (a TLS
// handshake, a request's headers, a body's next bytes). civetweb 1.15 bounds only the silence
// between two reads (request_timeout_ms), so a client sending a byte every few seconds holds its
// thread for ever; past a deadline armed here, a thread of this class signals the worker, whose
// poll() then fails with EINTR and civetweb's read returns (mg_read: what it had, or -1; a header
// read or handshake: failed). The signal is a real-time one no handler had, taken once per process,
// with a handler that does nothing; it is sent again every few milliseconds until the worker
// disarms, as one that arrives outside poll() is lost.
#pragma once

#include <pthread.h>

#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include "core/error.h"

namespace wasinn::oip_server {

class ReadDeadlines {
 public:
  using Clock = std::chrono::steady_clock;

  // Takes the signal (the first time in the process) and starts the thread; an error when every
  // real-time signal has a handler already.
  static Result<std::unique_ptr<ReadDeadlines>> start();
  ~ReadDeadlines();  // stops the thread: after civetweb's have stopped (none is armed then)
  ReadDeadlines(const ReadDeadlines&) = delete;
  ReadDeadlines& operator=(const ReadDeadlines&) = delete;

  // The calling thread's wait on its client ends at `deadline` (a new arm replaces the last).
  void arm(Clock::time_point deadline);
  // The calling thread no longer waits on its client; true when its deadline passed while armed
  // (its read was cut, or is about to be: the caller treats it as cut).
  bool disarm();

  // The signal the workers are woken with; a civetweb thread must not block it.
  static int wake_signal();

 private:
  ReadDeadlines() = default;
  void run();

  struct Armed {
    Clock::time_point deadline;
    bool fired = false;
  };
  std::mutex mu_;
  std::condition_variable changed_;
  std::map<pthread_t, Armed> armed_;                        // under mu_
  Clock::time_point next_wake_ = Clock::time_point::max();  // when run() wakes next, under mu_
  bool stopping_ = false;                                   // under mu_
  std::thread thread_;
};

}  // namespace wasinn::oip_server
