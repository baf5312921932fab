// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// MappedFile: a read-only memory map of a whole file. Move-only; the bytes are immutable and
// may be read from any thread while the object lives.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <vector>

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

// The graph builders of a load by path: each file memory-mapped, a directory (a TensorFlow
// SavedModel) an empty builder the backend reads by path. Move-only; builders() stays valid
// while the object lives.
class MappedBuilders {
 public:
  // Fails on the first path that cannot be mapped; the error names it.
  static Result<MappedBuilders> open(std::span<const std::filesystem::path> paths);
  std::span<const std::span<const uint8_t>> builders() const { return builders_; }
  uint64_t total_bytes() const;

 private:
  std::vector<MappedFile> files_;
  std::vector<std::span<const uint8_t>> builders_;
};

}  // namespace wasinn
