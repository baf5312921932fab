// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// set_input / compute / get_output / cancel for one context.
#include "context.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <span>

#include "graph.h"
#include "litert_log.h"
#include "types.h"

namespace wasinn::tensorflowlite {
namespace {

bool same_dims(const std::vector<uint32_t>& a, const wasinn_tensor& t) {
  return a.size() == t.rank && std::equal(a.begin(), a.end(), t.dims);
}

bool dynamic(const sdk::IoDesc& d) {
  return std::any_of(d.dims.begin(), d.dims.end(), [](int64_t v) { return v < 0; });
}

// The SDK's check of a tensor against its declared input, plus what is particular here: LiteRT
// needs a ranked type to wrap a buffer, and, as the witx ABI has no i8, a guest sends an int8
// model's raw bytes typed u8 (the same bytes, passed through unchanged). A quantized input's
// detail also shows its quantization.
Error check_tensor(const TfliteGraph& g, size_t index, const wasinn_tensor& t) {
  const auto declared = g.io(sdk::Side::input);
  const sdk::IoDesc& d = declared[index];
  if (d.carries_tensors() && d.rank < 0)
    return sdk::unsupported(sdk::io_label(declared, sdk::Side::input, index) + " is " + sdk::type_name(d.type) +
                            " of no declared rank: LiteRT cannot wrap a buffer for it");
  if (d.type == WASINN_TYPE_I8 && t.type == WASINN_TYPE_U8) {
    wasinn_tensor as_i8 = t;
    as_i8.type = WASINN_TYPE_I8;
    if (!sdk::check_input(declared, index, as_i8)) return {};
  }
  Error e = sdk::check_input(declared, index, t);  // the detail names the type the guest sent
  if (e && e.status == WASINN_INVALID_ARGUMENT) {
    // "expected i8 [-1, 64] (quantized: scale 0.003922, zero point -128), got f32 [1, 64]"
    const std::string quantization = g.tflite_io(sdk::Side::input, index).quantization();
    const size_t at = e.detail.find(d.describe());
    e.detail.insert(at == std::string::npos ? e.detail.size() : at + d.describe().size(), quantization);
  }
  return e;
}

}  // namespace

Error TfliteGraph::create_context(std::unique_ptr<TfliteContext>& out) { return TfliteContext::create(*this, out); }

bool TfliteContext::check_cancelled(void* self) {
  return static_cast<TfliteContext*>(self)->cancel_requested_.load(std::memory_order_relaxed);
}

Error TfliteContext::create(TfliteGraph& graph, std::unique_ptr<TfliteContext>& out) {
  auto ctx = std::make_unique<TfliteContext>();
  ctx->graph_ = &graph;
  if (Error e = graph.take_compiled_model(ctx->compiled_)) return e;
  const size_t inputs = graph.io(sdk::Side::input).size();
  const size_t outputs = graph.io(sdk::Side::output).size();
  ctx->inputs_.resize(inputs);
  ctx->outputs_.resize(outputs);
  ctx->run_inputs_.assign(inputs, nullptr);
  ctx->run_outputs_.assign(outputs, nullptr);
  ctx->output_layouts_.resize(outputs);
  // Best effort: without it, cancel() simply has no effect on a running compute.
  LiteRtSetCompiledModelCancellationFunction(ctx->compiled_.get(), ctx.get(), check_cancelled);
  out = std::move(ctx);
  return {};
}

// Makes `slot` a buffer of `dims` holding at least `need` bytes, keeping its memory when big
// enough. Replaced memory is retired, not freed: the compiled model may still point at it.
Error TfliteContext::reshape_slot(Slot& slot, const TfliteIo& io, const std::vector<uint32_t>& dims, size_t bytes,
                                  size_t need, const std::string& label) {
  slot.buffer.reset();
  if (need > slot.capacity || !slot.memory) {
    size_t capacity = 0;
    HostMemory fresh = allocate_host(need, capacity);
    if (!fresh) return {WASINN_TOO_LARGE, label + ": no memory for " + std::to_string(need) + " bytes"};
    if (slot.memory) retired_.push_back(std::move(slot.memory));
    slot.memory = std::move(fresh);
    slot.capacity = capacity;
  }
  LiteRtRankedTensorType type = io.ranked;
  for (size_t i = 0; i < dims.size(); ++i) type.layout.dimensions[i] = static_cast<int32_t>(dims[i]);
  LiteRtTensorBuffer b = nullptr;
  if (LiteRtStatus st = LiteRtCreateTensorBufferFromHostMemory(&type, slot.memory.get(), slot.capacity, nullptr, &b))
    return litert_error(st, label + ": wrapping its buffer");
  slot.buffer.reset(b);
  slot.dims = dims;
  slot.bytes = bytes;
  return {};
}

namespace {

size_t requirement(LiteRtCompiledModel cm, LiteRtParamIndex sig, size_t position, bool output) {
  LiteRtTensorBufferRequirements req = nullptr;
  size_t size = 0;
  const LiteRtStatus st = output ? LiteRtGetCompiledModelOutputBufferRequirements(cm, sig, position, &req)
                                 : LiteRtGetCompiledModelInputBufferRequirements(cm, sig, position, &req);
  if (st == kLiteRtStatusOk) LiteRtGetTensorBufferRequirementsBufferSize(req, &size);
  return size;
}

}  // namespace

// After an input shape changed: let LiteRT propagate shapes, then size every output buffer.
Error TfliteContext::prepare_outputs() {
  const TfliteGraph& g = *graph_;
  const auto declared = g.io(sdk::Side::output);
  if (LiteRtStatus st = LiteRtGetCompiledModelOutputTensorLayouts(compiled_.get(), g.signature(),
                                                                  output_layouts_.size(), output_layouts_.data(),
                                                                  /*update_allocation=*/true))
    return litert_error(st, "propagating the input shapes to the outputs", WASINN_INVALID_ARGUMENT);
  for (size_t i = 0; i < declared.size(); ++i) {
    const TfliteIo& io = g.tflite_io(sdk::Side::output, i);
    auto label = [&] { return sdk::io_label(declared, sdk::Side::output, i); };
    const LiteRtLayout& layout = output_layouts_[io.position];
    std::vector<uint32_t> dims(layout.rank);
    for (size_t k = 0; k < dims.size(); ++k) {
      if (layout.dimensions[k] < 0)
        return sdk::unsupported(label() +
                                " has a shape known only after running, which this "
                                "backend cannot size a buffer for");
      dims[k] = static_cast<uint32_t>(layout.dimensions[k]);
    }
    size_t bytes = 0;
    const size_t elem = std::max<size_t>(sdk::element_size(declared[i].type), 1);
    if (!sdk::byte_size(std::span<const uint32_t>(dims), elem, bytes))
      return {WASINN_TOO_LARGE, label() + ": the tensor's byte size overflows"};
    Slot& slot = outputs_[i];
    if (slot.buffer && slot.dims == dims) continue;
    const size_t need = std::max(bytes, requirement(compiled_.get(), g.signature(), io.position, true));
    if (Error e = reshape_slot(slot, io, dims, bytes, need, label())) return e;
    run_outputs_[io.position] = slot.buffer.get();
  }
  outputs_stale_ = false;
  return {};
}

Error TfliteContext::set_input(const wasinn_tensor_id& id, const wasinn_tensor& tensor) {
  const TfliteGraph& g = *graph_;
  size_t index = 0;
  if (Error e = g.resolve(sdk::Side::input, id, index)) return e;
  if (Error e = check_tensor(g, index, tensor)) return e;
  const sdk::IoDesc& d = g.io(sdk::Side::input)[index];
  const TfliteIo& io = g.tflite_io(sdk::Side::input, index);
  // Built only on failure: set_input is the hot path and must not allocate when shapes repeat.
  auto label = [&] { return sdk::io_label(g.io(sdk::Side::input), sdk::Side::input, index); };
  const size_t bytes = tensor.data_length;

  Slot& slot = inputs_[index];
  // Steady state of a serving loop: same shape as last time, so only the bytes change.
  if (slot.buffer && same_dims(slot.dims, tensor)) {
    if (bytes) std::memcpy(slot.memory.get(), tensor.data, bytes);
    return {};
  }

  // A new shape. Resize LiteRT's tensor when the model's shape has a dynamic dimension (a
  // static shape was checked equal above); outputs get re-sized before the next run.
  std::vector<uint32_t> dims(tensor.dims, tensor.dims + tensor.rank);
  if (dynamic(d)) {
    std::vector<int> as_int(dims.size());
    for (size_t i = 0; i < dims.size(); ++i) {
      if (dims[i] > static_cast<uint32_t>(std::numeric_limits<int>::max()))
        return {WASINN_TOO_LARGE, label() + ": dimension " + std::to_string(dims[i]) + " too large"};
      as_int[i] = static_cast<int>(dims[i]);
    }
    if (LiteRtStatus st = LiteRtCompiledModelResizeInputTensor(compiled_.get(), g.signature(), io.position,
                                                               as_int.data(), as_int.size())) {
      slot.buffer.reset();  // LiteRT's shape is unknown now: force a resize next time
      run_inputs_[io.position] = nullptr;
      return litert_error(st, label() + ": resizing to " + sdk::format_dims(tensor), WASINN_INVALID_ARGUMENT);
    }
    outputs_stale_ = true;
  }
  const size_t need = std::max(bytes, requirement(compiled_.get(), g.signature(), io.position, false));
  run_inputs_[io.position] = nullptr;
  if (Error e = reshape_slot(slot, io, dims, bytes, need, label())) return e;
  if (bytes) std::memcpy(slot.memory.get(), tensor.data, bytes);
  run_inputs_[io.position] = slot.buffer.get();
  return {};
}

Error TfliteContext::compute() {
  const TfliteGraph& g = *graph_;
  if (Error e = sdk::check_all_set(g.io(sdk::Side::input), [&](size_t i) {
        return run_inputs_[g.tflite_io(sdk::Side::input, i).position] != nullptr;
      }))
    return e;

  has_outputs_ = false;
  // A cancel aimed at an earlier compute must not stop this one; one during the outputs'
  // set-up must.
  cancel_requested_.store(false);
  if (outputs_stale_)
    if (Error e = prepare_outputs()) return e;
  LiteRtErrorCapture errors;  // a delegate kernel's failure reaches us only as a LiteRT log line
  const LiteRtStatus st = LiteRtRunCompiledModel(compiled_.get(), g.signature(), run_inputs_.size(), run_inputs_.data(),
                                                 run_outputs_.size(), run_outputs_.data());
  retired_.clear();  // the run bound the current buffers; the old ones are unreferenced now
  if (st != kLiteRtStatusOk) {
    if (cancel_requested_.load()) return {WASINN_TIMEOUT, "compute was cancelled"};
    std::string what = "running the model";
    if (g.delegate()) what += " with " + label(g.delegate()->spec());
    if (!errors.text().empty()) what += " (" + errors.text() + ")";
    return litert_error(st, what);
  }
  has_outputs_ = true;
  return {};
}

Error TfliteContext::get_output(const wasinn_tensor_id& id, wasinn_tensor& out) {
  const TfliteGraph& g = *graph_;
  if (!has_outputs_) return sdk::invalid("no outputs yet: call compute first");
  size_t index = 0;
  if (Error e = g.resolve(sdk::Side::output, id, index)) return e;
  const auto declared = g.io(sdk::Side::output);
  const sdk::IoDesc& d = declared[index];
  if (!d.carries_tensors())
    return sdk::unsupported(sdk::io_label(declared, sdk::Side::output, index) + " is " + d.describe() +
                            ", which no wasinn tensor type expresses");
  const Slot& slot = outputs_[index];
  out.type = d.type;
  out.rank = static_cast<uint32_t>(slot.dims.size());
  out.dims = slot.dims.data();
  out.data = slot.memory.get();
  out.data_length = slot.bytes;
  return {};
}

}  // namespace wasinn::tensorflowlite
