// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "core/model_memory.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

namespace wasinn {

namespace {

constexpr uint64_t kMinCacheBytes = 32ull << 20;

// The first number of a one-line file (memory.max's "max" is none).
std::optional<uint64_t> read_number(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::string word;
  if (!(in >> word) || word.empty() || word.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  return std::stoull(word);
}

std::optional<uint64_t> mem_available() {
  std::ifstream in("/proc/meminfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("MemAvailable:", 0) != 0) continue;
    std::istringstream fields(line.substr(13));
    uint64_t kib = 0;
    if (fields >> kib) return kib * 1024;
  }
  return std::nullopt;
}

// The cgroup v2 this process is in (/proc/self/cgroup's "0::PATH"), under /sys/fs/cgroup.
std::optional<std::filesystem::path> own_cgroup() {
  std::ifstream in("/proc/self/cgroup");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("0::", 0) == 0) return std::filesystem::path("/sys/fs/cgroup") / line.substr(3).erase(0, 1);
  }
  return std::nullopt;
}

}  // namespace

ModelMemoryEstimate estimate_model_memory(const std::vector<std::filesystem::path>& files) {
  ModelMemoryEstimate estimate;
  for (const auto& file : files) {
    std::error_code ec;
    const auto size = std::filesystem::file_size(file, ec);
    if (!ec) estimate.file_bytes += size;
  }
  estimate.cache_bytes = std::max(kMinCacheBytes, estimate.file_bytes / 4);
  return estimate;
}

std::optional<MemoryRoom> memory_room() {
  std::optional<MemoryRoom> room;
  if (auto available = mem_available()) room = MemoryRoom{*available, "MemAvailable in /proc/meminfo"};
  if (auto cgroup = own_cgroup()) {
    const auto max = read_number(*cgroup / "memory.max");
    const auto current = read_number(*cgroup / "memory.current");
    if (max && current) {
      const uint64_t left = *max > *current ? *max - *current : 0;
      if (!room || left < room->bytes) {
        room = MemoryRoom{left, fmt::format("the cgroup's memory.max ({}) less its memory.current ({})",
                                            byte_size_text(*max), byte_size_text(*current))};
      }
    }
  }
  return room;
}

std::string byte_size_text(uint64_t bytes) {
  if (bytes >= (10ull << 20)) return fmt::format("{} MiB", bytes >> 20);
  if (bytes >= (10ull << 10)) return fmt::format("{} KiB", bytes >> 10);
  return fmt::format("{} bytes", bytes);
}

}  // namespace wasinn
