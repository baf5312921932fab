// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "context.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "graph.h"

namespace wasinn::remote {

RemoteContext::RemoteContext(RemoteGraph& graph) : graph_(graph), call_(graph.transport().open_call()) {
  inputs_.resize(graph.io(sdk::Side::input).size());
  outputs_.resize(graph.io(sdk::Side::output).size());
  dims_.resize(outputs_.size());
}

Error RemoteContext::set_input(const wasinn_tensor_id& id, const wasinn_tensor& tensor) {
  const auto declared = graph_.io(sdk::Side::input);
  size_t index = 0;
  if (Error e = sdk::resolve_id(declared, sdk::Side::input, id, index)) return e;
  if (Error e = sdk::check_input(declared, index, tensor)) return e;
  Slot& s = inputs_[index];
  const auto* p = static_cast<const uint8_t*>(tensor.data);
  s.data.assign(p, p + tensor.data_length);
  s.shape.assign(tensor.dims, tensor.dims + tensor.rank);
  s.set = true;
  has_outputs_ = false;
  return {};
}

Error RemoteContext::compute() {
  const auto declared_in = graph_.io(sdk::Side::input);
  if (Error e = sdk::check_all_set(declared_in, [&](size_t i) { return inputs_[i].set; })) return e;
  has_outputs_ = false;
  call_->reset_cancel();
  std::vector<InputTensor> in(inputs_.size());
  for (size_t i = 0; i < inputs_.size(); ++i)
    in[i] = {declared_in[i].name, graph_.input_datatypes()[i], inputs_[i].shape, inputs_[i].data};
  std::vector<OutputTensor> got;
  if (Error e = call_->infer(in, graph_.output_names(), got)) return e;

  // The response's outputs, matched to the declared ones by name.
  const auto declared = graph_.io(sdk::Side::output);
  for (size_t i = 0; i < declared.size(); ++i) {
    auto label = [&] { return sdk::io_label(declared, sdk::Side::output, i); };
    auto it = std::find_if(got.begin(), got.end(), [&](const OutputTensor& o) { return o.name == declared[i].name; });
    if (it == got.end()) return sdk::runtime_error("remote: the server's response lacks " + label());
    const auto type = from_datatype(it->datatype);
    if (!declared[i].carries_tensors() || !type || *type != declared[i].type)
      return sdk::runtime_error("remote: " + label() + " came back as " + it->datatype +
                                ", the model's metadata declares " + declared[i].framework_type);
    dims_[i].resize(it->shape.size());
    for (size_t d = 0; d < it->shape.size(); ++d) {
      if (it->shape[d] > std::numeric_limits<uint32_t>::max())
        return {WASINN_TOO_LARGE,
                "remote: " + label() + ": dimension " + std::to_string(d) + " is beyond a wasinn u32 dim"};
      dims_[i][d] = static_cast<uint32_t>(it->shape[d]);
    }
    outputs_[i] = std::move(*it);
  }
  has_outputs_ = true;
  return {};
}

Error RemoteContext::get_output(const wasinn_tensor_id& id, wasinn_tensor& out) {
  if (!has_outputs_) return sdk::invalid("no outputs yet: call compute first");
  const auto declared = graph_.io(sdk::Side::output);
  size_t index = 0;
  if (Error e = sdk::resolve_id(declared, sdk::Side::output, id, index)) return e;
  const OutputTensor& o = outputs_[index];
  out.type = declared[index].type;
  out.rank = static_cast<uint32_t>(dims_[index].size());
  out.dims = dims_[index].data();
  out.data = o.data.data();
  out.data_length = o.data.size();
  return {};
}

void RemoteContext::cancel() noexcept { call_->cancel(); }

}  // namespace wasinn::remote
