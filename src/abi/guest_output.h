// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// How every witx output function (get_output, get_output_single, and wasinn's extras) hands bytes
// to a guest: into its buffer, then their length into its bytes-written out-pointer; a buffer too
// small gets nothing but the length needed, with too_large, as WasmEdge does. Stateless.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>

#include <fmt/format.h>

#include "abi/guest_memory.h"
#include "core/error.h"

namespace wasinn {

// The labels of one output function's error details, constant so that the hot path formats
// nothing unless it fails.
struct OutputCall {
  std::string_view fn, written, buffer;
};

// The out-pointer and the whole buffer, checked before the work so a bad one costs nothing.
inline Status check_output_args(const GuestMemoryView& m, uint32_t out_ptr, uint32_t out_max, uint32_t written_out,
                                const OutputCall& k) {
  WASINN_TRY(m.bytes(written_out, 4, k.written));
  auto buf = m.bytes(out_ptr, out_max, k.buffer);
  if (!buf) return buf.take_error();
  return {};
}

// `data` into a buffer check_output_args accepted. `noun` names it in details ("output");
// `describe()` adds to it (" f32 [1, 10]"), called only when the buffer is too small. The bytes
// go first and their length last, so the length wins where the guest made the two overlap.
template <class Describe>
Status write_output(const GuestMemoryView& m, std::span<const uint8_t> data, uint32_t out_ptr, uint32_t out_max,
                    uint32_t written_out, const OutputCall& k, std::string_view noun, Describe&& describe) {
  if (data.size() > UINT32_MAX) {
    return make_error(Errc::too_large,
                      fmt::format("{}: {} of {} bytes cannot be described to a 32-bit guest", k.fn, noun, data.size()));
  }
  if (data.size() > out_max) {
    WASINN_TRY(m.write_u32(written_out, static_cast<uint32_t>(data.size()), k.written));
    return make_error(Errc::too_large, fmt::format("{}: {}{} is {} bytes, the buffer holds {}", k.fn, noun, describe(),
                                                   data.size(), out_max));
  }
  auto dst = m.bytes(out_ptr, data.size(), k.buffer);
  if (!dst) return dst.take_error();
  if (!data.empty()) std::memcpy(dst->data(), data.data(), data.size());
  return m.write_u32(written_out, static_cast<uint32_t>(data.size()), k.written);
}

}  // namespace wasinn
