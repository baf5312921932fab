// set_input / compute / get_output for one context.
#include "tf_context.h"

#include <algorithm>
#include <cstring>

#include "tf_graph.h"
#include "tf_types.h"

namespace wasinn_tf {
namespace {

// The witx ABI has no i8: a guest sends an int8 tensor's bytes typed u8, passed through as is.
bool type_accepted(const IoDesc &d, int32_t type) {
  return type == d.type || (d.type == WASINN_TYPE_I8 && type == WASINN_TYPE_U8);
}

bool dims_accepted(const IoDesc &d, const wasinn_tensor &t) {
  if (d.rank < 0) return true;
  if (t.rank != static_cast<uint32_t>(d.rank)) return false;
  for (uint32_t i = 0; i < t.rank; ++i)
    if (d.dims[i] >= 0 && d.dims[i] != static_cast<int64_t>(t.dims[i])) return false;
  return true;
}

void drop_outputs(wasinn_context &ctx) {
  // An output may share its buffer with an input (an Identity): once an input changes, the
  // last outputs are gone too, as the plugin ABI allows.
  for (auto &t : ctx.outputs) t.reset();
  ctx.has_outputs = false;
}

}  // namespace

Error create_context(wasinn_graph *graph, std::unique_ptr<wasinn_context> &out) {
  auto ctx = std::make_unique<wasinn_context>();
  ctx->graph = graph;
  ctx->inputs.resize(graph->inputs.size());
  ctx->input_dims.resize(graph->inputs.size());
  ctx->input_values.assign(graph->inputs.size(), nullptr);
  ctx->outputs.resize(graph->outputs.size());
  ctx->output_values.assign(graph->outputs.size(), nullptr);
  ctx->output_dims.resize(graph->outputs.size());
  ctx->status = new_status();
  out = std::move(ctx);
  return {};
}

Error set_input(wasinn_context &ctx, const wasinn_tensor_id *id, const wasinn_tensor *tensor) {
  const wasinn_graph &g = *ctx.graph;
  size_t index = 0;
  if (Error e = resolve_id(g, false, id, index)) return e;
  const IoDesc &d = g.inputs[index];
  auto label = [&] { return io_label(g, false, index); };  // built only on failure
  if (!tensor) return invalid(label() + ": no tensor given");
  if (d.type == WASINN_TYPE_UNKNOWN)
    return {WASINN_UNSUPPORTED_OPERATION,
            label() + " is " + d.describe() + ": no wasinn tensor can be passed to it"};
  if (tensor->rank > 0 && !tensor->dims) return invalid(label() + ": tensor has no dims");
  const std::span<const uint32_t> dims(tensor->dims, tensor->rank);
  if (!type_accepted(d, tensor->type) || !dims_accepted(d, *tensor))
    return invalid(label() + ": the model takes " + d.describe() + ", the tensor is " +
                   type_name(tensor->type) + " " + format_dims(dims));
  size_t bytes = 0;
  if (!byte_size(dims, element_size(d.type), bytes))
    return {WASINN_TOO_LARGE, label() + ": tensor byte size overflows"};
  if (tensor->data_length != bytes)
    return invalid(label() + ": data is " + std::to_string(tensor->data_length) +
                   " bytes, the shape needs " + std::to_string(bytes));
  if (bytes && !tensor->data) return invalid(label() + ": tensor has no data");

  drop_outputs(ctx);
  auto &current = ctx.inputs[index];
  auto &current_dims = ctx.input_dims[index];
  if (!current || !std::equal(dims.begin(), dims.end(), current_dims.begin(), current_dims.end())) {
    std::vector<int64_t> dims64(dims.begin(), dims.end());
    current.reset(TF_AllocateTensor(d.dtype, dims64.data(), static_cast<int>(dims64.size()), bytes));
    if (!current) return {WASINN_TOO_LARGE, label() + ": TensorFlow could not allocate " +
                                                std::to_string(bytes) + " bytes"};
    current_dims.assign(dims.begin(), dims.end());
    ctx.input_values[index] = current.get();
  }
  if (bytes) std::memcpy(TF_TensorData(current.get()), tensor->data, bytes);
  return {};
}

Error compute(wasinn_context &ctx) {
  const wasinn_graph &g = *ctx.graph;
  std::string missing;
  for (size_t i = 0; i < g.inputs.size(); ++i)
    if (!ctx.inputs[i]) missing += (missing.empty() ? "" : ", ") + io_label(g, false, i);
  if (!missing.empty()) return invalid("inputs not set: " + missing);

  drop_outputs(ctx);
  std::fill(ctx.output_values.begin(), ctx.output_values.end(), nullptr);
  TF_SessionRun(g.session.get(), nullptr, g.input_ports.data(), ctx.input_values.data(),
                static_cast<int>(g.input_ports.size()), g.output_ports.data(),
                ctx.output_values.data(), static_cast<int>(g.output_ports.size()), nullptr, 0,
                nullptr, ctx.status.get());
  // Own whatever TF returned before looking at the status, so nothing leaks on failure.
  for (size_t i = 0; i < ctx.outputs.size(); ++i) ctx.outputs[i].reset(ctx.output_values[i]);
  if (Error e = take_status(ctx.status.get(), "running the model")) {
    drop_outputs(ctx);
    return e;
  }
  for (size_t i = 0; i < ctx.outputs.size(); ++i) {
    TF_Tensor *t = ctx.outputs[i].get();
    if (!t) return {WASINN_RUNTIME_ERROR, io_label(g, true, i) + ": TensorFlow returned no tensor"};
    auto &dims = ctx.output_dims[i];
    dims.resize(static_cast<size_t>(TF_NumDims(t)));  // keeps capacity when the shape repeats
    for (size_t k = 0; k < dims.size(); ++k) {
      const int64_t n = TF_Dim(t, static_cast<int>(k));
      if (n < 0 || n > UINT32_MAX)
        return {WASINN_TOO_LARGE, io_label(g, true, i) + ": dimension " + std::to_string(n) +
                                      " does not fit a wasinn u32 dim"};
      dims[k] = static_cast<uint32_t>(n);
    }
  }
  ctx.has_outputs = true;
  return {};
}

Error get_output(wasinn_context &ctx, const wasinn_tensor_id *id, wasinn_tensor &out) {
  const wasinn_graph &g = *ctx.graph;
  if (!ctx.has_outputs) return invalid("no outputs: call compute first (set_input drops them)");
  size_t index = 0;
  if (Error e = resolve_id(g, true, id, index)) return e;
  TF_Tensor *t = ctx.outputs[index].get();
  const int32_t type = to_wasinn_type(TF_TensorType(t));
  if (type == WASINN_TYPE_UNKNOWN)
    return {WASINN_UNSUPPORTED_OPERATION, io_label(g, true, index) + " is " +
                                              tf_type_name(TF_TensorType(t)) +
                                              ", which no wasinn tensor type expresses"};
  const auto &dims = ctx.output_dims[index];
  size_t bytes = 0;
  if (!byte_size(dims, element_size(type), bytes) || bytes != TF_TensorByteSize(t))
    return {WASINN_RUNTIME_ERROR, io_label(g, true, index) + ": TensorFlow's tensor has " +
                                      std::to_string(TF_TensorByteSize(t)) + " bytes for its shape"};
  out.type = type;
  out.rank = static_cast<uint32_t>(dims.size());
  out.dims = dims.data();
  out.data = TF_TensorData(t);
  out.data_length = bytes;
  return {};
}

}  // namespace wasinn_tf
