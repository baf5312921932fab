// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "signature.h"

#include "proto_reader.h"

namespace wasinn::tensorflow {
namespace {

// Field numbers from tensorflow/core/protobuf/meta_graph.proto and tensor_shape.proto.
constexpr uint32_t kMetaGraphSignatureDef = 5;  // map<string, SignatureDef>
constexpr uint32_t kMapKey = 1, kMapValue = 2;
constexpr uint32_t kSignatureInputs = 1, kSignatureOutputs = 2;
constexpr uint32_t kTensorInfoName = 1, kTensorInfoDtype = 2, kTensorInfoShape = 3;
constexpr uint32_t kTensorInfoCooSparse = 4, kTensorInfoComposite = 5;
constexpr uint32_t kShapeDim = 2, kShapeUnknownRank = 3, kDimSize = 1;

const Error kMalformed{WASINN_INVALID_ARGUMENT, "the SavedModel's MetaGraphDef is malformed"};

bool read_shape(std::span<const uint8_t> bytes, TensorSpec& t) {
  ProtoReader r(bytes);
  ProtoField f;
  t.rank = 0;
  bool unknown_rank = false;
  while (r.next(f)) {
    if (f.number == kShapeUnknownRank && f.wire_type == 0) unknown_rank = f.varint != 0;
    if (f.number != kShapeDim || f.wire_type != 2) continue;
    int64_t size = -1;
    ProtoReader dim(f.bytes);
    ProtoField d;
    while (dim.next(d))
      if (d.number == kDimSize && d.wire_type == 0) size = static_cast<int64_t>(d.varint);
    if (dim.failed()) return false;
    t.dims.push_back(size < 0 ? -1 : size);
    ++t.rank;
  }
  if (unknown_rank) {
    t.rank = -1;
    t.dims.clear();
  }
  return !r.failed();
}

bool read_tensor_info(std::span<const uint8_t> bytes, TensorSpec& t) {
  ProtoReader r(bytes);
  ProtoField f;
  while (r.next(f)) {
    if (f.number == kTensorInfoName && f.wire_type == 2) t.tensor = as_string(f.bytes);
    if (f.number == kTensorInfoDtype && f.wire_type == 0) t.dtype = static_cast<int>(f.varint);
    if (f.number == kTensorInfoShape && f.wire_type == 2 && !read_shape(f.bytes, t)) return false;
    if (f.number == kTensorInfoCooSparse || f.number == kTensorInfoComposite) t.dense = false;
  }
  return !r.failed();
}

// One map<string, V> entry: key and value bytes.
bool read_entry(std::span<const uint8_t> bytes, std::string& key, std::span<const uint8_t>& value) {
  ProtoReader r(bytes);
  ProtoField f;
  while (r.next(f)) {
    if (f.number == kMapKey && f.wire_type == 2) key = as_string(f.bytes);
    if (f.number == kMapValue && f.wire_type == 2) value = f.bytes;
  }
  return !r.failed();
}

bool read_signature_def(std::span<const uint8_t> bytes, Signature& out) {
  ProtoReader r(bytes);
  ProtoField f;
  while (r.next(f)) {
    if ((f.number != kSignatureInputs && f.number != kSignatureOutputs) || f.wire_type != 2) continue;
    TensorSpec t;
    std::span<const uint8_t> info;
    if (!read_entry(f.bytes, t.key, info) || !read_tensor_info(info, t)) return false;
    (f.number == kSignatureInputs ? out.inputs : out.outputs).push_back(std::move(t));
  }
  return !r.failed();
}

}  // namespace

Error read_signature(std::span<const uint8_t> meta_graph_def, const std::string& key, Signature& out) {
  ProtoReader r(meta_graph_def);
  ProtoField f;
  std::string keys;
  while (r.next(f)) {
    if (f.number != kMetaGraphSignatureDef || f.wire_type != 2) continue;
    std::string name;
    std::span<const uint8_t> def;
    if (!read_entry(f.bytes, name, def)) return kMalformed;
    if (name == key) return read_signature_def(def, out) ? Error{} : kMalformed;
    keys += (keys.empty() ? "\"" : ", \"") + name + "\"";
  }
  if (r.failed()) return kMalformed;
  return {WASINN_NOT_FOUND,
          "the SavedModel has no signature \"" + key + "\" (it has " + (keys.empty() ? "none" : keys) + ")"};
}

}  // namespace wasinn::tensorflow
