// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "cli/hub_fetch.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <nettle/sha2.h>

namespace wasinn_cli::hub {

namespace fs = std::filesystem;
using wasinn::Errc;
using wasinn::Error;
using wasinn::make_error;
using wasinn::Status;

namespace {

constexpr int kResumeTries = 5;  // a cut download that got bytes is continued this many times

class Digest {
 public:
  Digest() { reset(); }
  void reset() { sha256_init(&ctx_); }
  void update(const char* p, size_t n) { sha256_update(&ctx_, n, reinterpret_cast<const uint8_t*>(p)); }
  std::string hex() {
    uint8_t d[SHA256_DIGEST_SIZE];
    sha256_digest(&ctx_, sizeof d, d);
    std::string out;
    for (uint8_t b : d) out += fmt::format("{:02x}", b);
    return out;
  }

 private:
  sha256_ctx ctx_;
};

struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

Error io_error(const std::string& what, const fs::path& path, int err) {
  return make_error(Errc::runtime_error, fmt::format("cannot {} {}: {}", what, path.string(), std::strerror(err)));
}

bool write_at(int fd, const char* p, size_t n, uint64_t at) {
  while (n > 0) {
    const ssize_t w = ::pwrite(fd, p, n, static_cast<off_t>(at));
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= static_cast<size_t>(w);
    at += static_cast<uint64_t>(w);
  }
  return true;
}

std::string sized(uint64_t bytes, bool known) { return known ? human(bytes) : "size unknown"; }

}  // namespace

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string trim(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t\r\n");
  return a == std::string::npos ? "" : s.substr(a, s.find_last_not_of(" \t\r\n") - a + 1);
}

bool is_hex(const std::string& s, size_t n) {
  return s.size() == n &&
         std::all_of(s.begin(), s.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
}
bool is_commit(const std::string& s) { return is_hex(s, 40); }

// A name that is one file name: an ETag, a host, a URL's file name.
bool plain_name(const std::string& s) {
  return !s.empty() && s != "." && s != ".." && s.size() <= 255 && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
  });
}

// A relative '/'-separated path that stays where it is put: no empty, "." or ".." part.
bool safe_path(const std::string& p) {
  if (p.empty() || p.front() == '/' || p.size() > 1024) return false;
  std::stringstream parts(p);
  for (std::string part; std::getline(parts, part, '/');) {
    if (part.empty() || part == "." || part == "..") return false;
  }
  return p.back() != '/' &&
         std::none_of(p.begin(), p.end(), [](char c) { return c == '\\' || static_cast<unsigned char>(c) < 0x20; });
}

// As huggingface_hub's _normalize_etag: W/"x" and "x" are x.
std::string normalize_etag(std::string e) {
  if (e.rfind("W/", 0) == 0) e.erase(0, 2);
  while (!e.empty() && e.front() == '"') e.erase(0, 1);
  while (!e.empty() && e.back() == '"') e.pop_back();
  return e;
}

std::string human(uint64_t bytes) {
  if (bytes < 1024) return fmt::format("{} B", bytes);
  const char* units[] = {"KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes) / 1024;
  int u = 0;
  for (; v >= 1024 && u < 3; ++u) v /= 1024;
  return fmt::format("{:.1f} {}", v, units[u]);
}

Status make_dirs(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return make_error(Errc::runtime_error, fmt::format("cannot create {}: {}", dir.string(), ec.message()));
  return {};
}

// Through a temp file and a rename, so that a reader sees the old text or the new.
Status write_atomically(const fs::path& path, const std::string& text) {
  WASINN_TRY(make_dirs(path.parent_path()));
  const fs::path tmp = path.string() + fmt::format(".{}.tmp", ::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out.flush()) return io_error("write", tmp, errno);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    return io_error("write", path, err);
  }
  return {};
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return trim(s.str());
}

void report(const PullOptions& o, PullProgress::Event event, const std::string& name) {
  if (!o.progress) return;
  PullProgress p;
  p.event = event;
  p.name = name;
  o.progress(p);
}

void notice(const PullOptions& o, const std::string& text) { report(o, PullProgress::Event::notice, text); }

FileLock::FileLock(const fs::path& path, const PullOptions& o, const std::string& name) {
  if (!make_dirs(path.parent_path())) return;
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0664);
  if (fd_ < 0) return;  // a read-only .locks: go on unlocked, as huggingface_hub's weak lock
  if (::flock(fd_, LOCK_EX | LOCK_NB) == 0 || errno != EWOULDBLOCK) return;
  notice(o, fmt::format("waiting for another download of {} to end (lock {})", name, path.string()));
  while (::flock(fd_, LOCK_EX) != 0 && errno == EINTR) {
  }
}

FileLock::~FileLock() {
  if (fd_ >= 0) ::close(fd_);  // releases the flock
}

std::string sha256_hex(std::string_view bytes) {
  Digest d;
  d.update(bytes.data(), bytes.size());
  return d.hex();
}

