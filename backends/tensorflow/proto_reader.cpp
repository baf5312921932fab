// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "proto_reader.h"

namespace wasinn::tensorflow {

bool ProtoReader::varint(uint64_t& out) {
  out = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (pos_ >= data_.size()) return false;
    const uint8_t b = data_[pos_++];
    out |= static_cast<uint64_t>(b & 0x7f) << shift;
    if (!(b & 0x80)) return true;
  }
  return false;  // more than 10 bytes: not a varint
}

bool ProtoReader::next(ProtoField& field) {
  if (pos_ >= data_.size() || failed_) return false;
  uint64_t key = 0;
  if (!varint(key) || key >> 32) return !(failed_ = true);
  field = {};
  field.number = static_cast<uint32_t>(key >> 3);
  field.wire_type = static_cast<uint32_t>(key & 7);
  switch (field.wire_type) {
    case 0:
      if (!varint(field.varint)) return !(failed_ = true);
      return true;
    case 1:
    case 5: {
      const size_t n = field.wire_type == 1 ? 8 : 4;
      if (data_.size() - pos_ < n) return !(failed_ = true);
      pos_ += n;
      return true;
    }
    case 2: {
      uint64_t len = 0;
      if (!varint(len) || len > data_.size() - pos_) return !(failed_ = true);
      field.bytes = data_.subspan(pos_, static_cast<size_t>(len));
      pos_ += static_cast<size_t>(len);
      return true;
    }
    default: return !(failed_ = true);  // groups (3, 4) are not used by TensorFlow's protos
  }
}

}  // namespace wasinn::tensorflow
