// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Well-formed guest structures of both ABIs, placed into a GuestLayout: witx builder arrays and
// 20-byte tensor records, WAMR legacy builder headers and 12-byte tensor records. Each returns
// the structure's address; the caller names it for the call script.
#pragma once

#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "fuzz_guest.h"

namespace wasinn::fuzz {

// {buf_ptr, buf_len} pairs: the witx graph_builder_array.
inline uint32_t builder_array(GuestLayout& l, const std::vector<std::pair<uint32_t, uint32_t>>& builders) {
  std::vector<uint8_t> raw;
  for (const auto& [ptr, len] : builders) {
    for (uint32_t v : {ptr, len}) {
      const auto* b = reinterpret_cast<const uint8_t*>(&v);
      raw.insert(raw.end(), b, b + 4);
    }
  }
  return l.place(raw, 4);
}

// A builder array of the given texts; its item length is the builder count. The roles name
// the array and the legacy header (string literals).
inline void named_builders(GuestLayout& l, const std::vector<std::string_view>& texts, const char* role = nullptr,
                           const char* legacy_role = nullptr) {
  std::vector<std::pair<uint32_t, uint32_t>> pairs;
  for (std::string_view t : texts) pairs.emplace_back(l.place(t), static_cast<uint32_t>(t.size()));
  const uint32_t array = builder_array(l, pairs);
  l.name(array, static_cast<uint32_t>(pairs.size()), role);
  // The legacy ABI's {builders_ptr, count} header for the same array.
  l.name(l.place_u32s({array, static_cast<uint32_t>(pairs.size())}), 8, legacy_role);
}

// The witx tensor: dims {ptr, len}, type byte + 3 garbage padding bytes, data {ptr, len}.
// dims_align 1 puts the dims at an odd address (the host must copy, not view, them).
inline uint32_t witx_tensor(GuestLayout& l, const std::vector<uint32_t>& dims, uint8_t type,
                            std::span<const uint8_t> data, uint32_t dims_align = 4, const char* role = nullptr) {
  if (dims_align == 1) l.place(std::string_view("\x01", 1), 1);
  std::vector<uint8_t> raw_dims(dims.size() * 4);
  if (!dims.empty()) std::memcpy(raw_dims.data(), dims.data(), raw_dims.size());
  const uint32_t dims_ptr = l.place(raw_dims, dims_align);
  const uint32_t data_ptr = l.place(data, 8);
  const uint32_t rec = l.place_u32s(
      {dims_ptr, static_cast<uint32_t>(dims.size()), 0xA5A5A500u | type, data_ptr, static_cast<uint32_t>(data.size())});
  l.name(rec, 20, role);
  return rec;
}

// The legacy tensor: {dims_struct_ptr, type u32, data_ptr}, dims_struct = {dims_ptr, rank}.
inline uint32_t legacy_tensor(GuestLayout& l, const std::vector<uint32_t>& dims, uint32_t type,
                              std::span<const uint8_t> data, uint32_t dims_align = 4, const char* role = nullptr) {
  if (dims_align == 1) l.place(std::string_view("\x01", 1), 1);
  std::vector<uint8_t> raw_dims(dims.size() * 4);
  if (!dims.empty()) std::memcpy(raw_dims.data(), dims.data(), raw_dims.size());
  const uint32_t dims_ptr = l.place(raw_dims, dims_align);
  const uint32_t dims_struct = l.place_u32s({dims_ptr, static_cast<uint32_t>(dims.size())});
  const uint32_t data_ptr = l.place(data, 8);
  const uint32_t rec = l.place_u32s({dims_struct, type, data_ptr});
  l.name(rec, 12, role);
  return rec;
}

// A name or config text; its item length is its byte length.
inline void named_text(GuestLayout& l, std::string_view text, const char* role = nullptr) {
  l.name(l.place(text, 1), static_cast<uint32_t>(text.size()), role);
}

// A buffer of `size` bytes (an out-pointer slot when 4) holding `fill` as its first u32.
inline void named_buffer(GuestLayout& l, uint32_t size, uint32_t fill = 0, const char* role = nullptr) {
  std::vector<uint8_t> raw(size, 0xEE);
  if (size >= 4) std::memcpy(raw.data(), &fill, 4);
  l.name(l.place(raw, 8), size, role);
}

}  // namespace wasinn::fuzz
