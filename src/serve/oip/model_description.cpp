// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "serve/oip/model_description.h"

namespace wasinn::oip_server {

std::string_view oip_type_name(TensorType type) {
  const char* name = oip::to_datatype(static_cast<int32_t>(type));
  return name ? name : "BYTES";  // a type no guest ABI expresses: the protocol's opaque type
}

std::string oip_datatype(std::optional<TensorType> type) { return std::string(type ? oip_type_name(*type) : "BYTES"); }

oip::ModelMeta model_metadata(const std::string& name, const std::string& version, const ModelDescription* described) {
  oip::ModelMeta m;
  m.name = name;
  m.versions = {version};
  if (!described) return m;
  m.platform = described->platform;
  for (const DeclaredTensor& in : described->inputs)
    m.inputs.push_back({in.name, oip_datatype(in.type), in.dims.value_or(std::vector<int64_t>{})});
  for (const DeclaredTensor& out : described->outputs)
    m.outputs.push_back({out.name, oip_datatype(out.type), out.dims.value_or(std::vector<int64_t>{})});
  return m;
}

ModelConfigInfo model_config(const std::string& name, const ModelDescription* described,
                             const BatchingOptions& batching) {
  const oip::ModelMeta meta = model_metadata(name, "", described);
  ModelConfigInfo c{name, meta.platform, "", {}, {}};
  if (described) c.backend = described->backend;
  for (size_t i = 0; i < meta.inputs.size(); ++i)
    c.inputs.push_back(
        {meta.inputs[i].name, "TYPE_" + meta.inputs[i].datatype, meta.inputs[i].shape, described->inputs[i].optional});
  for (const auto& o : meta.outputs) c.outputs.push_back({o.name, "TYPE_" + o.datatype, o.shape, false});
  if (batching.enabled()) {
    // Triton's form of a batching model: the batch dimension is max_batch_size's, not the dims'.
    c.max_batch_size = batching.max_batch_size;
    c.max_queue_delay_us = batching.max_queue_delay_us;
    for (auto* list : {&c.inputs, &c.outputs})
      for (auto& t : *list)
        if (!t.dims.empty()) t.dims.erase(t.dims.begin());
  }
  for (auto* list : {&c.inputs, &c.outputs})
    for (auto& t : *list)
      if (t.data_type == "TYPE_BYTES") t.data_type = "TYPE_STRING";  // Triton's name for it
  return c;
}

}  // namespace wasinn::oip_server
