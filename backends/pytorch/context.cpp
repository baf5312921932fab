// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// set_input / compute / get_output for one context. compute runs forward exactly once and
// flattens its result into outputs: a tensor or scalar is one output, a tuple one per element
// (nested tuples depth-first), a list one per element, a dict one per entry in sorted key order.
#include "context.h"

#include <ATen/ops/empty.h>
#include <c10/core/InferenceMode.h>
#include <c10/util/SmallVector.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <span>
#include <string>
#include <utility>

#include "graph.h"
#include "torch_error.h"
#include "torch_log.h"
#include "torch_module.h"
#include "types.h"

namespace wasinn::pytorch {
namespace {

// One output of the last compute; its name is in the context's sdk::IoDesc of the same index.
struct OutputSlot {
  at::Tensor tensor;                   // contiguous, on the CPU; undefined for a scalar or a problem
  std::string problem;                 // why this output cannot be returned, e.g. "is a TorchScript str..."
  int32_t type = WASINN_TYPE_UNKNOWN;  // wasinn_tensor_type of tensor or scalar
  std::vector<uint32_t> dims;          // what get_output's view points into; empty for a scalar
  // A scalar result (int as i64, float as f64, bool as u8), held here rather than in a tensor
  // so that a steady loop does not allocate; scalar_bytes 0: the output is `tensor`.
  alignas(8) unsigned char scalar[8] = {};
  size_t scalar_bytes = 0;
};

}  // namespace

struct TorchContext::Tensors {
  std::vector<at::Tensor> inputs;    // undefined: not set
  std::vector<c10::IValue> scalars;  // int, float and bool arguments; None: not set
  std::vector<c10::IValue> stack;    // compute's interpreter stack, kept for its capacity
  std::vector<OutputSlot> outputs;   // parallel to TorchContext::outputs_
};

namespace {

// The input bytes go into a fresh tensor unless the last one can be overwritten: same dtype and
// shape, and referenced by nothing else (an earlier output or the module may still hold it).
bool reusable(const at::Tensor& t, c10::ScalarType st, c10::IntArrayRef sizes) {
  return t.defined() && t.scalar_type() == st && t.sizes() == sizes && t.use_count() == 1 &&
         t.storage().use_count() == 1;
}

// "input 0 ("x") f32 [2, 3]; input 1 ("scale") float 2.5": what forward was given.
std::string describe_inputs(std::span<const sdk::IoDesc> declared, const std::vector<at::Tensor>& inputs,
                            const std::vector<c10::IValue>& scalars) {
  std::string s;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const at::Tensor& t = inputs[i];
    std::string what;
    if (t.defined())
      what = sdk::type_name(to_wasinn_type(t.scalar_type()).value_or(WASINN_TYPE_UNKNOWN)) + " " +
             sdk::format_dims(std::span<const int64_t>(t.sizes().data(), t.sizes().size()));
    else if (scalars[i].isInt())
      what = "int " + std::to_string(scalars[i].toInt());
    else if (scalars[i].isDouble())
      what = "float " + c10::str(scalars[i].toDouble());
    else if (scalars[i].isBool())
      what = scalars[i].toBool() ? "bool true" : "bool false";
    else
      continue;
    s += (s.empty() ? "" : "; ") + sdk::io_label(declared, sdk::Side::input, i) + " " + what;
  }
  return s.empty() ? "none" : s;
}

void set_problem(OutputSlot& slot, std::string problem) {
  slot.tensor.reset();
  slot.problem = std::move(problem);
}

template <typename T>
void set_scalar(OutputSlot& slot, int32_t type, T value) {
  static_assert(sizeof(T) <= sizeof(slot.scalar));
  std::memcpy(slot.scalar, &value, sizeof value);
  slot.scalar_bytes = sizeof value;
  slot.type = type;
  slot.dims.clear();  // rank 0
}

// Makes slot describe v: a contiguous CPU tensor of a wasinn type, a scalar (rank 0), or a
// problem.
void fill_slot(const c10::IValue& v, OutputSlot& slot) {
  slot.scalar_bytes = 0;
  if (v.isInt()) return set_scalar<int64_t>(slot, WASINN_TYPE_I64, v.toInt());
  if (v.isDouble()) return set_scalar<double>(slot, WASINN_TYPE_F64, v.toDouble());
  if (v.isBool()) return set_scalar<uint8_t>(slot, WASINN_TYPE_U8, v.toBool() ? 1 : 0);
  if (!v.isTensor()) {
    set_problem(slot, "is a TorchScript " + v.type()->annotation_str() +
                          ", not a tensor: wasinn returns only tensors and int, float or bool "
                          "scalars");
    return;
  }
  at::Tensor t = v.toTensor();
  const auto type = to_wasinn_type(t.scalar_type());
  if (!type) {
    set_problem(slot, std::string("has torch dtype ") + c10::toString(t.scalar_type()) +
                          ", which no wasinn tensor type expresses");
    return;
  }
  if (!t.device().is_cpu()) t = t.cpu();
  t = t.contiguous();  // no copy when it already is
  slot.dims.resize(t.dim());
  for (int64_t i = 0; i < t.dim(); ++i) {
    if (t.size(i) > std::numeric_limits<uint32_t>::max()) {
      set_problem(slot, "has dimension " + std::to_string(i) + " of " + std::to_string(t.size(i)) +
                            ", beyond a wasinn u32 dim");
      return;
    }
    slot.dims[i] = static_cast<uint32_t>(t.size(i));
  }
  slot.type = *type;
  slot.tensor = std::move(t);
}

// A context's flattened outputs, filled in order. Slots and names of earlier computes are
// reused, so a steady loop does not allocate.
struct OutputList {
  std::vector<sdk::IoDesc>& io;
  std::vector<OutputSlot>& slots;
  size_t& count;

