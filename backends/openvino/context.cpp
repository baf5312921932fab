// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// set_input / compute / get_output / cancel for one context.
#include "context.h"

#include <openvino/runtime/exception.hpp>

#include <cstring>
#include <limits>
#include <string>

#include "graph.h"
#include "types.h"

namespace wasinn::openvino {

Error OvGraph::create_context(std::unique_ptr<OvContext>& out) { return OvContext::create(*this, out); }

Error OvContext::create(OvGraph& graph, std::unique_ptr<OvContext>& out) {
  auto ctx = std::make_unique<OvContext>();
  ctx->graph_ = &graph;
  try {
    ctx->request_ = graph.compiled().create_infer_request();
  } catch (const std::exception& e) {
    return from_exception(WASINN_RUNTIME_ERROR, "init_execution_context: creating an infer request", e);
  }
  const size_t outputs = graph.io(sdk::Side::output).size();
  ctx->input_set_.assign(graph.io(sdk::Side::input).size(), false);
  ctx->held_outputs_.resize(outputs);
  ctx->output_dims_.resize(outputs);
  out = std::move(ctx);
  return {};
}

Error OvContext::set_input(const wasinn_tensor_id& id, const wasinn_tensor& tensor) {
  size_t index = 0;
  if (Error e = graph_->resolve_id(sdk::Side::input, id, index)) return e;
  if (Error e = graph_->check_input(index, tensor)) return e;
  const size_t bytes = tensor.data_length;

  scratch_shape_.assign(tensor.dims, tensor.dims + tensor.rank);
  try {
    // The request's own tensor: OpenVINO allocated it where the device reads it, and set_shape
    // reallocates only when the shape grows, so the bytes are copied exactly once.
    ov::Tensor t = request_.get_input_tensor(index);
    if (t.get_shape() != scratch_shape_) t.set_shape(scratch_shape_);
    if (bytes) std::memcpy(t.data(), tensor.data, bytes);
  } catch (const std::exception& e) {
    input_set_[index] = false;  // the tensor may be half-written or mis-shaped now
    return from_exception(WASINN_RUNTIME_ERROR, sdk::io_label(graph_->io(sdk::Side::input), sdk::Side::input, index),
                          e);
  }
  input_set_[index] = true;
  return {};
}

Error OvContext::compute() {
  if (Error e = sdk::check_all_set(graph_->io(sdk::Side::input), [&](size_t i) { return input_set_[i]; })) return e;

  has_outputs_ = false;
  // A cancel aimed at an earlier compute must not stop this one.
  cancel_requested_.store(false);
  try {
    // OpenVINO's CPU plugin honours cancel() only for an asynchronous run (a synchronous infer()
    // ran to the end in every test), at the cost of one hand-off to its stream thread; the graph
    // takes that path only when the host may cancel or the config asks (see config.h).
    if (graph_->cancellable()) {
      request_.start_async();
      request_.wait();
    } else {
      request_.infer();
    }
  } catch (const ov::Cancelled&) {
    return {WASINN_TIMEOUT, "compute was cancelled"};
  } catch (const std::exception& e) {
    if (cancel_requested_.load()) return {WASINN_TIMEOUT, "compute was cancelled"};
    return from_exception(WASINN_RUNTIME_ERROR, "compute", e);
  }
  has_outputs_ = true;
  return {};
}

Error OvContext::get_output(const wasinn_tensor_id& id, wasinn_tensor& out) {
  if (!has_outputs_) return sdk::invalid("get_output: no outputs yet: call compute first");
  size_t index = 0;
  if (Error e = graph_->resolve_id(sdk::Side::output, id, index)) return e;
  // Built only on failure: get_output runs once per output per inference.
  auto label = [&] { return sdk::io_label(graph_->io(sdk::Side::output), sdk::Side::output, index); };
  ov::Tensor& t = held_outputs_[index];
  try {
    t = request_.get_output_tensor(index);
    if (!t.is_continuous()) return sdk::runtime_error(label() + ": OpenVINO returned a strided tensor");
  } catch (const std::exception& e) {
    return from_exception(WASINN_RUNTIME_ERROR, label(), e);
  }
  const wasinn_tensor_type type = to_wasinn_type(t.get_element_type());
  if (type == WASINN_TYPE_UNKNOWN)
    return sdk::unsupported(label() + " has element type " + t.get_element_type().get_type_name() +
                            ", which no wasinn tensor type expresses");
  const ov::Shape& shape = t.get_shape();
  std::vector<uint32_t>& dims = output_dims_[index];
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

void OvContext::cancel() noexcept {
  // Flag first: if infer fails because of the cancel below, compute must already see it.
  cancel_requested_.store(true);
  try {
    request_.cancel();
  } catch (...) {
    // Nothing to cancel (no inference running) is not an error for the caller.
  }
}

}  // namespace wasinn::openvino
