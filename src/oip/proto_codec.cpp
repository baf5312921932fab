// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "proto_codec.h"

#include <cstring>
#include <limits>

namespace wasinn::oip {
namespace {

sdk::Error malformed(const std::string& what) { return malformed_response(what); }

template <typename To, typename Repeated>
void put_all(const Repeated& values, std::string& out) {
  out.resize(static_cast<size_t>(values.size()) * sizeof(To));
  for (int i = 0; i < values.size(); ++i) {
    const To v = static_cast<To>(values.Get(i));
    std::memcpy(out.data() + static_cast<size_t>(i) * sizeof(To), &v, sizeof(To));
  }
}

}  // namespace

bool typed_contents_to_bytes(const inference::InferTensorContents& c, const std::string& dt, std::string& out) {
  if (dt == "BOOL")
    put_all<uint8_t>(c.bool_contents(), out);
  else if (dt == "UINT8")
    put_all<uint8_t>(c.uint_contents(), out);
  else if (dt == "UINT16")
    put_all<uint16_t>(c.uint_contents(), out);
  else if (dt == "UINT32")
    put_all<uint32_t>(c.uint_contents(), out);
  else if (dt == "UINT64")
    put_all<uint64_t>(c.uint64_contents(), out);
  else if (dt == "INT8")
    put_all<int8_t>(c.int_contents(), out);
  else if (dt == "INT16")
    put_all<int16_t>(c.int_contents(), out);
  else if (dt == "INT32")
    put_all<int32_t>(c.int_contents(), out);
  else if (dt == "INT64")
    put_all<int64_t>(c.int64_contents(), out);
  else if (dt == "FP32")
    put_all<float>(c.fp32_contents(), out);
  else if (dt == "FP64")
    put_all<double>(c.fp64_contents(), out);
  else if (dt == "FP16" || dt == "BF16") {
    // Not in the spec's typed fields; some servers send them as fp32.
    const auto& f = c.fp32_contents();
    out.resize(static_cast<size_t>(f.size()) * 2);
    for (int i = 0; i < f.size(); ++i) {
      const uint16_t h = dt == "FP16" ? float_to_half(f.Get(i)) : float_to_bf16(f.Get(i));
      std::memcpy(out.data() + 2 * static_cast<size_t>(i), &h, 2);
    }
  } else
    return false;
  return true;
}

void encode_infer_proto(const std::string& model, const std::string& version, std::span<const InputTensor> inputs,
                        std::span<const std::string> output_names, inference::ModelInferRequest& out) {
  out.Clear();
  out.set_model_name(model);
  out.set_model_version(version);
  for (const InputTensor& t : inputs) {
    auto* in = out.add_inputs();
    in->set_name(std::string(t.name));
    in->set_datatype(std::string(t.datatype));
    for (int64_t d : t.shape) in->add_shape(d);
    out.add_raw_input_contents(reinterpret_cast<const char*>(t.data.data()), t.data.size());
  }
  for (const std::string& name : output_names) out.add_outputs()->set_name(name);
}

sdk::Error decode_infer_proto(inference::ModelInferResponse& r, std::vector<OutputTensor>& out) {
  out.clear();
  const bool raw = r.raw_output_contents_size() > 0;
  if (raw && r.raw_output_contents_size() != r.outputs_size())
    return malformed(std::to_string(r.outputs_size()) + " outputs but " + std::to_string(r.raw_output_contents_size()) +
                     " raw contents");
  for (int i = 0; i < r.outputs_size(); ++i) {
    const auto& o = r.outputs(i);
    OutputTensor t;
    t.name = o.name();
    t.datatype = o.datatype();
    t.shape.assign(o.shape().begin(), o.shape().end());
    const std::optional<size_t> want = tensor_bytes(t.datatype, t.shape);
    if (!want)
      return malformed("output \"" + t.name + "\" has datatype " + t.datatype +
                       " and a shape whose size is not a fixed number of bytes");
    if (raw) {
      const std::string& bytes = r.raw_output_contents(i);
      if (sdk::Error e = bytes_fit(t, bytes.size(), *want, true)) return e;
      r.mutable_raw_output_contents(i)->swap(t.data);  // no copy of the tensor
    } else {
      if (!typed_contents_to_bytes(o.contents(), t.datatype, t.data))
        return malformed("output \"" + t.name + "\" of datatype " + t.datatype + " has no typed contents");
      if (sdk::Error e = bytes_fit(t, t.data.size(), *want, false)) return e;
    }
    out.push_back(std::move(t));
  }
  return {};
}

void decode_metadata_proto(const inference::ModelMetadataResponse& r, ModelMeta& out) {
  out = {};
  out.name = r.name();
  out.platform = r.platform();
  out.versions.assign(r.versions().begin(), r.versions().end());
  auto copy = [](const auto& list, std::vector<TensorMeta>& to) {
    for (const auto& t : list)
      to.push_back({t.name(), t.datatype(), std::vector<int64_t>(t.shape().begin(), t.shape().end())});
  };
  copy(r.inputs(), out.inputs);
  copy(r.outputs(), out.outputs);
}

}  // namespace wasinn::oip