  OutputSlot& next(const std::string& name) {
    if (count == slots.size()) {
      slots.emplace_back();
      io.emplace_back();
    }
    io[count].name = name;
    OutputSlot& slot = slots[count++];
    slot.problem.clear();
    return slot;
  }
};

// Dict entries in sorted key order: strings by bytes, integers by value. Other key types
// (float, bool, tensor) have no obvious order and become one output with a problem.
void flatten_dict(const c10::impl::GenericDict& dict, OutputList& out) {
  std::vector<std::pair<c10::IValue, c10::IValue>> entries;
  entries.reserve(dict.size());
  bool all_str = true, all_int = true;
  for (const auto& e : dict) {
    all_str = all_str && e.key().isString();
    all_int = all_int && e.key().isInt();
    entries.emplace_back(e.key(), e.value());
  }
  if (!all_str && !all_int) {
    set_problem(out.next(""),
                "is a dict whose keys are neither all strings nor all integers, so "
                "its outputs have no defined order");
    return;
  }
  std::sort(entries.begin(), entries.end(), [&](const auto& a, const auto& b) {
    return all_str ? a.first.toStringRef() < b.first.toStringRef() : a.first.toInt() < b.first.toInt();
  });
  for (const auto& [key, value] : entries)
    fill_slot(value, out.next(all_str ? key.toStringRef() : std::to_string(key.toInt())));
}

// A tuple's elements depth-first, nested tuples included, each named as the declaration names
// the output of that index (graph.cpp flattens the declared type the same way).
void flatten_tuple(const c10::IValue& tuple, std::span<const sdk::IoDesc> declared, OutputList& out) {
  for (const c10::IValue& e : tuple.toTupleRef().elements()) {
    if (e.isTuple()) {
      flatten_tuple(e, declared, out);
      continue;
    }
    const size_t i = out.count;
    fill_slot(e, out.next(i < declared.size() ? declared[i].name : sdk::default_output_name(i)));
  }
}

// Names: the declared ones (NamedTuple field paths, else "output<i>"), a dict's keys, a list's
// elements "output<i>".
void flatten(const c10::IValue& result, std::span<const sdk::IoDesc> declared, OutputList& out) {
  if (result.isTuple()) {
    flatten_tuple(result, declared, out);
  } else if (result.isList()) {
    for (const c10::IValue& v : result.toListRef()) fill_slot(v, out.next(sdk::default_output_name(out.count)));
  } else if (result.isGenericDict()) {
    flatten_dict(result.toGenericDict(), out);
  } else {
    fill_slot(result, out.next(declared.empty() ? sdk::default_output_name(0) : declared[0].name));
  }
}

}  // namespace

Error TorchGraph::create_context(std::unique_ptr<TorchContext>& out) { return TorchContext::create(*this, out); }

TorchContext::TorchContext() = default;
TorchContext::~TorchContext() = default;

Error TorchContext::create(const TorchGraph& graph, std::unique_ptr<TorchContext>& out) {
  auto ctx = std::make_unique<TorchContext>();
  ctx->graph_ = &graph;
  ctx->tensors_ = std::make_unique<Tensors>();
  ctx->tensors_->inputs.resize(graph.io(sdk::Side::input).size());
  ctx->tensors_->scalars.resize(graph.io(sdk::Side::input).size());
  out = std::move(ctx);
  return {};
}

