// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// set_input / compute / get_output / cancel for one context.
#include "context.h"

#include <cstring>
#include <limits>
#include <span>
#include <string>

#include "backend.h"
#include "graph.h"
#include "types.h"

namespace wasinn::onnxruntime {
namespace {

bool same_dims(const std::vector<int64_t>& a, const wasinn_tensor& t) {
  if (a.size() != t.rank) return false;
  for (uint32_t i = 0; i < t.rank; ++i)
    if (a[i] != static_cast<int64_t>(t.dims[i])) return false;
  return true;
}

}  // namespace

Error OrtGraph::create_context(std::unique_ptr<OrtContext>& out) { return OrtContext::create(*this, out); }

OrtContext::~OrtContext() {
  clear_outputs();
  for (InputSlot& slot : inputs_) {
    slot.value.reset();  // views the buffer, so it goes first
    graph_->spare_inputs().give(std::move(slot.buffer));
  }
}

void OrtContext::clear_outputs() {
  const OrtApi* api = ort_api();
  for (OrtValue*& v : outputs_) {
    if (v) api->ReleaseValue(v);
    v = nullptr;
  }
  has_outputs_ = false;
}

Error OrtContext::create(OrtGraph& graph, std::unique_ptr<OrtContext>& out) {
  const OrtApi* api = ort_api();
  auto ctx = std::make_unique<OrtContext>();
  ctx->graph_ = &graph;
  const size_t inputs = graph.io(sdk::Side::input).size();
  const size_t outputs = graph.io(sdk::Side::output).size();
  ctx->inputs_.resize(inputs);
  ctx->input_values_.assign(inputs, nullptr);
  ctx->outputs_.assign(outputs, nullptr);
  ctx->output_dims_.resize(outputs);
  // One OrtRunOptions per context (not per graph): terminating it must stop only this
  // context's run, not every run of the shared session.
  OrtRunOptions* ro = nullptr;
  if (Error e = take_status(api->CreateRunOptions(&ro), "creating run options")) return e;
  ctx->run_options_.reset(ro);
  out = std::move(ctx);
  return {};
}

Error OrtContext::set_input(const wasinn_tensor_id& id, const wasinn_tensor& tensor) {
  const OrtApi* api = ort_api();
  const auto declared = graph_->io(sdk::Side::input);
  size_t index = 0;
  if (Error e = sdk::resolve_id(declared, sdk::Side::input, id, index)) return e;
  // Everything is validated before the slot changes, so a rejected tensor leaves the previous
  // input in place.
  if (Error e = sdk::check_input(declared, index, tensor)) return e;
  const size_t bytes = tensor.data_length;

  InputSlot& slot = inputs_[index];
  // Fast path, the steady state of a serving loop: same shape as last time, so the existing
  // OrtValue already describes the buffer and only the bytes change. No allocation.
  if (slot.value && same_dims(slot.dims, tensor)) {
    if (bytes) std::memcpy(slot.buffer.bytes.get(), tensor.data, bytes);
    return {};
  }

  // The shape changed: describe the new one, growing the buffer only if it must.
  input_values_[index] = nullptr;
  slot.value.reset();  // views the buffer, so it goes first
  slot.dims.assign(tensor.dims, tensor.dims + tensor.rank);
  if (bytes > slot.buffer.capacity || !slot.buffer.bytes) {
    graph_->spare_inputs().give(std::move(slot.buffer));
    slot.buffer = graph_->spare_inputs().take(bytes);
  }
  if (bytes) std::memcpy(slot.buffer.bytes.get(), tensor.data, bytes);

  OrtValue* v = nullptr;
  if (OrtStatus* st = api->CreateTensorWithDataAsOrtValue(graph_->backend().cpu_memory(), slot.buffer.bytes.get(),
                                                          bytes, slot.dims.data(), slot.dims.size(),
                                                          graph_->input_kind(index).onnx_type, &v))
    return take_status(st, sdk::io_label(declared, sdk::Side::input, index));
  slot.value.reset(v);
  input_values_[index] = v;
  return {};
}

Error OrtContext::compute() {
  const OrtApi* api = ort_api();
  if (Error e = sdk::check_all_set(graph_->io(sdk::Side::input), [&](size_t i) { return input_values_[i] != nullptr; }))
    return e;

  clear_outputs();
  // A cancel aimed at an earlier compute must not kill this one. A cancel landing between here
  // and Run's start still takes effect, since Run checks the flag as it goes.
  cancel_requested_.store(false);
  if (Error e = take_status(api->RunOptionsUnsetTerminate(run_options_.get()), "resetting run options")) return e;

  const CancellableRunLog quiet_if_cancelled(cancel_requested_);
  OrtStatus* st =
      api->Run(graph_->session(), run_options_.get(), graph_->input_names().data(), input_values_.data(),
               input_values_.size(), graph_->output_names().data(), graph_->output_names().size(), outputs_.data());
  if (st) {
    clear_outputs();  // Run may have filled some before failing
    if (cancel_requested_.load()) {
      api->ReleaseStatus(st);
      return {WASINN_TIMEOUT, "compute was cancelled"};
    }
    Error e = take_status(st, "running the model");
    e.status = WASINN_RUNTIME_ERROR;
    return e;
  }
  has_outputs_ = true;
  return {};
}

Error OrtContext::get_output(const wasinn_tensor_id& id, wasinn_tensor& out) {
  const OrtApi* api = ort_api();
  if (!has_outputs_) return sdk::invalid("no outputs yet: call compute first");
  const auto declared = graph_->io(sdk::Side::output);
  size_t index = 0;
  if (Error e = sdk::resolve_id(declared, sdk::Side::output, id, index)) return e;
  // Built only on failure (hence no take_status(call, label()) below, which would build it
  // eagerly): get_output runs once per output per inference.
  auto label = [&] { return sdk::io_label(declared, sdk::Side::output, index); };
  const OrtValue* v = outputs_[index];

  // IsTensor, not GetValueType, on the hot path: the latter builds a whole OrtTypeInfo
  // (about 1.5 k instructions per call); the kind is asked for only to word the error.
  int is_tensor = 0;
  if (OrtStatus* st = api->IsTensor(v, &is_tensor)) return take_status(st, label());
  if (!is_tensor) {
    ONNXType kind = ONNX_TYPE_UNKNOWN;
    if (OrtStatus* st = api->GetValueType(v, &kind)) return take_status(st, label());
    return sdk::unsupported(label() + " is not a tensor but " + kind_name(kind) + ": wasinn can return only tensors");
  }
  ONNXTensorElementDataType et = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
  const int64_t* shape = nullptr;  // owned by the value
  size_t rank = 0;
  if (OrtStatus* st = api->GetTensorElementTypeAndShapeDataReference(v, &et, &shape, &rank))
    return take_status(st, label());
  const wasinn_tensor_type type = to_wasinn_type(et);
  if (type == WASINN_TYPE_UNKNOWN)
    return sdk::unsupported(label() + " has ONNX element type " + onnx_type_name(et) +
                            ", which no wasinn tensor type expresses");

  std::vector<uint32_t>& dims = output_dims_[index];
  dims.resize(rank);  // keeps capacity: no allocation when the shape repeats
  for (size_t i = 0; i < rank; ++i) {
    if (shape[i] < 0 || shape[i] > std::numeric_limits<uint32_t>::max())
      return {WASINN_TOO_LARGE, label() + ": dimension " + std::to_string(i) + " is " + std::to_string(shape[i]) +
                                    ", beyond a wasinn u32 dim"};
    dims[i] = static_cast<uint32_t>(shape[i]);
  }
  size_t bytes = 0;
  if (!sdk::byte_size(std::span<const int64_t>(shape, rank), sdk::element_size(type), bytes))
    return {WASINN_TOO_LARGE, label() + ": the tensor's byte size overflows"};
  const void* data = nullptr;
  if (OrtStatus* st = api->GetTensorData(v, &data)) return take_status(st, label());

  out.type = type;
  out.rank = static_cast<uint32_t>(rank);
  out.dims = dims.data();
  out.data = data;
  out.data_length = bytes;
  return {};
}

void OrtContext::cancel() noexcept {
  // Flag first: if Run fails because of the terminate below, compute must already see it.
  cancel_requested_.store(true);
  OrtStatus* st = ort_api()->RunOptionsSetTerminate(run_options_.get());
  if (st) ort_api()->ReleaseStatus(st);
}

}  // namespace wasinn::onnxruntime
