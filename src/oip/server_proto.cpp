// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "server_proto.h"

#include "proto_codec.h"

namespace wasinn::oip {
namespace {

sdk::Error bad(const std::string& what) { return sdk::invalid(what); }

// A parameter's value as text, as server_json's parameter_text writes the same value.
std::string parameter_text(const inference::InferParameter& p) {
  switch (p.parameter_choice_case()) {
    case inference::InferParameter::kBoolParam: return p.bool_param() ? "true" : "false";
    case inference::InferParameter::kInt64Param: return std::to_string(p.int64_param());
    case inference::InferParameter::kStringParam: return p.string_param();
    default: return "";
  }
}

}  // namespace

sdk::Error decode_infer_request_proto(const inference::ModelInferRequest& r, InferRequest& out,
                                      const InputNameCheck& check_name) {
  out = {};
  out.id = r.id();
  for (const auto& [key, value] : r.parameters()) out.parameters.emplace_back(key, parameter_text(value));
  const bool raw = r.raw_input_contents_size() > 0;
  if (raw && r.raw_input_contents_size() != r.inputs_size())
    return bad(std::to_string(r.inputs_size()) + " inputs but " + std::to_string(r.raw_input_contents_size()) +
               " raw_input_contents");
  out.inputs.resize(static_cast<size_t>(r.inputs_size()));
  for (int i = 0; i < r.inputs_size(); ++i) {
    const auto& t = r.inputs(i);
    RequestInput& in = out.inputs[static_cast<size_t>(i)];
    in.name = t.name();
    if (check_name)
      if (std::string refused = check_name(in.name); !refused.empty()) return bad(refused);
    in.datatype = t.datatype();
    if (datatype_size(in.datatype) == 0)
      return bad(
          "input '" + in.name + "' has datatype " + in.datatype +
          (in.datatype == "BYTES" ? ", which wasinn's models do not take" : ", which the protocol does not define"));
    if (t.shape_size() > 64)
      return bad("input '" + in.name + "' has a shape of rank " + std::to_string(t.shape_size()));
    for (int64_t d : t.shape()) {
      if (d < 0) return bad("input '" + in.name + "' has a shape holding " + std::to_string(d) + ", not a size");
      in.shape.push_back(d);
    }
    const std::optional<size_t> want = tensor_bytes(in.datatype, in.shape);
    if (!want) return bad("input '" + in.name + "': its shape's size overflows");
    if (raw) {
      const std::string& bytes = r.raw_input_contents(i);
      if (bytes.size() != *want)
        return bad("input '" + in.name + "' has " + std::to_string(bytes.size()) + " bytes; shape and datatype " +
                   in.datatype + " need " + std::to_string(*want));
      in.data = std::span(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
    } else {
      typed_contents_to_bytes(t.contents(), in.datatype, in.owned);
      if (in.owned.size() != *want) {
        const size_t es = datatype_size(in.datatype);
        return bad("input '" + in.name + "' has " + std::to_string(in.owned.size() / es) +
                   " elements in its contents; its shape needs " + std::to_string(*want / es));
      }
    }
  }
  for (RequestInput& in : out.inputs)
    if (in.data.empty() && !in.owned.empty())
      in.data = std::span(reinterpret_cast<const uint8_t*>(in.owned.data()), in.owned.size());
  for (const auto& o : r.outputs()) out.outputs.push_back({o.name(), std::nullopt});
  return {};
}

void encode_infer_response_proto(const std::string& model, const std::string& version, const std::string& id,
                                 std::span<const ResponseOutput> outputs, inference::ModelInferResponse& out) {
  out.Clear();
  out.set_model_name(model);
  out.set_model_version(version);
  out.set_id(id);
  for (const ResponseOutput& o : outputs) {
    auto* t = out.add_outputs();
    t->set_name(o.name);
    t->set_datatype(o.datatype);
    for (int64_t d : o.shape) t->add_shape(d);
    out.add_raw_output_contents(reinterpret_cast<const char*>(o.data.data()), o.data.size());
  }
}

void encode_metadata_proto(const ModelMeta& meta, inference::ModelMetadataResponse& out) {
  out.Clear();
  out.set_name(meta.name);
  out.set_platform(meta.platform);
  for (const auto& v : meta.versions) out.add_versions(v);
  auto fill = [](const TensorMeta& m, auto* t) {
    t->set_name(m.name);
    t->set_datatype(m.datatype);
    for (int64_t d : m.shape) t->add_shape(d);
  };
  for (const auto& m : meta.inputs) fill(m, out.add_inputs());
  for (const auto& m : meta.outputs) fill(m, out.add_outputs());
}

}  // namespace wasinn::oip