Status download(const PullOptions& o, const Download& d) {
  const fs::path part = d.dest.string() + ".incomplete";
  Fd f;
  f.fd = ::open(part.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  if (f.fd < 0) return io_error("create", part, errno);
  struct stat st {};
  ::fstat(f.fd, &st);
  uint64_t offset = static_cast<uint64_t>(st.st_size);
  if (d.size_known && offset > d.size) {
    if (::ftruncate(f.fd, 0) != 0) return io_error("truncate", part, errno);
    offset = 0;
  }
  Digest digest;
  const bool check = !d.sha256.empty();
  if (check && offset > 0) {  // what an earlier run got: into the digest again
    std::vector<char> buf(1 << 20);
    for (uint64_t at = 0; at < offset;) {
      const ssize_t n = ::pread(f.fd, buf.data(), std::min<uint64_t>(buf.size(), offset - at), static_cast<off_t>(at));
      if (n <= 0) return io_error("read", part, n < 0 ? errno : EIO);
      digest.update(buf.data(), static_cast<size_t>(n));
      at += static_cast<uint64_t>(n);
    }
  }
  struct statvfs fsinfo {};
  if (d.size_known && d.size > offset && ::statvfs(part.parent_path().c_str(), &fsinfo) == 0) {
    const uint64_t free_bytes = static_cast<uint64_t>(fsinfo.f_bavail) * fsinfo.f_frsize;
    if (free_bytes < d.size - offset) {
      return make_error(Errc::runtime_error,
                        fmt::format("not enough disk space for {}: it needs {} more, {} is free in {}", d.name,
                                    human(d.size - offset), human(free_bytes), part.parent_path().string()));
    }
  }
  PullProgress p{PullProgress::Event::start, d.name, d.url, offset, d.size_known ? d.size : 0, offset};
  if (o.progress) o.progress(p);
  int tries = 0;
  bool restarted = false;
  while (!(d.size_known && offset == d.size)) {
    const uint64_t from = offset;
    std::string write_error;
    const auto on_bytes = [&](const char* data, size_t n) {
      if (d.size_known && offset + n > d.size) {
        write_error = fmt::format("the server sent more than the {} bytes it announced", d.size);
        return false;
      }
      if (!write_at(f.fd, data, n, offset)) {
        write_error = std::strerror(errno);
        return false;
      }
      if (check) digest.update(data, n);
      offset += n;
      if (o.progress) {
        p.event = PullProgress::Event::bytes;
        p.bytes = offset;
        o.progress(p);
      }
      return true;
    };
    const auto on_restart = [&] {  // a 200 to a Range request: the whole file again
      offset = 0;
      p.resumed_from = 0;
      digest.reset();
      if (::ftruncate(f.fd, 0) != 0) write_error = std::strerror(errno);
    };
    const HttpResponse r = http_get_to(d.url, d.headers, o.http, offset, on_bytes, on_restart);
    if (!write_error.empty()) {
      ::unlink(part.c_str());
      return make_error(Errc::runtime_error,
                        fmt::format("{}: cannot write {}: {}", d.name, part.string(), write_error));
    }
    if (!r.transport.empty()) {
      if (r.cut && offset > from && ++tries <= kResumeTries) {
        notice(o, fmt::format("{}: the connection ended at {} of {} ({}); resuming", d.name, human(offset),
                              sized(d.size, d.size_known), r.transport));
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
        continue;
      }
      if (offset == 0) ::unlink(part.c_str());
      return make_error(Errc::timeout,
                        offset > 0
                            ? fmt::format("{}: the download stopped at {} of {} ({}); the same command again "
                                          "resumes it",
                                          d.name, human(offset), sized(d.size, d.size_known), r.transport)
                            : fmt::format("cannot download {} from {}: {}", d.name, url_host(d.url), r.transport));
    }
    if (r.status == 416 && offset > 0 && !restarted) {  // what is kept is not a start of the file
      restarted = true;
      on_restart();
      continue;
    }
    if (r.status != 200 && r.status != 206) {
      if (offset == 0) ::unlink(part.c_str());
      const Errc errc = r.status == 404                      ? Errc::not_found
                        : r.status == 401 || r.status == 403 ? Errc::security
                        : r.status >= 500                    ? Errc::timeout
                                                             : Errc::runtime_error;
      return make_error(errc, fmt::format("cannot download {}: {} answered {}", d.name, r.url, r.status));
    }
    break;
  }
  if (d.size_known && offset != d.size) {
    return make_error(Errc::timeout, fmt::format("{}: got {} of its {} bytes; the same command again resumes it",
                                                 d.name, offset, d.size));
  }
  if (check) {
    const std::string got = digest.hex();
    if (got != lower(d.sha256)) {
      ::unlink(part.c_str());
      return make_error(Errc::runtime_error,
                        fmt::format("{}: the downloaded bytes' SHA-256 is {}, not {} as the Hub's ETag says: the "
                                    "download is corrupt and was deleted; run the command again to fetch it anew",
                                    d.name, got, d.sha256));
    }
  }
  if (::rename(part.c_str(), d.dest.c_str()) != 0) return io_error("rename the download to", d.dest, errno);
  p.event = PullProgress::Event::done;
  p.bytes = offset;
  if (o.progress) o.progress(p);
  return {};
}

Status make_pointer(const fs::path& pointer, const std::string& path, const std::string& etag) {
  WASINN_TRY(make_dirs(pointer.parent_path()));
  std::string target;
  for (size_t i = 0; i < 2 + static_cast<size_t>(std::count(path.begin(), path.end(), '/')); ++i) target += "../";
  target += "blobs/" + etag;
  const fs::path tmp = pointer.string() + fmt::format(".{}.link", ::getpid());
  ::unlink(tmp.c_str());
  if (::symlink(target.c_str(), tmp.c_str()) != 0) return io_error("create the link", tmp, errno);
  if (::rename(tmp.c_str(), pointer.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    return io_error("create the link", pointer, err);
  }
  return {};
}

// One pull's view of a repository: the revision asked for and, once the first file named it, the

}  // namespace wasinn_cli::hub
