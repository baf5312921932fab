// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "core/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include <fmt/format.h>

namespace wasinn {

Result<MappedFile> MappedFile::open(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return make_error(Errc::not_found, fmt::format("cannot open {}: {}", path.string(), std::strerror(errno)));
  }
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return make_error(Errc::invalid_argument, fmt::format("{} is not a regular file", path.string()));
  }
  const size_t size = static_cast<size_t>(st.st_size);
  if (size == 0) {
    ::close(fd);
    return MappedFile(nullptr, 0);
  }
  void* p = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);
  if (p == MAP_FAILED) {
    return make_error(Errc::runtime_error, fmt::format("cannot map {}: {}", path.string(), std::strerror(errno)));
  }
  return MappedFile(static_cast<const uint8_t*>(p), size);
}

MappedFile::MappedFile(MappedFile&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
  if (this != &other) {
    if (data_) munmap(const_cast<uint8_t*>(data_), size_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

MappedFile::~MappedFile() {
  if (data_) munmap(const_cast<uint8_t*>(data_), size_);
}

Result<MappedBuilders> MappedBuilders::open(std::span<const std::filesystem::path> paths) {
  MappedBuilders out;
  for (const auto& p : paths) {
    std::error_code ec;
    if (std::filesystem::is_directory(p, ec)) {
      out.builders_.emplace_back();
      continue;
    }
    auto f = MappedFile::open(p);
    if (!f) return f.take_error();
    out.files_.push_back(std::move(*f));
    out.builders_.push_back(out.files_.back().bytes());  // the mapping, not the object: moves keep it
  }
  return out;
}

uint64_t MappedBuilders::total_bytes() const {
  uint64_t n = 0;
  for (const auto& b : builders_) n += b.size();
  return n;
}

}  // namespace wasinn
