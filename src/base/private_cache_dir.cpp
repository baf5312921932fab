// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "base/private_cache_dir.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <fmt/format.h>

namespace wasinn {

namespace fs = std::filesystem;

namespace {

constexpr uint64_t kPruneEvery = 64;                // writes of one process between looks at the count
constexpr auto kStaleTemp = std::chrono::hours(1);  // a temp file this old lost its writer
constexpr std::string_view kTempPrefix = ".tmp-";

// Why a directory (its fd) may not hold trusted entries, or "" when it may.
std::string unsafe_because(int fd, bool root_may_own) {
  struct stat st {};
  if (fstat(fd, &st) != 0) return fmt::format("fstat: {}", std::strerror(errno));
  if (!S_ISDIR(st.st_mode)) return "not a directory";
  if (st.st_uid != geteuid() && !(root_may_own && st.st_uid == 0)) {
    return fmt::format("owned by uid {}, not by this user (uid {})", st.st_uid, geteuid());
  }
  if (st.st_mode & (S_IWGRP | S_IWOTH)) return fmt::format("group- or world-writable (mode {:o})", st.st_mode & 07777);
  return {};
}

// mkdir -p with mode 0700 for what is missing; existing directories are left as they are.
void make_missing_dirs(const fs::path& dir) {
  fs::path prefix;
  for (const auto& part : dir) {
    prefix /= part;
    struct stat st {};
    if (::stat(prefix.c_str(), &st) != 0 && errno == ENOENT) ::mkdir(prefix.c_str(), 0700);
  }
}

// A plain name inside the directory: no separator, no dot files (temp files start with a dot).
bool is_entry_name(std::string_view name) {
  return !name.empty() && name.front() != '.' && name.find('/') == std::string_view::npos;
}

}  // namespace

fs::path user_cache_dir(std::string_view name) {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg == '/') return fs::path(xdg) / "wasinn" / name;
  if (const char* home = std::getenv("HOME"); home && *home) return fs::path(home) / ".cache/wasinn" / name;
  return {};
}

std::unique_ptr<PrivateCacheDir> PrivateCacheDir::open(const fs::path& requested, std::string* why) {
  std::error_code ec;
  const fs::path dir = fs::absolute(requested, ec).lexically_normal();
  auto refuse = [&](std::string reason) -> std::unique_ptr<PrivateCacheDir> {
    if (why) *why = std::move(reason);
    return nullptr;
  };
  if (ec || dir.filename().empty() || dir == dir.root_path()) return refuse("not a usable directory name");
  make_missing_dirs(dir.parent_path());
  const int parent = ::open(dir.parent_path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (parent < 0) return refuse(fmt::format("its parent: {}", std::strerror(errno)));
  // The parent too: whoever may write it may replace the directory with one of their own.
  if (std::string bad = unsafe_because(parent, /*root_may_own=*/true); !bad.empty()) {
    ::close(parent);
    return refuse("its parent is " + bad);
  }
  if (::mkdirat(parent, dir.filename().c_str(), 0700) != 0 && errno != EEXIST) {
    std::string reason = std::strerror(errno);
    ::close(parent);
    return refuse(reason);
  }
  // O_NOFOLLOW: a symlink put in its place would lead elsewhere after the checks.
  const int fd = ::openat(parent, dir.filename().c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  ::close(parent);
  if (fd < 0) return refuse(errno == ELOOP ? "a symbolic link" : std::strerror(errno));
  if (std::string bad = unsafe_because(fd, /*root_may_own=*/false); !bad.empty()) {
    ::close(fd);
    return refuse(bad);
  }
  return std::unique_ptr<PrivateCacheDir>(new PrivateCacheDir(fd, dir));
}

PrivateCacheDir::~PrivateCacheDir() { ::close(fd_); }

std::optional<std::string> PrivateCacheDir::read(std::string_view name, uint64_t max_bytes, std::string* why) const {
  auto fail = [&](std::string reason) -> std::optional<std::string> {
    if (why) *why = std::move(reason);
    return std::nullopt;
  };
  if (!is_entry_name(name)) return fail("not an entry name");
  const std::string file(name);
  const int fd = ::openat(fd_, file.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return fail(errno == ENOENT ? "" : std::strerror(errno));
  struct stat st {};
  std::string reason;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
    reason = "not a regular file";
  else if (st.st_uid != geteuid())
    reason = "owned by another user";
  else if (static_cast<uint64_t>(st.st_size) > max_bytes)
    reason = "too large to be an entry";
  if (!reason.empty()) {
    ::close(fd);
    return fail(reason);
  }
  std::string bytes(static_cast<size_t>(st.st_size), '\0');
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::read(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  if (done == bytes.size()) ::futimens(fd, nullptr);  // recently used: pruned last
  ::close(fd);
  if (done != bytes.size()) return fail("short read");
  return bytes;
}

bool PrivateCacheDir::write(std::string_view name, std::span<const uint8_t> bytes, std::string* why) {
  if (!is_entry_name(name)) {
    if (why) *why = "not an entry name";
    return false;
  }
  static std::atomic<uint64_t> serial{0};
  const std::string temp = fmt::format("{}{}-{}-{}", kTempPrefix, ::getpid(), serial++, name.substr(0, 16));
  const int fd = ::openat(fd_, temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) {
    if (why) *why = std::strerror(errno);
    return false;
  }
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  const int write_errno = errno;
  const bool closed = ::close(fd) == 0;
  if (done != bytes.size() || !closed || ::renameat(fd_, temp.c_str(), fd_, std::string(name).c_str()) != 0) {
    if (why) *why = std::strerror(done != bytes.size() ? write_errno : errno);
    ::unlinkat(fd_, temp.c_str(), 0);
    return false;
  }
  ++writes_;
  return true;
}

void PrivateCacheDir::prune_sometimes(std::string_view suffix, size_t max_entries) {
  if (writes_.load() % kPruneEvery == 1) prune(suffix, max_entries);
}

void PrivateCacheDir::prune(std::string_view suffix, size_t max_entries) {
  const int dup_fd = ::dup(fd_);
  DIR* d = dup_fd >= 0 ? ::fdopendir(dup_fd) : nullptr;
  if (!d) {
    if (dup_fd >= 0) ::close(dup_fd);
    return;
  }
  std::vector<std::pair<struct timespec, std::string>> entries;
  const auto now = std::chrono::system_clock::now();
  while (const dirent* e = ::readdir(d)) {
    const std::string_view name = e->d_name;
    struct stat st {};
    if (name == "." || name == ".." || ::fstatat(fd_, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    if (name.starts_with(kTempPrefix)) {
      if (now - std::chrono::system_clock::from_time_t(st.st_mtim.tv_sec) > kStaleTemp) ::unlinkat(fd_, e->d_name, 0);
    } else if (name.ends_with(suffix)) {
      entries.emplace_back(st.st_mtim, std::string(name));
    }
  }
  ::closedir(d);
  if (entries.size() <= max_entries) return;
  std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
    return a.first.tv_sec != b.first.tv_sec ? a.first.tv_sec < b.first.tv_sec : a.first.tv_nsec < b.first.tv_nsec;
  });
  const size_t remove = entries.size() - max_entries * 3 / 4;
  for (size_t i = 0; i < remove; ++i) ::unlinkat(fd_, entries[i].second.c_str(), 0);
}

}  // namespace wasinn
