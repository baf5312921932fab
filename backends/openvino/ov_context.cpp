// set_input / compute / get_output / cancel for one context.
#include "ov_context.h"

#include <openvino/runtime/exception.hpp>

#include <cstring>
#include <limits>
#include <span>
#include <string>

#include "ov_graph.h"
#include "ov_types.h"

namespace wasinn_ov {
namespace {

// product(dims) * elem, or false on overflow.
bool byte_size(std::span<const uint32_t> dims, size_t elem, size_t &out) {
  size_t n = elem;
  for (uint32_t d : dims) {
    if (d != 0 && n > std::numeric_limits<size_t>::max() / d) return false;
    n *= d;
  }
  out = n;
  return true;
}

}  // namespace

Error create_context(wasinn_graph *graph, std::unique_ptr<wasinn_context> &out) {
  auto ctx = std::make_unique<wasinn_context>();
  ctx->graph = graph;
  try {
    ctx->request = graph->compiled.create_infer_request();
  } catch (const std::exception &e) {
    return from_exception(WASINN_RUNTIME_ERROR, "init_execution_context: creating an infer request", e);
  }
  ctx->input_set.assign(graph->inputs.size(), false);
  ctx->held_outputs.resize(graph->outputs.size());
  ctx->output_dims.resize(graph->outputs.size());
  out = std::move(ctx);
  return {};
}

Error set_input(wasinn_context &ctx, const wasinn_tensor_id *id, const wasinn_tensor *tensor) {
  const wasinn_graph &g = *ctx.graph;
  size_t index = 0;
  if (Error e = resolve_id(g, false, id, index)) return e;
  const IoDesc &d = g.inputs[index];
  // Built only on failure: set_input is the hot path.
  auto label = [&] { return io_label(g, false, index); };
  if (!tensor) return invalid(label() + ": no tensor given");
  if (d.type == WASINN_TYPE_UNKNOWN)
    return {WASINN_UNSUPPORTED_OPERATION,
            label() + " is " + d.declared + ": no wasinn tensor type has this element type"};
  if (tensor->rank > 0 && !tensor->dims) return invalid(label() + ": tensor has no dims");
  const std::span<const uint32_t> dims(tensor->dims, tensor->rank);
  if (!d.accepts(tensor->type, tensor->dims, tensor->rank))
    return invalid(label() + ": expected " + d.declared + ", got " + describe(tensor->type, dims));
  size_t bytes = 0;
  if (!byte_size(dims, element_size(d.type), bytes)) return {WASINN_TOO_LARGE, label() + ": tensor byte size overflows"};
  if (tensor->data_length != bytes)  // the host checks this too; a cheap second line of defence
    return invalid(label() + ": data is " + std::to_string(tensor->data_length) + " bytes, " +
                   describe(tensor->type, dims) + " needs " + std::to_string(bytes));
  if (bytes > 0 && !tensor->data) return invalid(label() + ": tensor has no data");

  ctx.scratch_shape.assign(dims.begin(), dims.end());
  try {
    // The request's own tensor: OpenVINO allocated it where the device reads it, and set_shape
    // reallocates only when the shape grows, so the bytes are copied exactly once.
    ov::Tensor t = ctx.request.get_input_tensor(index);
    if (t.get_shape() != ctx.scratch_shape) t.set_shape(ctx.scratch_shape);
    if (bytes) std::memcpy(t.data(), tensor->data, bytes);
  } catch (const std::exception &e) {
    ctx.input_set[index] = false;  // the tensor may be half-written or mis-shaped now
    return from_exception(WASINN_RUNTIME_ERROR, label(), e);
  }
  ctx.input_set[index] = true;
  return {};
}

Error compute(wasinn_context &ctx) {
  const wasinn_graph &g = *ctx.graph;
  std::string missing;
  for (size_t i = 0; i < ctx.input_set.size(); ++i)
    if (!ctx.input_set[i]) missing += (missing.empty() ? "" : ", ") + io_label(g, false, i);
  if (!missing.empty()) return invalid("compute: inputs not set: " + missing);

  ctx.has_outputs = false;
  // A cancel aimed at an earlier compute must not stop this one.
  ctx.cancel_requested.store(false);
  try {
    // OpenVINO's CPU plugin honours cancel() only for an asynchronous run (a synchronous infer()
    // ran to the end in every test), and the host's compute deadline relies on cancel. The cost
    // is one hand-off to OpenVINO's stream thread, which "cancellable": false saves.
    if (g.cancellable) {
      ctx.request.start_async();
      ctx.request.wait();
    } else {
      ctx.request.infer();
    }
  } catch (const ov::Cancelled &) {
    return {WASINN_TIMEOUT, "compute was cancelled"};
  } catch (const std::exception &e) {
    if (ctx.cancel_requested.load()) return {WASINN_TIMEOUT, "compute was cancelled"};
    return from_exception(WASINN_RUNTIME_ERROR, "compute", e);
  }
  ctx.has_outputs = true;
  return {};
}

Error get_output(wasinn_context &ctx, const wasinn_tensor_id *id, wasinn_tensor &out) {
  const wasinn_graph &g = *ctx.graph;
  if (!ctx.has_outputs) return invalid("get_output: no outputs yet: call compute first");
  size_t index = 0;
  if (Error e = resolve_id(g, true, id, index)) return e;
  auto label = [&] { return io_label(g, true, index); };
  ov::Tensor &t = ctx.held_outputs[index];
  try {
    t = ctx.request.get_output_tensor(index);
    if (!t.is_continuous()) return {WASINN_RUNTIME_ERROR, label() + ": OpenVINO returned a strided tensor"};
  } catch (const std::exception &e) {
    return from_exception(WASINN_RUNTIME_ERROR, label(), e);
  }
  const wasinn_tensor_type type = to_wasinn_type(t.get_element_type());
  if (type == WASINN_TYPE_UNKNOWN)
    return {WASINN_UNSUPPORTED_OPERATION, label() + " has element type " + t.get_element_type().get_type_name() +
                                              ", which no wasinn tensor type expresses"};
  const ov::Shape &shape = t.get_shape();
  std::vector<uint32_t> &dims = ctx.output_dims[index];
  dims.resize(shape.size());  // keeps capacity: no allocation when the shape repeats
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] > std::numeric_limits<uint32_t>::max())
      return {WASINN_TOO_LARGE, label() + ": dimension " + std::to_string(i) + " is " + std::to_string(shape[i]) +
                                    ", beyond a wasinn u32 dim"};
    dims[i] = static_cast<uint32_t>(shape[i]);
  }
  out.type = type;
  out.rank = static_cast<uint32_t>(dims.size());
  out.dims = dims.data();
  out.data = t.get_byte_size() ? t.data() : nullptr;
  out.data_length = t.get_byte_size();
  return {};
}

void cancel(wasinn_context &ctx) noexcept {
  // Flag first: if infer fails because of the cancel below, compute must already see it.
  ctx.cancel_requested.store(true);
  try {
    ctx.request.cancel();
  } catch (...) {
    // Nothing to cancel (no inference running) is not an error for the caller.
  }
}

}  // namespace wasinn_ov
