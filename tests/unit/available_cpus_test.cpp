// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// include/wasinn/available_cpus.h: the quota files' text, a container's cgroup path, and the
// affinity mask of the calling thread. A real cgroup quota: tests/p3/available_cpus_test.py.
#include "wasinn/available_cpus.h"

#include <gtest/gtest.h>
#include <sched.h>

#include <thread>

namespace wasinn {
namespace {

using cpus_detail::cgroup_dir;
using cpus_detail::from_cpu_max;
using cpus_detail::from_quota;

TEST(AvailableCpus, AQuotaIsRoundedUpToWholeCpus) {
  EXPECT_EQ(from_quota("100000\n", "100000\n"), 1u);
  EXPECT_EQ(from_quota("150000", "100000"), 2u);
  EXPECT_EQ(from_quota("50000", "100000"), 1u);
  EXPECT_EQ(from_quota("400000", "100000"), 4u);
}

TEST(AvailableCpus, NoQuotaOrTextThatIsNotOneIsNoLimit) {
  EXPECT_EQ(from_quota("-1", "100000"), 0u);  // cgroup v1's "no limit"
  EXPECT_EQ(from_quota("", ""), 0u);          // the files are not there
  EXPECT_EQ(from_quota("100000", "0"), 0u);
  EXPECT_EQ(from_quota("12x", "100000"), 0u);
  EXPECT_EQ(from_quota("99999999999999999999", "1"), 0u);
  EXPECT_EQ(from_cpu_max("max 100000\n"), 0u);  // cgroup v2's "no limit"
  EXPECT_EQ(from_cpu_max("200000 100000\n"), 2u);
  EXPECT_EQ(from_cpu_max("garbage"), 0u);
}

TEST(AvailableCpus, AContainersCgroupPathIsUnderItsMountsRoot) {
  EXPECT_EQ(cgroup_dir("/sys/fs/cgroup", "/", "/"), "/sys/fs/cgroup");
  EXPECT_EQ(cgroup_dir("/sys/fs/cgroup", "/", "/user.slice/app"), "/sys/fs/cgroup/user.slice/app");
  // A container whose mount's root is its own cgroup sees its path from the host's root.
  EXPECT_EQ(cgroup_dir("/sys/fs/cgroup/cpu", "/kubepods/pod1/c1", "/kubepods/pod1/c1"), "/sys/fs/cgroup/cpu");
  EXPECT_EQ(cgroup_dir("/sys/fs/cgroup/cpu", "/kubepods/pod1", "/kubepods/pod1/c1"), "/sys/fs/cgroup/cpu/c1");
  // The root is a prefix only at a '/': /pod1's mount says nothing of /pod10.
  EXPECT_EQ(cgroup_dir("/sys/fs/cgroup/cpu", "/pod1", "/pod10/c1"), "/sys/fs/cgroup/cpu/pod10/c1");
}

TEST(AvailableCpus, AThreadPinnedToOneCpuHasOne) {
  EXPECT_GE(available_cpus(), 1u);
  EXPECT_LE(available_cpus(), std::max(1u, std::thread::hardware_concurrency()));
  unsigned pinned = 0;
  std::thread([&pinned] {
    cpu_set_t all;
    ASSERT_EQ(sched_getaffinity(0, sizeof(all), &all), 0);
    int first = 0;
    while (!CPU_ISSET(first, &all)) ++first;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(first, &one);
    ASSERT_EQ(sched_setaffinity(0, sizeof(one), &one), 0);  // this thread's mask only
    pinned = available_cpus();
  }).join();
  EXPECT_EQ(pinned, 1u);
}

}  // namespace
}  // namespace wasinn
