// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ReadDeadlines (src/serve/oip/read_deadlines.h): a thread's poll() on a silent socket is
// interrupted once its deadline passes, and disarm() says so; a thread that disarms before its
// deadline is left alone, and one armed on another thread is not touched.
#include "serve/oip/read_deadlines.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <thread>

#include <gtest/gtest.h>

namespace wasinn::oip_server {
namespace {

using Clock = ReadDeadlines::Clock;
using std::chrono::milliseconds;

struct SocketPair {
  int fd[2] = {-1, -1};
  SocketPair() { EXPECT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fd), 0); }
  ~SocketPair() {
    close(fd[0]);
    close(fd[1]);
  }
};

// poll() on a socket nothing is written to, for at most 20 s: -1 with EINTR when it was cut.
int wait_silent(int fd, int* error) {
  pollfd p{fd, POLLIN, 0};
  const int r = poll(&p, 1, 20000);
  *error = errno;
  return r;
}

TEST(ReadDeadlines, CutsAWaitAtItsDeadline) {
  auto deadlines = ReadDeadlines::start();
  ASSERT_TRUE(deadlines) << deadlines.error().detail;
  SocketPair pair;
  const auto started = Clock::now();
  bool fired = false;
  int result = 0, error = 0;
  std::thread worker([&] {
    (*deadlines)->arm(Clock::now() + milliseconds(100));
    result = wait_silent(pair.fd[0], &error);
    fired = (*deadlines)->disarm();
  });
  worker.join();
  EXPECT_EQ(result, -1);
  EXPECT_EQ(error, EINTR);
  EXPECT_TRUE(fired);
  EXPECT_GE(Clock::now() - started, milliseconds(100));
  EXPECT_LT(Clock::now() - started, milliseconds(10000));  // not the poll's own 20 s
}

TEST(ReadDeadlines, LeavesAThreadThatDisarmedInTime) {
  auto deadlines = ReadDeadlines::start();
  ASSERT_TRUE(deadlines) << deadlines.error().detail;
  SocketPair pair;
  bool fired = true;
  int result = -1, error = 0;
  std::thread worker([&] {
    (*deadlines)->arm(Clock::now() + milliseconds(60000));
    ASSERT_EQ(write(pair.fd[1], "x", 1), 1);
    result = wait_silent(pair.fd[0], &error);  // the byte is there: returns at once
    fired = (*deadlines)->disarm();
    // Disarmed: a later wait is not cut (bounded here by its own 300 ms).
    char c;
    ASSERT_EQ(read(pair.fd[0], &c, 1), 1);
    pollfd p{pair.fd[0], POLLIN, 0};
    result += poll(&p, 1, 300);
  });
  worker.join();
  EXPECT_EQ(result, 1);  // 1 from the first poll, 0 (timed out, not cut) from the second
  EXPECT_FALSE(fired);
}

TEST(ReadDeadlines, CutsOnlyTheArmedThread) {
  auto deadlines = ReadDeadlines::start();
  ASSERT_TRUE(deadlines) << deadlines.error().detail;
  SocketPair cut_pair, calm_pair;
  std::atomic<bool> cut_done{false};
  int cut_result = 0, calm_result = 0, error = 0;
  std::thread calm([&] {
    pollfd p{calm_pair.fd[0], POLLIN, 0};
    // Polls in 100 ms slices until the cut thread is done: none of them may fail with EINTR.
    for (int i = 0; i < 200 && !cut_done.load(); ++i) {
      const int r = poll(&p, 1, 100);
      if (r != 0) calm_result = r;
    }
  });
  std::thread cut([&] {
    (*deadlines)->arm(Clock::now() + milliseconds(200));
    cut_result = wait_silent(cut_pair.fd[0], &error);
    (*deadlines)->disarm();
    cut_done = true;
  });
  cut.join();
  calm.join();
  EXPECT_EQ(cut_result, -1);
  EXPECT_EQ(error, EINTR);
  EXPECT_EQ(calm_result, 0);
}

}  // namespace
}  // namespace wasinn::oip_server