Error TorchContext::set_input(const wasinn_tensor_id& id, const wasinn_tensor& tensor) {
  const auto declared = graph_->io(sdk::Side::input);
  size_t index = 0;
  if (Error e = sdk::resolve_id(declared, sdk::Side::input, id, index)) return e;
  // Built only on failure: set_input runs once per input per inference.
  auto label = [&] { return sdk::io_label(declared, sdk::Side::input, index); };
  const InputArg& arg = graph_->module().args[index];
  if (arg.kind == ArgKind::unsupported)
    return sdk::unsupported(label() + " is a TorchScript " + arg.type_name +
                            ": wasinn passes only tensors and int, float or bool scalars" +
                            (arg.fallback ? " (it keeps its default)" : ""));
  // TorchScript declares no dtype or shape to check a tensor against (libtorch finds a wrong
  // one inside forward); these are the host's checks again, as a cheap second line of defence.
  if (tensor.rank > 0 && !tensor.dims) return sdk::invalid(label() + ": tensor has no dims");
  const auto st = to_scalar_type(tensor.type);
  if (!st)
    return sdk::invalid(label() + ": tensor type " + std::to_string(tensor.type) + " is not a wasinn tensor type");
  const std::span<const uint32_t> dims(tensor.dims, tensor.rank);
  size_t bytes = 0;
  if (!sdk::byte_size(dims, sdk::element_size(tensor.type), bytes))
    return {WASINN_TOO_LARGE, label() + ": tensor byte size overflows"};
  if (tensor.data_length != bytes)
    return sdk::invalid(label() + ": " + sdk::type_name(tensor.type) + " " + sdk::format_dims(tensor) + " needs " +
                        std::to_string(bytes) + " bytes, got " + std::to_string(tensor.data_length));
  if (bytes > 0 && !tensor.data) return sdk::invalid(label() + ": tensor has no data");

  if (is_scalar(arg.kind)) {
    ScalarValue v;
    if (Error e = read_scalar(arg.kind, arg.type_name, declared, index, tensor, v)) return e;
    c10::IValue& slot = tensors_->scalars[index];
    switch (arg.kind) {
      case ArgKind::int_scalar: slot = v.i; break;
      case ArgKind::float_scalar: slot = v.f; break;
      default: slot = v.b; break;
    }
    return {};
  }
  return catch_torch([&]() -> Error {
    const c10::SmallVector<int64_t, 8> sizes(dims.begin(), dims.end());
    at::Tensor& slot = tensors_->inputs[index];
    if (!reusable(slot, *st, sizes)) slot = at::empty(sizes, at::TensorOptions().dtype(*st));
    if (bytes) std::memcpy(slot.data_ptr(), tensor.data, bytes);
    return {};
  });
}

Error TorchContext::compute() {
  const TorchModule& m = graph_->module();
  const auto declared = graph_->io(sdk::Side::input);
  Tensors& t = *tensors_;
  // An unset input with a default in forward's schema takes the default.
  if (Error e = sdk::check_all_set(declared, [&](size_t i) {
        return t.inputs[i].defined() || !t.scalars[i].isNone() || m.args[i].fallback.has_value();
      }))
    return e;

  return catch_torch([&]() -> Error {
    TorchWarnings warnings;
    // The interpreter's stack: self, then forward's arguments. Reused, so a steady loop does not
    // reallocate it.
    std::vector<c10::IValue>& stack = t.stack;
    stack.clear();
    stack.push_back(m.module._ivalue());
    for (size_t i = 0; i < declared.size(); ++i) {
      const at::Tensor& in = t.inputs[i];
      if (in.defined())
        stack.emplace_back(m.device.is_cpu() ? in : in.to(m.device));
      else if (!t.scalars[i].isNone())
        stack.push_back(t.scalars[i]);
      else
        stack.push_back(*m.args[i].fallback);
    }

    has_outputs_ = false;
    output_count_ = 0;
    for (OutputSlot& s : t.outputs) s.tensor.reset();  // drop last run's tensors now
    // Inference mode: no autograd records or version counters, and a thread-local guard, so
    // contexts on other threads are unaffected.
    c10::InferenceMode guard;
    c10::IValue result;
    try {
      // What Method::operator() does, minus its by-value stack: check the arguments against
      // forward's schema, run, take the result.
      torch::jit::Function& forward = m.forward->function();
      forward.getSchema().checkAndNormalizeInputs(stack);
      forward.run(stack);
      result = std::move(stack.front());
      stack.clear();
    } catch (const std::exception& e) {
      stack.clear();
      return sdk::runtime_error("forward failed: " + exception_summary(e) +
                                " (inputs: " + describe_inputs(declared, t.inputs, t.scalars) + ")");
    }
    OutputList out{outputs_, t.outputs, output_count_};
    flatten(result, graph_->io(sdk::Side::output), out);
    has_outputs_ = true;
    return {};
  });
}

Error TorchContext::get_output(const wasinn_tensor_id& id, wasinn_tensor& out) {
  if (!has_outputs_) return sdk::invalid("no outputs yet: call compute first");
  // Resolved against what the last forward returned, not the declaration: a list's or dict's
  // outputs exist only after a compute.
  const std::span<const sdk::IoDesc> io(outputs_.data(), output_count_);
  size_t index = 0;
  if (Error e = sdk::resolve_id(io, sdk::Side::output, id, index)) return e;
  const OutputSlot& s = tensors_->outputs[index];
  if (!s.problem.empty()) return sdk::unsupported(sdk::io_label(io, sdk::Side::output, index) + " " + s.problem);
  return catch_torch([&]() -> Error {
    out.type = s.type;
    out.rank = static_cast<uint32_t>(s.dims.size());
    out.dims = s.dims.data();
    if (s.scalar_bytes) {
      out.data = s.scalar;
      out.data_length = s.scalar_bytes;
      return {};
    }
    out.data = s.tensor.numel() ? s.tensor.data_ptr() : nullptr;
    out.data_length = s.tensor.nbytes();
    return {};
  });
}

}  // namespace wasinn::pytorch
