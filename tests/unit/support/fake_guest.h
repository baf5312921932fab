// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// FakeGuest: 64 KiB of "guest linear memory" in a std::vector, seen through the real
// GuestMemoryView, with a bump allocator that places what a wasm guest would: builder arrays,
// 20-byte witx tensor records, names, and out-pointers pre-filled with a sentinel so tests can
// tell whether the host wrote them.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "abi/guest_memory.h"

namespace wasinn::unit {

inline constexpr uint32_t kSentinel = 0xDEADBEEF;
// Addresses that point outside the 64 KiB memory, or overflow 32 bits when a length is added.
inline constexpr uint32_t kWildPtr = 0xFFFFFFF0;

class FakeGuest {
 public:
  static constexpr uint32_t kSize = 64 * 1024;

  FakeGuest() : mem_(kSize, 0xCD), view_(mem_.data(), mem_.size()) {}
  FakeGuest(const FakeGuest&) = delete;
  FakeGuest& operator=(const FakeGuest&) = delete;

  const GuestMemoryView& view() const { return view_; }

  // Reserves n bytes; address 0..15 is left free so that "address 0" stays a distinct case.
  uint32_t alloc(uint32_t n, uint32_t align = 8) {
    next_ = (next_ + align - 1) / align * align;
    if (uint64_t{next_} + n > kSize) {
      ADD_FAILURE() << "FakeGuest: out of memory";
      return 0;
    }
    const uint32_t at = next_;
    next_ += n;
    return at;
  }

  uint32_t put(std::span<const uint8_t> bytes, uint32_t align = 8) {
    const uint32_t at = alloc(static_cast<uint32_t>(bytes.size()), align);
    if (!bytes.empty()) std::memcpy(mem_.data() + at, bytes.data(), bytes.size());
    return at;
  }
  uint32_t put(std::string_view text, uint32_t align = 8) {
    return put(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), text.size()), align);
  }
  uint32_t put_u32s(const std::vector<uint32_t>& values, uint32_t align = 4) {
    return put(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(values.data()), values.size() * 4), align);
  }
  uint32_t put_f32s(const std::vector<float>& values) {
    return put(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(values.data()), values.size() * 4));
  }

  // Writes bytes at a chosen address (e.g. flush against the end of memory), bypassing alloc.
  void write_at(uint32_t at, std::string_view text) {
    ASSERT_LE(uint64_t{at} + text.size(), uint64_t{kSize});
    if (!text.empty()) std::memcpy(mem_.data() + at, text.data(), text.size());
  }

  // A graph_builder_array of raw {buf_ptr, buf_len} pairs.
  uint32_t builder_array(const std::vector<std::pair<uint32_t, uint32_t>>& pairs) {
    std::vector<uint32_t> flat;
    for (const auto& [ptr, len] : pairs) {
      flat.push_back(ptr);
      flat.push_back(len);
    }
    return put_u32s(flat);
  }
  // Places each model text and returns the array pointer (its length is models.size()).
  uint32_t builders(const std::vector<std::string>& models) {
    std::vector<std::pair<uint32_t, uint32_t>> pairs;
    for (const auto& m : models) pairs.emplace_back(put(m), static_cast<uint32_t>(m.size()));
    return builder_array(pairs);
  }

  // The 20-byte witx tensor record; padding bytes 9-11 hold garbage, as Rust guests leave them.
  uint32_t tensor_record(uint32_t dims_ptr, uint32_t dims_len, uint8_t type, uint32_t data_ptr, uint32_t data_len,
                         uint8_t padding = 0xA5) {
    const uint32_t at = alloc(20, 4);
    std::memcpy(mem_.data() + at, &dims_ptr, 4);
    std::memcpy(mem_.data() + at + 4, &dims_len, 4);
    mem_[at + 8] = type;
    std::memset(mem_.data() + at + 9, padding, 3);
    std::memcpy(mem_.data() + at + 12, &data_ptr, 4);
    std::memcpy(mem_.data() + at + 16, &data_len, 4);
    return at;
  }
  // A whole tensor: dims, data and the record pointing at them.
  uint32_t tensor(const std::vector<uint32_t>& dims, uint8_t type, std::span<const uint8_t> data) {
    const uint32_t dims_ptr = put_u32s(dims);
    const uint32_t data_ptr = put(data);
    return tensor_record(dims_ptr, static_cast<uint32_t>(dims.size()), type, data_ptr,
                         static_cast<uint32_t>(data.size()));
  }
  uint32_t f32_tensor(const std::vector<uint32_t>& dims, const std::vector<float>& values) {
    return tensor(dims, 1, {reinterpret_cast<const uint8_t*>(values.data()), values.size() * 4});
  }

  // 4 bytes holding kSentinel, for a handle or bytes_written out-pointer.
  uint32_t out_u32() {
    const uint32_t at = alloc(4, 4);
    std::memcpy(mem_.data() + at, &kSentinel, 4);
    return at;
  }
  // n bytes filled with `fill`, for an output buffer.
  uint32_t buffer(uint32_t n, uint8_t fill = 0xEE) {
    const uint32_t at = alloc(n);
    std::memset(mem_.data() + at, fill, n);
    return at;
  }

  uint32_t u32_at(uint32_t at) const {
    uint32_t v;
    std::memcpy(&v, mem_.data() + at, 4);
    return v;
  }
  std::vector<uint8_t> bytes_at(uint32_t at, uint32_t n) const { return {mem_.begin() + at, mem_.begin() + at + n}; }
  std::vector<float> f32s_at(uint32_t at, uint32_t count) const {
    std::vector<float> out(count);
    std::memcpy(out.data(), mem_.data() + at, count * 4);
    return out;
  }
  std::string text_at(uint32_t at, uint32_t n) const { return {reinterpret_cast<const char*>(mem_.data() + at), n}; }

 private:
  std::vector<uint8_t> mem_;
  GuestMemoryView view_;
  uint32_t next_ = 16;
};

}  // namespace wasinn::unit
