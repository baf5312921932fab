// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A cache directory that only this user can write, for entries whose content wasinn trusts
// (a verdict lets a model load unchecked; compiled code is run): it is created 0700, and it and
// its parent must belong to the user (the parent may be root's) and be writable by nobody else,
// checked once through an fd that every later access goes through, so the path cannot be
// swapped afterwards. Entries are written to a temp file and renamed, so a reader (another
// wasinn process included) sees an old entry or a new one, never half of one; the directory is
// kept bounded, least recently used entries first out. Entries are checked by their users; this
// class only guarantees who wrote them. Thread-safe.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace wasinn {

// $XDG_CACHE_HOME/wasinn/<name> (an absolute $XDG_CACHE_HOME only, as the XDG spec says), else
// $HOME/.cache/wasinn/<name>; empty when neither variable is set.
std::filesystem::path user_cache_dir(std::string_view name);

class PrivateCacheDir {
 public:
  // nullptr, with the reason in *why, when `dir` cannot be made safe to use.
  static std::unique_ptr<PrivateCacheDir> open(const std::filesystem::path& dir, std::string* why);
  ~PrivateCacheDir();
  PrivateCacheDir(const PrivateCacheDir&) = delete;
  PrivateCacheDir& operator=(const PrivateCacheDir&) = delete;

  const std::filesystem::path& path() const { return path_; }

  // The entry's bytes; nullopt (with the reason in *why, "" when it is simply absent) when it is
  // missing, not a regular file of this user, larger than max_bytes or cannot be read whole.
  // Marks the entry recently used.
  std::optional<std::string> read(std::string_view name, uint64_t max_bytes, std::string* why) const;

  // Writes the entry atomically; false with the reason in *why.
  bool write(std::string_view name, std::span<const uint8_t> bytes, std::string* why);

  // Every so many writes of this process: removes temp files a crashed writer left, and when
  // more than max_entries names end in `suffix`, the least recently used quarter of them.
  void prune_sometimes(std::string_view suffix, size_t max_entries);

 private:
  PrivateCacheDir(int fd, std::filesystem::path path) : fd_(fd), path_(std::move(path)) {}
  void prune(std::string_view suffix, size_t max_entries);

  int fd_;
  std::filesystem::path path_;
  std::atomic<uint64_t> writes_{0};
};

}  // namespace wasinn
