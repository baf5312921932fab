// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A few dozen lines of protobuf encoding, enough to write small ONNX models in the test itself.
// The generated fixtures cover the common paths; the error paths for outputs wasinn cannot
// express (bool tensors, sequences) and undeclared shapes need models no fixture has, and the
// protobuf/onnx Python packages are not available to generate them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace wasinn_test::onnx_proto {

// ONNX TensorProto.DataType values.
enum : int64_t { FLOAT = 1, INT64 = 7, BOOL = 9 };

class Msg {
 public:
  Msg& varint(int field, uint64_t v) {
    key(field, 0);
    put_varint(v);
    return *this;
  }
  Msg& bytes(int field, const std::string& s) {
    key(field, 2);
    put_varint(s.size());
    buf_ += s;
    return *this;
  }
  Msg& msg(int field, const Msg& m) { return bytes(field, m.buf_); }
  const std::string& str() const { return buf_; }

 private:
  void key(int field, int wire) { put_varint(static_cast<uint64_t>(field) << 3 | wire); }
  void put_varint(uint64_t v) {
    do {
      uint8_t b = v & 0x7f;
      v >>= 7;
      buf_.push_back(static_cast<char>(v ? b | 0x80 : b));
    } while (v);
  }
  std::string buf_;
};

// TypeProto for a tensor; has_shape false leaves the shape undeclared (any rank).
inline Msg tensor_type(int64_t elem, const std::vector<int64_t>& dims, bool has_shape = true) {
  Msg t;
  t.varint(1, elem);
  if (has_shape) {
    Msg shape;
    for (int64_t d : dims) shape.msg(1, Msg().varint(1, d));
    t.msg(2, shape);
  }
  return Msg().msg(1, t);
}

inline Msg sequence_of(const Msg& elem_type) { return Msg().msg(4, Msg().msg(1, elem_type)); }

inline Msg value_info(const std::string& name, const Msg& type) { return Msg().bytes(1, name).msg(2, type); }

inline Msg node(const std::string& op, const std::vector<std::string>& in, const std::vector<std::string>& out) {
  Msg n;
  for (const auto& s : in) n.bytes(1, s);
  for (const auto& s : out) n.bytes(2, s);
  return n.bytes(4, op);
}

// ModelProto at IR version 7, opset 13, like the generated fixtures.
inline std::vector<uint8_t> model(const std::vector<Msg>& nodes, const std::vector<Msg>& inputs,
                                  const std::vector<Msg>& outputs) {
  Msg g;
  for (const auto& n : nodes) g.msg(1, n);
  g.bytes(2, "test_graph");
  for (const auto& i : inputs) g.msg(11, i);
  for (const auto& o : outputs) g.msg(12, o);
  Msg m;
  m.varint(1, 7).bytes(2, "wasinn-test").msg(7, g).msg(8, Msg().bytes(1, "").varint(2, 13));
  const std::string& s = m.str();
  return {s.begin(), s.end()};
}

}  // namespace wasinn_test::onnx_proto
