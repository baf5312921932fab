// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The rest of a stream, read a block at a time: the tests compile at -O0 (tests/CMakeLists.txt),
// where copying through istreambuf_iterator costs calls per byte, seconds per model file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <istream>
#include <vector>

namespace wasinn_test {

// Bytes: a contiguous container of one-byte elements (std::vector<uint8_t>, std::vector<char>,
// std::string). A stream that failed to open gives an empty one.
template <class Bytes = std::vector<uint8_t>>
Bytes stream_bytes(std::istream& in) {
  static_assert(sizeof(typename Bytes::value_type) == 1);
  constexpr size_t kBlock = size_t{1} << 20;
  Bytes out;
  size_t used = 0;
  while (in) {
    out.resize(used + kBlock);
    in.read(reinterpret_cast<char*>(out.data()) + used, kBlock);
    used += static_cast<size_t>(in.gcount());
  }
  out.resize(used);
  return out;
}

}  // namespace wasinn_test
