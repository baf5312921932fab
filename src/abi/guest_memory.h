// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// GuestMemoryView: bounds-checked access to a guest's linear memory for the length of one host
// call. It does not own the memory; it is valid only while the guest cannot run (memory may
// grow and move between calls). Every access checks offset and length without overflow and
// fails with invalid_argument instead of trapping. Not synchronized: one call, one thread.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "core/error.h"

namespace wasinn {

class GuestMemoryView {
 public:
  GuestMemoryView(uint8_t* base, uint64_t size) : base_(base), size_(size) {}

  uint64_t size() const { return size_; }
  // Whether `count` bytes at `ptr` lie inside the memory: a question, with no error to format.
  bool in_bounds(uint64_t ptr, uint64_t count) const { return ptr <= size_ && count <= size_ - ptr; }

  // The `count` bytes at `ptr`, or invalid_argument naming `what`.
  Result<std::span<uint8_t>> bytes(uint32_t ptr, uint64_t count, std::string_view what) const {
    if (!in_bounds(ptr, count)) {
      return make_error(
          Errc::invalid_argument,
          fmt::format("{}: {} bytes at guest address {:#x} lie outside the {}-byte memory", what, count, ptr, size_));
    }
    return std::span<uint8_t>(base_ + ptr, static_cast<size_t>(count));
  }

  // An array of `count` u32 at `ptr`. Aligned arrays are viewed in place (wasm32 and the host
  // are both little-endian); an unaligned one is copied into `scratch`.
  Result<std::span<const uint32_t>> u32_array(uint32_t ptr, uint32_t count, std::vector<uint32_t>& scratch,
                                              std::string_view what) const {
    auto b = bytes(ptr, uint64_t{count} * 4, what);
    if (!b) return b.take_error();
    // An empty array points nowhere: an empty scratch vector has no storage (memcpy from a null
    // pointer is UB even for 0 bytes), and a span must not carry a misaligned u32 pointer.
    if (count == 0) return std::span<const uint32_t>();
    if (reinterpret_cast<uintptr_t>(b->data()) % alignof(uint32_t) == 0) {
      return std::span<const uint32_t>(reinterpret_cast<const uint32_t*>(b->data()), count);
    }
    scratch.resize(count);
    std::memcpy(scratch.data(), b->data(), b->size());
    return std::span<const uint32_t>(scratch);
  }

  Result<uint32_t> read_u32(uint32_t ptr, std::string_view what) const {
    auto b = bytes(ptr, 4, what);
    if (!b) return b.take_error();
    uint32_t v;
    std::memcpy(&v, b->data(), 4);
    return v;
  }

  Status write_u32(uint32_t ptr, uint32_t value, std::string_view what) const {
    auto b = bytes(ptr, 4, what);
    if (!b) return b.take_error();
    std::memcpy(b->data(), &value, 4);
    return {};
  }

  Result<std::string_view> string(uint32_t ptr, uint32_t len, std::string_view what) const {
    auto b = bytes(ptr, len, what);
    if (!b) return b.take_error();
    return std::string_view(reinterpret_cast<const char*>(b->data()), b->size());
  }

 private:
  uint8_t* base_;
  uint64_t size_;
};

}  // namespace wasinn
