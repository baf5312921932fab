// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "u8_front_end.h"

#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string_view>

namespace wasinn_compat {
namespace {

// Just enough protobuf: walk a message's fields, copying those we keep byte for byte.
struct Field {
  uint32_t number;
  uint32_t wire_type;
  std::string_view whole;    // key and value, as they appear
  std::string_view payload;  // the bytes of a length-delimited value
};

uint64_t read_varint(std::string_view s, size_t& pos) {
  uint64_t v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (pos >= s.size()) throw std::runtime_error("protobuf: truncated varint");
    const auto b = static_cast<uint8_t>(s[pos++]);
    v |= uint64_t{b & 0x7fu} << shift;
    if (!(b & 0x80)) return v;
  }
  throw std::runtime_error("protobuf: varint too long");
}

std::vector<Field> fields(std::string_view msg) {
  std::vector<Field> out;
  size_t pos = 0;
  while (pos < msg.size()) {
    const size_t start = pos;
    const uint64_t key = read_varint(msg, pos);
    Field f{static_cast<uint32_t>(key >> 3), static_cast<uint32_t>(key & 7), {}, {}};
    switch (f.wire_type) {
      case 0: read_varint(msg, pos); break;
      case 1: pos += 8; break;
      case 5: pos += 4; break;
      case 2: {
        const uint64_t len = read_varint(msg, pos);
        if (len > msg.size() - pos) throw std::runtime_error("protobuf: length past the end");
        f.payload = msg.substr(pos, len);
        pos += len;
        break;
      }
      default: throw std::runtime_error("protobuf: unsupported wire type " + std::to_string(f.wire_type));
    }
    if (pos > msg.size()) throw std::runtime_error("protobuf: field past the end");
    f.whole = msg.substr(start, pos - start);
    out.push_back(f);
  }
  return out;
}

class Writer {
 public:
  Writer& varint(uint32_t field, uint64_t v) {
    put_varint(uint64_t{field} << 3);
    put_varint(v);
    return *this;
  }
  Writer& bytes(uint32_t field, std::string_view s) {
    put_varint(uint64_t{field} << 3 | 2);
    put_varint(s.size());
    buf_.append(s);
    return *this;
  }
  Writer& message(uint32_t field, const Writer& m) { return bytes(field, m.buf_); }
  Writer& raw(std::string_view s) {
    buf_.append(s);
    return *this;
  }
  const std::string& str() const { return buf_; }

 private:
  void put_varint(uint64_t v) {
    do {
      const uint8_t low = v & 0x7f;
      v >>= 7;
      buf_.push_back(static_cast<char>(v ? low | 0x80 : low));
    } while (v);
  }
  std::string buf_;
};

// ONNX field numbers used below (onnx.proto3).
enum : uint32_t {
  kModelGraph = 7,
  kGraphNode = 1,
  kGraphInitializer = 5,
  kGraphInput = 11,
  kNodeInput = 1,
  kNodeOutput = 2,
  kNodeName = 3,
  kNodeOpType = 4,
  kNodeAttribute = 5,
  kAttrName = 1,
  kAttrInt = 3,
  kAttrType = 20,
  kTensorDataType = 2,
  kTensorName = 8,
  kTensorRawData = 9,
  kValueName = 1,
  kValueType = 2,
  kTypeTensor = 1,
  kTensorElemType = 1,
  kTensorShape = 2,
};
constexpr uint64_t kOnnxFloat = 1, kOnnxUint8 = 2, kAttributeInt = 2;

std::string_view value_name(std::string_view value_info) {
  for (const auto& f : fields(value_info))
    if (f.number == kValueName && f.wire_type == 2) return f.payload;
  return {};
}

// The original input's shape message, reused for the u8 input ([batch, features] stays).
std::string_view value_shape(std::string_view value_info) {
  for (const auto& t : fields(value_info)) {
    if (t.number != kValueType) continue;
    for (const auto& tt : fields(t.payload)) {
      if (tt.number != kTypeTensor) continue;
      for (const auto& s : fields(tt.payload))
        if (s.number == kTensorShape) return s.payload;
    }
  }
  throw std::runtime_error("the model input has no tensor shape");
}

}  // namespace

std::vector<uint8_t> make_u8_front_end(const std::vector<uint8_t>& model, const std::string& input_name, float scale) {
  const std::string_view bytes(reinterpret_cast<const char*>(model.data()), model.size());
  const std::string pixels = input_name + "_u8", as_float = input_name + "_u8_as_f32",
                    scale_name = input_name + "_u8_scale";
  Writer out;
  bool replaced = false;
  for (const auto& mf : fields(bytes)) {
    if (mf.number != kModelGraph) {
      out.raw(mf.whole);
      continue;
    }
    // The new nodes come first so the graph stays topologically sorted.
    Writer graph;
    graph.message(
        kGraphNode,
        Writer()
            .bytes(kNodeInput, pixels)
            .bytes(kNodeOutput, as_float)
            .bytes(kNodeName, "u8_front_end_cast")
            .bytes(kNodeOpType, "Cast")
            .message(kNodeAttribute,
                     Writer().bytes(kAttrName, "to").varint(kAttrInt, kOnnxFloat).varint(kAttrType, kAttributeInt)));
    graph.message(kGraphNode, Writer()
                                  .bytes(kNodeInput, as_float)
                                  .bytes(kNodeInput, scale_name)
                                  .bytes(kNodeOutput, input_name)
                                  .bytes(kNodeName, "u8_front_end_scale")
                                  .bytes(kNodeOpType, "Mul"));
    char scale_bytes[4];
    std::memcpy(scale_bytes, &scale, 4);
    graph.message(kGraphInitializer, Writer()
                                         .varint(kTensorDataType, kOnnxFloat)
                                         .bytes(kTensorName, scale_name)
                                         .bytes(kTensorRawData, std::string_view(scale_bytes, 4)));
    for (const auto& gf : fields(mf.payload)) {
      if (gf.number == kGraphInput && value_name(gf.payload) == input_name) {
        const Writer tensor = Writer()
                                  .varint(kTensorElemType, kOnnxUint8)
                                  .raw(Writer().bytes(kTensorShape, value_shape(gf.payload)).str());
        graph.message(kGraphInput,
                      Writer().bytes(kValueName, pixels).message(kValueType, Writer().message(kTypeTensor, tensor)));
        replaced = true;
      } else {
        graph.raw(gf.whole);
      }
    }
    out.message(kModelGraph, graph);
  }
  if (!replaced) throw std::runtime_error("the model has no graph input named " + input_name);
  return std::vector<uint8_t>(out.str().begin(), out.str().end());
}

std::vector<uint8_t> unscale_features(const std::vector<float>& x, float scale) {
  std::vector<uint8_t> out(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const float raw = std::round(x[i] / scale);
    if (raw < 0 || raw > 255 || raw * scale != x[i]) {
      throw std::runtime_error("feature " + std::to_string(i) + " = " + std::to_string(x[i]) +
                               " is not a u8 pixel value times " + std::to_string(scale));
    }
    out[i] = static_cast<uint8_t>(raw);
  }
  return out;
}

}  // namespace wasinn_compat
