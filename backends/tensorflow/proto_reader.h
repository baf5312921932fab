// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A minimal, bounds-checked reader of the protobuf wire format, enough to pull the signatures
// out of a serialized MetaGraphDef. The TF C API hands the MetaGraphDef over only as bytes, and
// its C++ protobuf classes are not part of the C API's ABI.
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace wasinn::tensorflow {

struct ProtoField {
  uint32_t number = 0;
  uint32_t wire_type = 0;          // 0 varint, 1 fixed64, 2 length-delimited, 5 fixed32
  uint64_t varint = 0;             // wire type 0
  std::span<const uint8_t> bytes;  // wire type 2
};

class ProtoReader {
 public:
  explicit ProtoReader(std::span<const uint8_t> data) : data_(data) {}
  // The next field, skipping nothing; false at the end or, with failed() set, on malformed data.
  bool next(ProtoField& field);
  bool failed() const { return failed_; }

 private:
  bool varint(uint64_t& out);
  std::span<const uint8_t> data_;
  size_t pos_ = 0;
  bool failed_ = false;
};

inline std::string as_string(std::span<const uint8_t> b) { return {reinterpret_cast<const char*>(b.data()), b.size()}; }

}  // namespace wasinn::tensorflow
