// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The local side of `wasinn pull` (hub_download.h): one file's bytes into DEST.incomplete, continued
// with a Range request when an earlier run left one, checked (size, and the sha256 an LFS file's
// ETag is), renamed to DEST when whole; the snapshot's symlink to a blob; the lock one download
// of a blob holds; and the small checks both sides share.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "cli/hub_download.h"
#include "cli/hub_http.h"
#include "core/error.h"

namespace wasinn_cli::hub {

std::string lower(std::string s);
std::string trim(const std::string& s);
bool is_hex(const std::string& s, size_t n);
bool is_commit(const std::string& s);  // 40 hex digits
// One file name: letters, digits, '.', '_', '-' (an ETag, a host, a URL's file name); not . or ..
bool plain_name(const std::string& s);
// A relative '/'-separated path with no empty, "." or ".." part (a file in a repository, a revision).
bool safe_path(const std::string& p);
// As huggingface_hub's _normalize_etag: W/"x" and "x" are x.
std::string normalize_etag(std::string e);
std::string human(uint64_t bytes);  // "4.0 MiB"
std::string sha256_hex(std::string_view bytes);

wasinn::Status make_dirs(const std::filesystem::path& dir);
// Through a temp file and a rename: a reader sees the old text or the new.
wasinn::Status write_atomically(const std::filesystem::path& path, const std::string& text);
std::string read_text(const std::filesystem::path& path);  // trimmed; "" when unreadable

// o.progress (when set) with EVENT for NAME; notice: a message for the user.
void report(const PullOptions& o, PullProgress::Event event, const std::string& name);
void notice(const PullOptions& o, const std::string& text);

// An exclusive flock on PATH for as long as it lives, as huggingface_hub's filelock takes it (so
// the two wait for each other); a lock that cannot be taken (a read-only cache) is gone without.
class FileLock {
 public:
  FileLock(const std::filesystem::path& path, const PullOptions& o, const std::string& name);
  ~FileLock();
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  int fd_ = -1;
};

struct Download {
  std::string name;  // for messages
  std::string url;
  Headers headers;
  std::filesystem::path dest;  // written to DEST.incomplete first
  std::string sha256;          // the bytes' digest when known (an LFS file's ETag)
  uint64_t size = 0;
  bool size_known = false;
};

// Reports start, bytes and done through o.progress; a cut connection that brought bytes is
// continued (5 times at most) before it is an error, and then the next run continues it.
wasinn::Status download(const PullOptions& o, const Download& d);

// snapshots/COMMIT/PATH as a relative symlink to ../../blobs/ETAG (one more ../ per directory
// in PATH), replacing what is there.
wasinn::Status make_pointer(const std::filesystem::path& pointer, const std::string& path, const std::string& etag);

}  // namespace wasinn_cli::hub
