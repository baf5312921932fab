// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "abi/socket_poll.h"

#include <poll.h>
#include <sys/ioctl.h>

#include <algorithm>
#include <cerrno>
#include <ctime>
#include <cstring>
#include <optional>

namespace wasinn::wasmedge_sockets {

namespace {

using Clock = std::chrono::steady_clock;

// How long a look into Wasmtime's subscriptions may wait, after the first (see poll_oneoff).
constexpr std::chrono::milliseconds kOtherWait{1};

struct SocketSub {
  uint64_t userdata;
  uint8_t type;  // 1 read, 2 write
  int os_fd;
};

struct ClockSub {
  uint64_t userdata;
  Clock::time_point due;
};

void put_event(uint8_t* at, const PollEvent& e) {
  std::memset(at, 0, kEventSize);
  std::memcpy(at, &e.userdata, 8);
  std::memcpy(at + 8, &e.error, 2);
  at[10] = e.type;
  std::memcpy(at + 16, &e.nbytes, 8);
  std::memcpy(at + 24, &e.flags, 2);
}

// Which sockets are ready now (or within `wait`, when set): their events.
void poll_sockets(const std::vector<SocketSub>& subs, std::vector<pollfd>& fds, std::optional<Clock::duration> wait,
                  std::vector<PollEvent>& events) {
  for (size_t i = 0; i < subs.size(); ++i)
    fds[i] = pollfd{subs[i].os_fd, short(subs[i].type == 1 ? POLLIN : POLLOUT), 0};
  timespec ts{};
  if (wait) {
    const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::max(*wait, Clock::duration::zero()));
    ts.tv_sec = static_cast<time_t>(ns.count() / 1000000000);
    ts.tv_nsec = static_cast<long>(ns.count() % 1000000000);
  }
  if (::ppoll(fds.data(), fds.size(), wait ? &ts : nullptr, nullptr) <= 0) return;  // none, or EINTR: look again
  for (size_t i = 0; i < subs.size(); ++i) {
    const short r = fds[i].revents;
    if (!r) continue;
    PollEvent e;
    e.userdata = subs[i].userdata;
    e.type = subs[i].type;
    if (r & POLLNVAL) e.error = kBadf;
    if (r & (POLLHUP | POLLRDHUP)) e.flags = 1;
    if (subs[i].type == 1) {
      int n = 0;
      if (::ioctl(subs[i].os_fd, FIONREAD, &n) == 0 && n > 0) e.nbytes = static_cast<uint64_t>(n);
    }
    events.push_back(e);
  }
}

}  // namespace

