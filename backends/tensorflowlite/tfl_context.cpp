// set_input / compute / get_output / cancel for one context.
#include "tfl_context.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "tfl_graph.h"
#include "tfl_types.h"

namespace wasinn_tfl {
namespace {

bool check_cancelled(void *data) {
  return static_cast<wasinn_context *>(data)->cancel_requested.load(std::memory_order_relaxed);
}

// The witx ABI has no i8, so a guest sends an int8 model's raw bytes as u8: same bytes, passed
// through unchanged. Every other type must be the model's own.
bool type_accepted(const IoDesc &d, int32_t type) {
  return type == d.type || (d.type == WASINN_TYPE_I8 && type == WASINN_TYPE_U8);
}

bool dims_accepted(const IoDesc &d, const wasinn_tensor &t) {
  if (t.rank != static_cast<uint32_t>(d.rank)) return false;
  for (uint32_t i = 0; i < t.rank; ++i)
    if (d.dims[i] >= 0 && d.dims[i] != static_cast<int64_t>(t.dims[i])) return false;
  return true;
}

bool same_dims(const std::vector<uint32_t> &a, const wasinn_tensor &t) {
  return a.size() == t.rank && std::equal(a.begin(), a.end(), t.dims);
}

// Makes `slot` a buffer of `dims` holding at least `need` bytes, keeping its memory when big
// enough. Replaced memory is retired, not freed: the compiled model may still point at it.
Error reshape_slot(wasinn_context &ctx, Slot &slot, const IoDesc &d,
                   const std::vector<uint32_t> &dims, size_t bytes, size_t need,
                   const std::string &label) {
  slot.buffer.reset();
  if (need > slot.capacity || !slot.memory) {
    size_t capacity = 0;
    HostMemory fresh = allocate_host(need, capacity);
    if (!fresh) return {WASINN_TOO_LARGE, label + ": no memory for " + std::to_string(need) + " bytes"};
    if (slot.memory) ctx.retired.push_back(std::move(slot.memory));
    slot.memory = std::move(fresh);
    slot.capacity = capacity;
  }
  LiteRtRankedTensorType type = d.ranked;
  for (size_t i = 0; i < dims.size(); ++i) type.layout.dimensions[i] = static_cast<int32_t>(dims[i]);
  LiteRtTensorBuffer b = nullptr;
  if (LiteRtStatus st = LiteRtCreateTensorBufferFromHostMemory(&type, slot.memory.get(),
                                                                slot.capacity, nullptr, &b))
    return litert_error(st, label + ": wrapping its buffer");
  slot.buffer.reset(b);
  slot.dims = dims;
  slot.bytes = bytes;
  return {};
}

size_t requirement(LiteRtCompiledModel cm, LiteRtParamIndex sig, size_t position, bool output) {
  LiteRtTensorBufferRequirements req = nullptr;
  size_t size = 0;
  const LiteRtStatus st =
      output ? LiteRtGetCompiledModelOutputBufferRequirements(cm, sig, position, &req)
             : LiteRtGetCompiledModelInputBufferRequirements(cm, sig, position, &req);
  if (st == kLiteRtStatusOk) LiteRtGetTensorBufferRequirementsBufferSize(req, &size);
  return size;
}

// After an input shape changed: let LiteRT propagate shapes, then size every output buffer.
Error prepare_outputs(wasinn_context &ctx) {
  const wasinn_graph &g = *ctx.graph;
  if (LiteRtStatus st = LiteRtGetCompiledModelOutputTensorLayouts(
          ctx.compiled.get(), g.signature, ctx.output_layouts.size(), ctx.output_layouts.data(),
          /*update_allocation=*/true))
    return litert_error(st, "propagating the input shapes to the outputs", WASINN_INVALID_ARGUMENT);
  for (size_t i = 0; i < g.outputs.size(); ++i) {
    const IoDesc &d = g.outputs[i];
    const LiteRtLayout &layout = ctx.output_layouts[d.position];
    std::vector<uint32_t> dims(layout.rank);
    for (size_t k = 0; k < dims.size(); ++k) {
      if (layout.dimensions[k] < 0)
        return {WASINN_UNSUPPORTED_OPERATION,
                io_label(g, true, i) + " has a shape known only after running, which this "
                                       "backend cannot size a buffer for"};
      dims[k] = static_cast<uint32_t>(layout.dimensions[k]);
    }
    size_t bytes = 0;
    const size_t elem = std::max<size_t>(element_size(d.type), 1);
    if (!byte_size(dims, elem, bytes))
      return {WASINN_TOO_LARGE, io_label(g, true, i) + ": tensor byte size overflows"};
    Slot &slot = ctx.outputs[i];
    if (slot.buffer && slot.dims == dims) continue;
    const size_t need = std::max(bytes, requirement(ctx.compiled.get(), g.signature, d.position, true));
    if (Error e = reshape_slot(ctx, slot, d, dims, bytes, need, io_label(g, true, i))) return e;
    ctx.run_outputs[d.position] = slot.buffer.get();
  }
  ctx.outputs_stale = false;
  return {};
}

}  // namespace

Error create_context(wasinn_graph *graph, std::unique_ptr<wasinn_context> &out) {
  auto ctx = std::make_unique<wasinn_context>();
  ctx->graph = graph;
  if (Error e = take_compiled_model(*graph, ctx->compiled)) return e;
  ctx->inputs.resize(graph->inputs.size());
  ctx->outputs.resize(graph->outputs.size());
  ctx->run_inputs.assign(graph->inputs.size(), nullptr);
  ctx->run_outputs.assign(graph->outputs.size(), nullptr);
  ctx->output_layouts.resize(graph->outputs.size());
  // Best effort: without it, cancel() simply has no effect on a running compute.
  LiteRtSetCompiledModelCancellationFunction(ctx->compiled.get(), ctx.get(), check_cancelled);
  out = std::move(ctx);
  return {};
}

Error set_input(wasinn_context &ctx, const wasinn_tensor_id *id, const wasinn_tensor *tensor) {
  const wasinn_graph &g = *ctx.graph;
  size_t index = 0;
  if (Error e = resolve_id(g, false, id, index)) return e;
  const IoDesc &d = g.inputs[index];
  // Built only on failure: set_input is the hot path and must not allocate when shapes repeat.
  auto label = [&] { return io_label(g, false, index); };
  if (!tensor) return invalid(label() + ": no tensor given");
  if (d.type == WASINN_TYPE_UNKNOWN || d.rank < 0)
    return {WASINN_UNSUPPORTED_OPERATION,
            label() + " is " + d.describe() + ": no wasinn tensor can be passed to it"};
  if (tensor->rank > 0 && !tensor->dims) return invalid(label() + ": tensor has no dims");
  if (!type_accepted(d, tensor->type) || !dims_accepted(d, *tensor))
    return invalid(label() + ": the model takes " + d.describe() + ", the tensor is " +
                   type_name(tensor->type) + " " +
                   format_dims(std::span<const uint32_t>(tensor->dims, tensor->rank)));
  size_t bytes = 0;
  if (!byte_size(std::span<const uint32_t>(tensor->dims, tensor->rank), element_size(d.type), bytes))
    return {WASINN_TOO_LARGE, label() + ": tensor byte size overflows"};
  if (tensor->data_length != bytes)  // the host checks this too; a cheap second line of defence
    return invalid(label() + ": data is " + std::to_string(tensor->data_length) +
                   " bytes, the shape needs " + std::to_string(bytes));
  if (bytes && !tensor->data) return invalid(label() + ": tensor has no data");

  Slot &slot = ctx.inputs[index];
  // Steady state of a serving loop: same shape as last time, so only the bytes change.
  if (slot.buffer && same_dims(slot.dims, *tensor)) {
    if (bytes) std::memcpy(slot.memory.get(), tensor->data, bytes);
    return {};
  }

  // A new shape. Resize LiteRT's tensor when the model's shape has a dynamic dimension (a
  // static shape was checked equal above); outputs get re-sized before the next run.
  std::vector<uint32_t> dims(tensor->dims, tensor->dims + tensor->rank);
  if (d.dynamic()) {
    std::vector<int> as_int(dims.size());
    for (size_t i = 0; i < dims.size(); ++i) {
      if (dims[i] > static_cast<uint32_t>(std::numeric_limits<int>::max()))
        return {WASINN_TOO_LARGE, label() + ": dimension " + std::to_string(dims[i]) + " too large"};
      as_int[i] = static_cast<int>(dims[i]);
    }
    if (LiteRtStatus st = LiteRtCompiledModelResizeInputTensor(
            ctx.compiled.get(), g.signature, d.position, as_int.data(), as_int.size())) {
      slot.buffer.reset();  // LiteRT's shape is unknown now: force a resize next time
      ctx.run_inputs[d.position] = nullptr;
      return litert_error(st, label() + ": resizing to " + format_dims(std::span<const uint32_t>(dims)),
                          WASINN_INVALID_ARGUMENT);
    }
    ctx.outputs_stale = true;
  }
  const size_t need = std::max(bytes, requirement(ctx.compiled.get(), g.signature, d.position, false));
  ctx.run_inputs[d.position] = nullptr;
  if (Error e = reshape_slot(ctx, slot, d, dims, bytes, need, label())) return e;
  if (bytes) std::memcpy(slot.memory.get(), tensor->data, bytes);
  ctx.run_inputs[d.position] = slot.buffer.get();
  return {};
}

Error compute(wasinn_context &ctx) {
  const wasinn_graph &g = *ctx.graph;
  std::string missing;
  for (size_t i = 0; i < g.inputs.size(); ++i)
    if (!ctx.run_inputs[g.inputs[i].position])
      missing += (missing.empty() ? "" : ", ") + io_label(g, false, i);
  if (!missing.empty()) return invalid("inputs not set: " + missing);

  ctx.has_outputs = false;
  if (ctx.outputs_stale)
    if (Error e = prepare_outputs(ctx)) return e;
  // A cancel aimed at an earlier compute must not stop this one.
  ctx.cancel_requested.store(false);
  const LiteRtStatus st =
      LiteRtRunCompiledModel(ctx.compiled.get(), g.signature, ctx.run_inputs.size(),
                             ctx.run_inputs.data(), ctx.run_outputs.size(), ctx.run_outputs.data());
  ctx.retired.clear();  // the run bound the current buffers; the old ones are unreferenced now
  if (st != kLiteRtStatusOk) {
    if (ctx.cancel_requested.load()) return {WASINN_TIMEOUT, "compute was cancelled"};
    return litert_error(st, "running the model");
  }
  ctx.has_outputs = true;
  return {};
}

Error get_output(wasinn_context &ctx, const wasinn_tensor_id *id, wasinn_tensor &out) {
  const wasinn_graph &g = *ctx.graph;
  if (!ctx.has_outputs) return invalid("no outputs yet: call compute first");
  size_t index = 0;
  if (Error e = resolve_id(g, true, id, index)) return e;
  const IoDesc &d = g.outputs[index];
  if (d.type == WASINN_TYPE_UNKNOWN)
    return {WASINN_UNSUPPORTED_OPERATION, io_label(g, true, index) + " is " + d.describe() +
                                              ", which no wasinn tensor type expresses"};
  const Slot &slot = ctx.outputs[index];
  out.type = d.type;
  out.rank = static_cast<uint32_t>(slot.dims.size());
  out.dims = slot.dims.data();
  out.data = slot.memory.get();
  out.data_length = slot.bytes;
  return {};
}

void cancel(wasinn_context &ctx) { ctx.cancel_requested.store(true); }

}  // namespace wasinn_tfl
