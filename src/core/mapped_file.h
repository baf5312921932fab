// MappedFile: a read-only memory map of a whole file. Move-only; the bytes are immutable and
// may be read from any thread while the object lives.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>

#include "core/error.h"

namespace wasinn {

class MappedFile {
 public:
  static Result<MappedFile> open(const std::filesystem::path& path);
  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;
  ~MappedFile();
  std::span<const uint8_t> bytes() const { return {data_, size_}; }

 private:
  MappedFile(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace wasinn
