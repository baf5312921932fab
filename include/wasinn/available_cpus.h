// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The CPUs this process may run on: its affinity mask (taskset, a container's cpuset), bounded
// by a cgroup CPU quota (v2 `cpu.max`, v1 `cpu.cfs_quota_us` / `cpu.cfs_period_us`, rounded up),
// the count Rust's available_parallelism and Go's GOMAXPROCS use. std::thread::hardware_concurrency
// counts the machine's: a container given 2 CPUs on a 64-core host would then run 64 spinning
// framework threads on a quota of 2. Header-only C++ for the host and plugins; thread-safe; Linux
// (elsewhere hardware_concurrency).
#pragma once

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#ifdef __linux__
#include <sched.h>
#endif

namespace wasinn {
namespace cpus_detail {

// CPUs a quota of `quota` per `period` microseconds allows, rounded up; 0: no limit (v1's -1, v2's
// "max") or text that is not a quota.
inline unsigned from_quota(std::string_view quota, std::string_view period) {
  const auto number = [](std::string_view s, long long& out) {
    while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.remove_suffix(1);
    if (s.empty() || s.size() > 18) return false;
    out = 0;
    for (char c : s) {
      if (c < '0' || c > '9') return false;
      out = out * 10 + (c - '0');
    }
    return true;
  };
  long long q = 0, p = 0;
  if (!number(quota, q) || !number(period, p) || q <= 0 || p <= 0) return 0;
  return static_cast<unsigned>(std::min<long long>((q + p - 1) / p, 1 << 20));
}

// cgroup v2's cpu.max: "QUOTA PERIOD" or "max PERIOD".
inline unsigned from_cpu_max(std::string_view text) {
  const size_t space = text.find(' ');
  if (space == std::string_view::npos) return 0;
  return from_quota(text.substr(0, space), text.substr(space + 1));
}

// The tighter of two limits, 0 meaning none.
inline unsigned tighter(unsigned a, unsigned b) { return a && (!b || a < b) ? a : b; }

inline std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The directory of this process's cgroup under a hierarchy mounted at `mount_point` whose root
// is `mount_root` (a container sees its own cgroup as "/"), from /proc/self/cgroup's `path`. The
// root is stripped only at a '/' boundary: root /a is no prefix of /ab.
inline std::string cgroup_dir(const std::string& mount_point, const std::string& mount_root, std::string path) {
  const bool under_root = path.compare(0, mount_root.size(), mount_root) == 0 &&
                          (path.size() == mount_root.size() || path[mount_root.size()] == '/');
  if (mount_root != "/" && under_root) path.erase(0, mount_root.size());
  return mount_point + (path == "/" || path.empty() ? "" : path);
}

// The smallest quota from `dir` up to `top` (a parent's quota bounds its children); 0: none.
inline unsigned smallest_quota_up(std::string dir, const std::string& top, bool v2) {
  unsigned best = 0;
  for (int depth = 0; depth < 64 && dir.size() >= top.size(); ++depth) {
    best = tighter(v2 ? from_cpu_max(read_text(dir + "/cpu.max"))
                      : from_quota(read_text(dir + "/cpu.cfs_quota_us"), read_text(dir + "/cpu.cfs_period_us")),
                   best);
    if (dir == top) break;
    const size_t slash = dir.rfind('/');
    if (slash == std::string::npos || slash < top.size()) break;
    dir.erase(slash);
  }
  return best;
}

// The CPUs this process's cgroup quota allows; 0: no quota, or none found.
inline unsigned cgroup_quota_cpus() {
  // /proc/self/mountinfo: "ID PARENT MAJ:MIN ROOT MOUNT_POINT OPTIONS... - FSTYPE SOURCE SUPER_OPTIONS".
  struct Mount {
    std::string root, point;
  };
  Mount v2, v1_cpu;
  std::ifstream mountinfo("/proc/self/mountinfo");
  for (std::string line; std::getline(mountinfo, line);) {
    std::istringstream fields(line);
    std::vector<std::string> f;
    for (std::string word; fields >> word;) f.push_back(word);
    const auto dash = std::find(f.begin(), f.end(), "-");
    if (f.size() < 5 || dash == f.end() || f.end() - dash < 2) continue;
    const std::string& fstype = dash[1];
    const std::string super_options = f.end() - dash >= 4 ? dash[3] : "";
    if (fstype == "cgroup2" && v2.point.empty()) v2 = {f[3], f[4]};
    if (fstype == "cgroup" && v1_cpu.point.empty() && ("," + super_options + ",").find(",cpu,") != std::string::npos)
      v1_cpu = {f[3], f[4]};
  }
  unsigned best = 0;
  // /proc/self/cgroup: "0::PATH" (v2), "N:CONTROLLER[,CONTROLLER]:PATH" (v1).
  std::ifstream cgroup("/proc/self/cgroup");
  for (std::string line; std::getline(cgroup, line);) {
    const size_t first = line.find(':'), second = first == std::string::npos ? first : line.find(':', first + 1);
    if (second == std::string::npos) continue;
    const std::string controllers = line.substr(first + 1, second - first - 1), path = line.substr(second + 1);
    if (controllers.empty() && !v2.point.empty())
      best = tighter(smallest_quota_up(cgroup_dir(v2.point, v2.root, path), v2.point, true), best);
    else if (("," + controllers + ",").find(",cpu,") != std::string::npos && !v1_cpu.point.empty())
      best = tighter(smallest_quota_up(cgroup_dir(v1_cpu.point, v1_cpu.root, path), v1_cpu.point, false), best);
  }
  return best;
}

}  // namespace cpus_detail

// At least 1. Read anew on each call (a few small files): at a start; per request, the _once below.
inline unsigned available_cpus() {
  unsigned cpus = std::max(1u, std::thread::hardware_concurrency());
#ifdef __linux__
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
    cpus = std::min(cpus, static_cast<unsigned>(CPU_COUNT(&set)));
  cpus = cpus_detail::tighter(cpus_detail::cgroup_quota_cpus(), cpus);
#endif
  return std::max(1u, cpus);
}

// available_cpus() as first read by this library, for a default looked up on every request (a
// plugin's thread count at each generation), where reading /proc each time would be hot-path I/O.
inline unsigned available_cpus_once() {
  static const unsigned cpus = available_cpus();
  return cpus;
}

}  // namespace wasinn
