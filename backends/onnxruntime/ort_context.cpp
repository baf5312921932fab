// set_input / compute / get_output / cancel for one context.
#include "ort_context.h"

#include <cstring>
#include <limits>
#include <span>
#include <string>

#include "ort_backend.h"
#include "ort_types.h"

void wasinn_context::clear_outputs() {
  const OrtApi *api = wasinn_ort::ort_api();
  for (OrtValue *&v : outputs) {
    if (v) api->ReleaseValue(v);
    v = nullptr;
  }
  has_outputs = false;
}

namespace wasinn_ort {
namespace {

Error invalid(std::string detail) { return {WASINN_INVALID_ARGUMENT, std::move(detail)}; }

// True when the tensor's type and shape are what the declaration accepts: same type, same rank,
// equal static dims; dynamic (-1) dims and undeclared shapes (rank -1) accept anything.
bool matches(const IoDesc &d, const wasinn_tensor &t) {
  if (t.type != d.type) return false;
  if (d.rank < 0) return true;
  if (t.rank != static_cast<uint32_t>(d.rank)) return false;
  for (uint32_t i = 0; i < t.rank; ++i)
    if (d.dims[i] >= 0 && d.dims[i] != static_cast<int64_t>(t.dims[i])) return false;
  return true;
}

bool same_dims(const std::vector<int64_t> &a, const wasinn_tensor &t) {
  if (a.size() != t.rank) return false;
  for (uint32_t i = 0; i < t.rank; ++i)
    if (a[i] != static_cast<int64_t>(t.dims[i])) return false;
  return true;
}

// product(dims) * element size, or false on overflow. Dims are known non-negative here.
template <typename Dim>
bool byte_size(std::span<const Dim> dims, size_t elem, size_t &out) {
  size_t n = elem;
  for (Dim d : dims) {
    const auto ud = static_cast<size_t>(d);
    if (ud != 0 && n > std::numeric_limits<size_t>::max() / ud) return false;
    n *= ud;
  }
  out = n;
  return true;
}

}  // namespace

Error create_context(wasinn_graph *graph, std::unique_ptr<wasinn_context> &out) {
  const OrtApi *api = ort_api();
  auto ctx = std::make_unique<wasinn_context>();
  ctx->graph = graph;
  ctx->inputs.resize(graph->inputs.size());
  ctx->input_values.assign(graph->inputs.size(), nullptr);
  ctx->outputs.assign(graph->outputs.size(), nullptr);
  ctx->output_dims.resize(graph->outputs.size());
  // One OrtRunOptions per context (not per graph): terminating it must stop only this
  // context's run, not every run of the shared session.
  OrtRunOptions *ro = nullptr;
  if (Error e = take_status(api->CreateRunOptions(&ro), "creating run options")) return e;
  ctx->run_options.reset(ro);
  out = std::move(ctx);
  return {};
}

Error set_input(wasinn_context &ctx, const wasinn_tensor_id *id, const wasinn_tensor *tensor) {
  const OrtApi *api = ort_api();
  const wasinn_graph &g = *ctx.graph;
  size_t index = 0;
  if (Error e = resolve_id(g, false, id, index)) return e;
  const IoDesc &d = g.inputs[index];
  // Built only on failure: set_input is the hot path and must not allocate when shapes repeat.
  auto label = [&] { return io_label(g, false, index); };
  if (!tensor) return invalid(label() + ": no tensor given");
  if (d.kind != ONNX_TYPE_TENSOR || d.type == WASINN_TYPE_UNKNOWN)
    return {WASINN_UNSUPPORTED_OPERATION,
            label() + " is " + d.describe() + ": no wasinn tensor can be passed to it"};
  if (tensor->rank > 0 && !tensor->dims) return invalid(label() + ": tensor has no dims");
  if (!matches(d, *tensor))
    return invalid(label() + ": expected " + d.describe() + ", got " +
                   wasinn_type_name(tensor->type) + " " +
                   format_dims(std::span<const uint32_t>(tensor->dims, tensor->rank)));

  // Everything is validated before the slot changes, so a rejected tensor leaves the previous
  // input in place.
  size_t bytes = 0;
  if (!byte_size(std::span<const uint32_t>(tensor->dims, tensor->rank), element_size(d.type),
                 bytes))
    return {WASINN_TOO_LARGE, label() + ": tensor byte size overflows"};
  if (tensor->data_length != bytes)  // the host checks this too; a cheap second line of defence
    return invalid(label() + ": data is " + std::to_string(tensor->data_length) +
                   " bytes, shape needs " + std::to_string(bytes));
  if (bytes > 0 && !tensor->data) return invalid(label() + ": tensor has no data");

  InputSlot &slot = ctx.inputs[index];
  // Fast path, the steady state of a serving loop: same shape as last time, so the existing
  // OrtValue already describes the buffer and only the bytes change. No allocation.
  if (slot.value && same_dims(slot.dims, *tensor)) {
    if (bytes) std::memcpy(slot.buffer.get(), tensor->data, bytes);
    return {};
  }

  // The shape changed: describe the new one, growing the buffer only if it must.
  ctx.input_values[index] = nullptr;
  slot.value.reset();  // views the buffer, so it goes first
  slot.dims.assign(tensor->dims, tensor->dims + tensor->rank);
  if (bytes > slot.capacity || !slot.buffer) {
    slot.buffer.reset();
    // At least one byte, so an empty tensor still has a non-null address for ORT.
    const size_t cap = bytes ? bytes : 1;
    slot.buffer.reset(static_cast<std::byte *>(::operator new[](cap, std::align_val_t{64})));
    slot.capacity = cap;
  }
  if (bytes) std::memcpy(slot.buffer.get(), tensor->data, bytes);

  OrtValue *v = nullptr;
  if (OrtStatus *st = api->CreateTensorWithDataAsOrtValue(g.backend->cpu_memory.get(),
                                                          slot.buffer.get(), bytes,
                                                          slot.dims.data(), slot.dims.size(),
                                                          d.onnx_type, &v))
    return take_status(st, label());
  slot.value.reset(v);
  ctx.input_values[index] = v;
  return {};
}

Error compute(wasinn_context &ctx) {
  const OrtApi *api = ort_api();
  const wasinn_graph &g = *ctx.graph;
  std::string missing;
  for (size_t i = 0; i < ctx.inputs.size(); ++i)
    if (!ctx.input_values[i]) missing += (missing.empty() ? "" : ", ") + io_label(g, false, i);
  if (!missing.empty()) return invalid("inputs not set: " + missing);

  ctx.clear_outputs();
  // A cancel aimed at an earlier compute must not kill this one. A cancel landing between here
  // and Run's start still takes effect, since Run checks the flag as it goes.
  ctx.cancel_requested.store(false);
  if (Error e = take_status(api->RunOptionsUnsetTerminate(ctx.run_options.get()),
                            "resetting run options"))
    return e;

  OrtStatus *st = api->Run(g.session.get(), ctx.run_options.get(), g.input_names.data(),
                           ctx.input_values.data(), ctx.input_values.size(),
                           g.output_names.data(), g.output_names.size(), ctx.outputs.data());
  if (st) {
    ctx.clear_outputs();  // Run may have filled some before failing
    if (ctx.cancel_requested.load()) {
      api->ReleaseStatus(st);
      return {WASINN_TIMEOUT, "compute was cancelled"};
    }
    Error e = take_status(st, "running the model");
    e.status = WASINN_RUNTIME_ERROR;
    return e;
  }
  ctx.has_outputs = true;
  return {};
}

Error get_output(wasinn_context &ctx, const wasinn_tensor_id *id, wasinn_tensor &out) {
  const OrtApi *api = ort_api();
  const wasinn_graph &g = *ctx.graph;
  if (!ctx.has_outputs) return invalid("no outputs yet: call compute first");
  size_t index = 0;
  if (Error e = resolve_id(g, true, id, index)) return e;
  // Built only on failure (hence no take_status(call, label()) below, which would build it
  // eagerly): get_output runs once per output per inference.
  auto label = [&] { return io_label(g, true, index); };
  const OrtValue *v = ctx.outputs[index];

  ONNXType kind = ONNX_TYPE_UNKNOWN;
  if (OrtStatus *st = api->GetValueType(v, &kind)) return take_status(st, label());
  if (kind != ONNX_TYPE_TENSOR) {
    IoDesc as_value;
    as_value.kind = kind;
    return {WASINN_UNSUPPORTED_OPERATION, label() + " is " + as_value.describe() +
                                              ": wasinn can return only tensors"};
  }
  ONNXTensorElementDataType et = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
  const int64_t *shape = nullptr;  // owned by the value
  size_t rank = 0;
  if (OrtStatus *st = api->GetTensorElementTypeAndShapeDataReference(v, &et, &shape, &rank))
    return take_status(st, label());
  const wasinn_tensor_type type = to_wasinn_type(et);
  if (type == WASINN_TYPE_UNKNOWN)
    return {WASINN_UNSUPPORTED_OPERATION, label() + " has ONNX element type " +
                                              onnx_type_name(et) +
                                              ", which no wasinn tensor type expresses"};

  std::vector<uint32_t> &dims = ctx.output_dims[index];
  dims.resize(rank);  // keeps capacity: no allocation when the shape repeats
  for (size_t i = 0; i < rank; ++i) {
    if (shape[i] < 0 || shape[i] > std::numeric_limits<uint32_t>::max())
      return {WASINN_TOO_LARGE, label() + ": dimension " + std::to_string(i) + " is " +
                                    std::to_string(shape[i]) + ", beyond a wasinn u32 dim"};
    dims[i] = static_cast<uint32_t>(shape[i]);
  }
  size_t bytes = 0;
  if (!byte_size(std::span<const int64_t>(shape, rank), element_size(type), bytes))
    return {WASINN_TOO_LARGE, label() + ": tensor byte size overflows"};
  const void *data = nullptr;
  if (OrtStatus *st = api->GetTensorData(v, &data)) return take_status(st, label());

  out.type = type;
  out.rank = static_cast<uint32_t>(rank);
  out.dims = dims.data();
  out.data = data;
  out.data_length = bytes;
  return {};
}

void cancel(wasinn_context &ctx) {
  // Flag first: if Run fails because of the terminate below, compute must already see it.
  ctx.cancel_requested.store(true);
  OrtStatus *st = ort_api()->RunOptionsSetTerminate(ctx.run_options.get());
  if (st) ort_api()->ReleaseStatus(st);
}

}  // namespace wasinn_ort
