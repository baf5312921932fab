// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Admission: the one policy by which both servers admit requests to their workers (the wasi:http
// front through serve_host.h's admission table, the OIP server through ModelSet): `workers`
// places (the wasi:http front may set more once it knows its component: resize()); a request
// takes a free place at once, else waits in a queue of at most `max_queue`, else is refused (the
// 503/UNAVAILABLE, counted); a place given back goes to the oldest waiter; close() (the drain's
// end) refuses what arrives and ends every wait.
// Thread-safe. A waiter's grant runs exactly once (unless withdrawn first), with no lock held, on
// the thread that gave a place back or closed; it must be quick and may re-enter Admission.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <list>
#include <mutex>

namespace wasinn {

class Admission {
 public:
  // admitted: the waiter holds a place now (give it back with leave()); false: closed while waiting.
  using Grant = std::function<void(bool admitted)>;
  enum class Entry { admitted, queued, refused };

  Admission(size_t workers, size_t max_queue);  // workers 0 is taken as 1

  // admitted: the caller holds a place now and `grant` is dropped; queued: `grant` runs later and
  // `*ticket` names the wait for withdraw(); refused: the queue is full, or closed.
  Entry enter(Grant grant, uint64_t* ticket = nullptr);
  // A waiter leaves the queue (its client left). False when its grant already ran or runs now.
  bool withdraw(uint64_t ticket);
  // A place is given back; the oldest waiter gets it.
  void leave();
  // A holder waits for another holder's work (a dynamic batch) without a place, then takes one back
  // without queueing: for that while `workers` may be passed, to hand over an answer, not compute.
  void pause();
  void resume();
  // Refuses from now on; every waiter's grant runs with false.
  void close();
  // The places from now on (0 is taken as 1): more let waiters in, oldest first; fewer take none
  // back (holders leave as they end). The wasi:http front sets them at start (serve_host.h).
  void resize(size_t places);

  struct Gauges {
    uint64_t holding = 0;  // places held (resumed holders included)
    uint64_t queued = 0;   // waiting for a place
    uint64_t refused = 0;  // since start
  };
  Gauges gauges() const;

 private:
  struct Waiter {
    uint64_t ticket;
    Grant grant;
  };
  const size_t max_queue_;
  size_t workers_;  // the places (mu_)
  mutable std::mutex mu_;
  size_t holding_ = 0;
  std::list<Waiter> waiting_;
  uint64_t next_ticket_ = 1, refused_ = 0;
  bool closed_ = false;
};

}  // namespace wasinn
