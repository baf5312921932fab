// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "isolation/file_identity.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <ctime>

#include <fmt/format.h>

namespace wasinn {

namespace fs = std::filesystem;

namespace {

constexpr int64_t kSettledNs = 2'000'000'000;

std::string model_file_line(const struct stat& st) {
  return fmt::format("{}:{}:{}:{}.{}:{}.{}\n", st.st_dev, st.st_ino, st.st_size, st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
                     st.st_ctim.tv_sec, st.st_ctim.tv_nsec);
}

// Whether a regular file's mapped bytes equal `bytes`.
bool holds(int fd, std::span<const uint8_t> bytes) {
  if (bytes.empty()) return true;
  void* map = mmap(nullptr, bytes.size(), PROT_READ, MAP_PRIVATE, fd, 0);
  if (map == MAP_FAILED) return false;
  const bool same = std::memcmp(map, bytes.data(), bytes.size()) == 0;
  munmap(map, bytes.size());
  return same;
}

}  // namespace

std::optional<std::string> file_identity(const fs::path& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return fmt::format("{}:{}:{}:{}.{}", st.st_dev, st.st_ino, st.st_size, st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
}

std::optional<std::string> model_files_identity(std::span<const fs::path> paths,
                                                std::span<const std::span<const uint8_t>> builders, bool* settled) {
  if (paths.size() != builders.size()) return std::nullopt;
  timespec now{};
  clock_gettime(CLOCK_REALTIME, &now);
  auto ns = [](const timespec& t) { return int64_t{t.tv_sec} * 1'000'000'000 + t.tv_nsec; };
  std::string out;
  *settled = true;
  for (size_t i = 0; i < paths.size(); ++i) {
    struct stat st {};
    if (::stat(paths[i].c_str(), &st) != 0 || !S_ISREG(st.st_mode) ||
        static_cast<uint64_t>(st.st_size) != builders[i].size()) {
      return std::nullopt;
    }
    if (ns(now) - ns(st.st_ctim) < kSettledNs || ns(now) - ns(st.st_mtim) < kSettledNs) *settled = false;
    out += model_file_line(st);
  }
  return out;
}

std::optional<std::string> identity_if_files_hold(std::span<const fs::path> paths,
                                                  std::span<const std::span<const uint8_t>> builders) {
  if (paths.size() != builders.size()) return std::nullopt;
  std::string out;
  for (size_t i = 0; i < paths.size(); ++i) {
    const int fd = ::open(paths[i].c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return std::nullopt;
    struct stat st {};
    const bool same = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
                      static_cast<uint64_t>(st.st_size) == builders[i].size() && holds(fd, builders[i]);
    ::close(fd);
    if (!same) return std::nullopt;
    out += model_file_line(st);
  }
  return out;
}

}  // namespace wasinn
