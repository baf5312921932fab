// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// set_input / compute / get_output for one context.
#include "context.h"

#include <algorithm>
#include <cstring>
#include <span>
#include <string>

#include "graph.h"
#include "types.h"

namespace wasinn::tensorflow {
namespace {

// The SDK's check of a tensor against its declared input, plus one allowance: the witx ABI has
// no i8, so a guest sends an int8 tensor's bytes typed u8, passed through as they are.
Error check_tensor(std::span<const sdk::IoDesc> declared, size_t index, const wasinn_tensor& t) {
  if (declared[index].type != WASINN_TYPE_I8 || t.type != WASINN_TYPE_U8) return sdk::check_input(declared, index, t);
  wasinn_tensor as_i8 = t;
  as_i8.type = WASINN_TYPE_I8;
  if (!sdk::check_input(declared, index, as_i8)) return {};
  return sdk::check_input(declared, index, t);  // the detail names the type the guest sent
}

}  // namespace

Error TfGraph::create_context(std::unique_ptr<TfContext>& out) { return TfContext::create(*this, out); }

Error TfContext::create(TfGraph& graph, std::unique_ptr<TfContext>& out) {
  auto ctx = std::make_unique<TfContext>();
  ctx->graph_ = &graph;
  const size_t inputs = graph.io(sdk::Side::input).size();
  const size_t outputs = graph.io(sdk::Side::output).size();
  ctx->inputs_.resize(inputs);
  ctx->input_dims_.resize(inputs);
  ctx->input_values_.assign(inputs, nullptr);
  ctx->outputs_.resize(outputs);
  ctx->output_values_.assign(outputs, nullptr);
  ctx->output_dims_.resize(outputs);
  ctx->status_ = new_status();
  out = std::move(ctx);
  return {};
}

void TfContext::drop_outputs() {
  // An output may share its buffer with an input (an Identity): once an input changes, the
  // last outputs are gone too, as the plugin ABI allows.
  for (auto& t : outputs_) t.reset();
  has_outputs_ = false;
}

Error TfContext::set_input(const wasinn_tensor_id& id, const wasinn_tensor& tensor) {
  const auto declared = graph_->io(sdk::Side::input);
  size_t index = 0;
  if (Error e = graph_->resolve(sdk::Side::input, id, index)) return e;
  if (Error e = check_tensor(declared, index, tensor)) return e;
  const size_t bytes = tensor.data_length;
  const std::span<const uint32_t> dims(tensor.dims, tensor.rank);

  drop_outputs();
  TensorPtr& current = inputs_[index];
  std::vector<uint32_t>& current_dims = input_dims_[index];
  if (!current || !std::equal(dims.begin(), dims.end(), current_dims.begin(), current_dims.end())) {
    std::vector<int64_t> dims64(dims.begin(), dims.end());
    current.reset(
        tf().TF_AllocateTensor(graph_->input_dtype(index), dims64.data(), static_cast<int>(dims64.size()), bytes));
    if (!current)
      return {WASINN_TOO_LARGE, sdk::io_label(declared, sdk::Side::input, index) + ": TensorFlow could not allocate " +
                                    std::to_string(bytes) + " bytes"};
    current_dims.assign(dims.begin(), dims.end());
    input_values_[index] = current.get();
  }
  if (bytes) std::memcpy(tf().TF_TensorData(current.get()), tensor.data, bytes);
  return {};
}

Error TfContext::compute() {
  if (Error e = sdk::check_all_set(graph_->io(sdk::Side::input), [&](size_t i) { return inputs_[i] != nullptr; }))
    return e;

  drop_outputs();
  std::fill(output_values_.begin(), output_values_.end(), nullptr);
  const auto& in = graph_->input_ports();
  const auto& out = graph_->output_ports();
  tf().TF_SessionRun(graph_->session(), nullptr, in.data(), input_values_.data(), static_cast<int>(in.size()),
                     out.data(), output_values_.data(), static_cast<int>(out.size()), nullptr, 0, nullptr,
                     status_.get());
  // Own whatever TF returned before looking at the status, so nothing leaks on failure.
  for (size_t i = 0; i < outputs_.size(); ++i) outputs_[i].reset(output_values_[i]);
  if (Error e = take_status(status_.get(), "running the model")) {
    drop_outputs();
    return e;
  }
  const auto declared = graph_->io(sdk::Side::output);
  for (size_t i = 0; i < outputs_.size(); ++i) {
    TF_Tensor* t = outputs_[i].get();
    if (!t)
      return sdk::runtime_error(sdk::io_label(declared, sdk::Side::output, i) + ": TensorFlow returned no tensor");
    std::vector<uint32_t>& dims = output_dims_[i];
    dims.resize(static_cast<size_t>(tf().TF_NumDims(t)));  // keeps capacity when shapes repeat
    for (size_t k = 0; k < dims.size(); ++k) {
      const int64_t n = tf().TF_Dim(t, static_cast<int>(k));
      if (n < 0 || n > UINT32_MAX)
        return {WASINN_TOO_LARGE, sdk::io_label(declared, sdk::Side::output, i) + ": dimension " + std::to_string(n) +
                                      " does not fit a wasinn u32 dim"};
      dims[k] = static_cast<uint32_t>(n);
    }
  }
  has_outputs_ = true;
  return {};
}

Error TfContext::get_output(const wasinn_tensor_id& id, wasinn_tensor& out) {
  if (!has_outputs_) return sdk::invalid("no outputs: call compute first (set_input drops them)");
  const auto declared = graph_->io(sdk::Side::output);
  size_t index = 0;
  if (Error e = graph_->resolve(sdk::Side::output, id, index)) return e;
  auto label = [&] { return sdk::io_label(declared, sdk::Side::output, index); };
  TF_Tensor* t = outputs_[index].get();
  const TF_DataType dtype = tf().TF_TensorType(t);
  const wasinn_tensor_type type = to_wasinn_type(dtype);
  if (type == WASINN_TYPE_UNKNOWN)
    return sdk::unsupported(label() + " is " + tf_type_name(dtype) + ", which no wasinn tensor type expresses");
  const std::vector<uint32_t>& dims = output_dims_[index];
  size_t bytes = 0;
  if (!sdk::byte_size(std::span<const uint32_t>(dims), sdk::element_size(type), bytes) ||
      bytes != tf().TF_TensorByteSize(t))
    return sdk::runtime_error(label() + ": TensorFlow's tensor has " + std::to_string(tf().TF_TensorByteSize(t)) +
                              " bytes for its shape");
  out.type = type;
  out.rank = static_cast<uint32_t>(dims.size());
  out.dims = dims.data();
  out.data = tf().TF_TensorData(t);
  out.data_length = bytes;
  return {};
}

}  // namespace wasinn::tensorflow