uint32_t poll_oneoff(Call c, uint32_t in, uint32_t out, uint32_t nsubscriptions, uint32_t nevents_out,
                     const OtherPoll& others, std::chrono::milliseconds slice) {
  auto subs = c.memory.bytes(in, uint64_t{nsubscriptions} * kSubscriptionSize, "");
  if (!subs) return kNoSockets;  // Wasmtime answers a bad pointer as it always does
  bool any_socket = false;
  for (uint32_t i = 0; i < nsubscriptions && !any_socket; ++i) {
    const uint8_t* s = subs->data() + uint64_t{i} * kSubscriptionSize;
    uint32_t fd;
    std::memcpy(&fd, s + 16, 4);
    any_socket = (s[8] == 1 || s[8] == 2) && SocketTable::in_range(fd);
  }
  if (!any_socket) return kNoSockets;
  auto events_out = c.memory.bytes(out, uint64_t{nsubscriptions} * kEventSize, "");
  if (!events_out || !c.memory.in_bounds(nevents_out, 4)) return kFault;

  // Sort the subscriptions: sockets, clocks timed here, answers known now, and Wasmtime's.
  const auto start = Clock::now();
  std::vector<SocketSub> sockets;
  std::vector<ClockSub> clocks;
  std::vector<PollEvent> known;
  std::vector<uint8_t> other_subs;  // Wasmtime's, each with its index as userdata
  std::vector<uint64_t> other_userdata;
  for (uint32_t i = 0; i < nsubscriptions; ++i) {
    const uint8_t* s = subs->data() + uint64_t{i} * kSubscriptionSize;
    uint64_t userdata;
    std::memcpy(&userdata, s, 8);
    const uint8_t tag = s[8];
    if (tag == 1 || tag == 2) {
      uint32_t fd;
      std::memcpy(&fd, s + 16, 4);
      if (SocketTable::in_range(fd)) {
        if (SocketTable::Entry* e = c.table.find(fd)) {
          sockets.push_back(SocketSub{userdata, tag, e->os_fd});
        } else {
          known.push_back(PollEvent{userdata, kBadf, tag, 0, 0});
        }
        continue;
      }
    } else if (tag == 0) {
      uint32_t id;
      uint64_t timeout;
      uint16_t flags;
      std::memcpy(&id, s + 16, 4);
      std::memcpy(&timeout, s + 24, 8);
      std::memcpy(&flags, s + 40, 2);
      const bool absolute = (flags & 1) != 0;
      if ((id == 0 || id == 1) && !absolute) {  // realtime or monotonic, relative
        const auto ns = std::chrono::nanoseconds(std::min<uint64_t>(timeout, uint64_t{1} << 62));
        clocks.push_back(ClockSub{userdata, start + std::chrono::duration_cast<Clock::duration>(ns)});
        continue;
      }
      if (id == 0 && absolute) {  // a realtime instant (the crate's timeouts): the host's realtime clock is WASI's
        timespec now{};
        ::clock_gettime(CLOCK_REALTIME, &now);
        const uint64_t now_ns = static_cast<uint64_t>(now.tv_sec) * 1000000000ull + static_cast<uint64_t>(now.tv_nsec);
        const auto ns =
            std::chrono::nanoseconds(timeout > now_ns ? std::min<uint64_t>(timeout - now_ns, 1ull << 62) : 0);
        clocks.push_back(ClockSub{userdata, start + std::chrono::duration_cast<Clock::duration>(ns)});
        continue;
      }
    } else {
      known.push_back(PollEvent{userdata, kInval, tag, 0, 0});
      continue;
    }
    const uint64_t index = other_userdata.size();
    other_userdata.push_back(userdata);
    other_subs.insert(other_subs.end(), s, s + kSubscriptionSize);
    std::memcpy(other_subs.data() + other_subs.size() - kSubscriptionSize, &index, 8);
  }
  const uint32_t other_count = static_cast<uint32_t>(other_userdata.size());
  if (other_count > 0) {  // a relative monotonic clock bounds Wasmtime's wait (0 ns: it only looks)
    uint8_t clock[kSubscriptionSize] = {};
    const uint64_t index = other_count;
    std::memcpy(clock, &index, 8);
    clock[16] = 1;
    other_subs.insert(other_subs.end(), clock, clock + kSubscriptionSize);
  }
  // Wasmtime finds a file ready by reading it on its blocking pool, and forgets that read when
  // its poll returns: a look that never waits can miss a readable file round after round on a
  // busy machine. Looks after the first wait up to kOtherWait for such work.
  const auto set_other_wait = [&](Clock::duration d) {
    const uint64_t ns = static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(d).count());
    std::memcpy(other_subs.data() + other_subs.size() - kSubscriptionSize + 24, &ns, 8);
  };
  std::optional<Clock::time_point> deadline;
  for (const ClockSub& k : clocks)
    if (!deadline || k.due < *deadline) deadline = k.due;

  std::vector<pollfd> fds(sockets.size());
  std::vector<PollEvent> events;
  for (bool first = true;; first = false) {
    events = known;
    poll_sockets(sockets, fds, Clock::duration::zero(), events);
    if (other_count > 0) {
      Clock::duration other_wait = Clock::duration::zero();
      if (!first && events.empty() && !c.table.force_nonblocking()) {
        other_wait = kOtherWait;
        if (deadline)
          other_wait = std::clamp<Clock::duration>(*deadline - Clock::now(), Clock::duration::zero(), other_wait);
      }
      set_other_wait(other_wait);
      std::vector<PollEvent> theirs;
      const uint16_t rc = others(other_subs, other_count + 1, theirs);
      if (rc != kSuccess) return rc;
      for (PollEvent e : theirs) {
        if (e.userdata >= other_count) continue;  // the clock added above
        e.userdata = other_userdata[e.userdata];
        events.push_back(e);
      }
    }
    const auto now = Clock::now();
    for (const ClockSub& k : clocks)
      if (k.due <= now) events.push_back(PollEvent{k.userdata, 0, 0, 0, 0});
    if (!events.empty() || c.table.force_nonblocking()) break;  // the fuzzer's table never waits
    std::optional<Clock::duration> wait;
    if (deadline) wait = *deadline - now;
    if (other_count > 0 && (!wait || *wait > slice)) wait = slice;
    std::vector<PollEvent> woke;
    poll_sockets(sockets, fds, wait, woke);  // a wake-up is collected again above, with the rest
  }
  // Each subscription gives at most one event, so they fit the guest's nsubscriptions slots.
  const uint32_t n = static_cast<uint32_t>(std::min<size_t>(events.size(), nsubscriptions));
  for (uint32_t i = 0; i < n; ++i) put_event(events_out->data() + uint64_t{i} * kEventSize, events[i]);
  auto count = c.memory.bytes(nevents_out, 4, "");
  std::memcpy(count->data(), &n, 4);
  return kSuccess;
}

}  // namespace wasinn::wasmedge_sockets
