// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Writes small ONNX models in the test itself: just enough protobuf encoding for a graph of
// Identity nodes. types/identity_all.onnx cannot run through a witx guest (its bf16 input can
// never be set, and ONNX Runtime runs a model only with every input set), so the round trip
// of the six witx types uses a model with exactly those six.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace wasinn_it::onnx_model {

// ONNX TensorProto.DataType values of the witx types.
enum ElemType : int64_t { FLOAT = 1, UINT8 = 2, INT32 = 6, INT64 = 7, FLOAT16 = 10, DOUBLE = 11 };

class Message {
 public:
  Message& varint(int field, uint64_t v) {
    key(field, 0);
    put_varint(v);
    return *this;
  }
  Message& bytes(int field, const std::string& s) {
    key(field, 2);
    put_varint(s.size());
    buf_ += s;
    return *this;
  }
  Message& message(int field, const Message& m) { return bytes(field, m.buf_); }
  const std::string& str() const { return buf_; }

 private:
  void key(int field, int wire_type) { put_varint(static_cast<uint64_t>(field) << 3 | wire_type); }
  void put_varint(uint64_t v) {
    do {
      const uint8_t low = v & 0x7f;
      v >>= 7;
      buf_.push_back(static_cast<char>(v ? low | 0x80 : low));
    } while (v);
  }
  std::string buf_;
};

// ValueInfoProto {name, TypeProto{tensor_type{elem_type, shape}}}.
inline Message tensor_value(const std::string& name, int64_t elem, const std::vector<int64_t>& dims) {
  Message shape;
  for (int64_t d : dims) shape.message(1, Message().varint(1, static_cast<uint64_t>(d)));
  const Message tensor = Message().varint(1, static_cast<uint64_t>(elem)).message(2, shape);
  return Message().bytes(1, name).message(2, Message().message(1, tensor));
}

// in_<i> -> Identity -> out_<i> for each element type, in order; IR version 7, opset 13.
inline std::vector<uint8_t> identity_model(const std::vector<int64_t>& elem_types, const std::vector<int64_t>& dims) {
  Message graph;
  for (size_t i = 0; i < elem_types.size(); ++i) {
    const std::string n = std::to_string(i);
    graph.message(1, Message().bytes(1, "in_" + n).bytes(2, "out_" + n).bytes(4, "Identity"));
  }
  graph.bytes(2, "identity_witx");
  for (size_t i = 0; i < elem_types.size(); ++i)
    graph.message(11, tensor_value("in_" + std::to_string(i), elem_types[i], dims));
  for (size_t i = 0; i < elem_types.size(); ++i)
    graph.message(12, tensor_value("out_" + std::to_string(i), elem_types[i], dims));
  Message model;
  model.varint(1, 7).bytes(2, "wasinn-integration-test").message(7, graph);
  model.message(8, Message().bytes(1, "").varint(2, 13));
  const std::string& s = model.str();
  return {s.begin(), s.end()};
}

}  // namespace wasinn_it::onnx_model
