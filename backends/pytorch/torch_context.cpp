// set_input / compute / get_output for one context. compute runs forward exactly once and
// flattens its result into outputs: a tensor is one output, a tuple or list one per element,
// a dict one per entry in sorted key order.
#include <ATen/ops/empty.h>
#include <c10/core/InferenceMode.h>
#include <c10/util/SmallVector.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>
#include <string_view>

#include "torch_objects.h"
#include "torch_ops.h"
#include "torch_types.h"

namespace wasinn_torch {
namespace {

// Index of the input or output `id` names. Names are forward's argument names for inputs and
// dict keys / NamedTuple fields for outputs.
template <typename Named>
Error resolve(const std::vector<Named> &items, size_t count, const char *noun,
              const wasinn_tensor_id *id, size_t &index) {
  if (!id) return invalid(std::string("no ") + noun + " id given");
  if (!id->name) {
    if (id->index < count) {
      index = id->index;
      return {};
    }
    return invalid(std::string(noun) + " index " + std::to_string(id->index) + " is out of range: " +
                   (count == 0 ? std::string("there are none")
                               : "valid indices are 0.." + std::to_string(count - 1)));
  }
  const std::string_view wanted(id->name, id->name_length);
  for (size_t i = 0; i < count; ++i)
    if (items[i].name == wanted) {
      index = i;
      return {};
    }
  std::string names;  // built only on failure: lookups by name are on the hot path
  for (size_t i = 0; i < count; ++i)
    if (!items[i].name.empty()) names += (names.empty() ? "\"" : ", \"") + items[i].name + "\"";
  return invalid(std::string("no ") + noun + " named \"" + std::string(wanted) + "\" (named " +
                 noun + "s: " + (names.empty() ? std::string("none") : names) + ")");
}

// The input bytes go into a fresh tensor unless the last one can be overwritten: same dtype and
// shape, and referenced by nothing else (an earlier output or the module may still hold it).
bool reusable(const at::Tensor &t, c10::ScalarType st, c10::IntArrayRef sizes) {
  return t.defined() && t.scalar_type() == st && t.sizes() == sizes && t.use_count() == 1 &&
         t.storage().use_count() == 1;
}

std::string describe_inputs(const wasinn_context &ctx) {
  std::string s;
  for (size_t i = 0; i < ctx.inputs.size(); ++i) {
    const at::Tensor &t = ctx.inputs[i];
    if (!t.defined()) continue;
    std::string dims;
    for (int64_t d : t.sizes()) dims += (dims.empty() ? "" : ", ") + std::to_string(d);
    s += (s.empty() ? "" : "; ") + input_label(ctx.graph->inputs, i) + " " +
         wasinn_type_name(to_wasinn_type(t.scalar_type()).value_or(WASINN_TYPE_UNKNOWN)) + " [" +
         dims + "]";
  }
  return s.empty() ? "none" : s;
}

void set_problem(OutputSlot &slot, std::string problem) {
  slot.tensor.reset();
  slot.problem = std::move(problem);
}

// Makes slot describe v: a contiguous CPU tensor of a wasinn type, or a problem.
void fill_slot(const c10::IValue &v, std::string name, OutputSlot &slot) {
  slot.name = std::move(name);
  slot.problem.clear();
  if (!v.isTensor()) {
    set_problem(slot, "is a TorchScript " + v.type()->annotation_str() +
                          ", not a tensor: wasinn returns only tensors");
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

OutputSlot &next_slot(wasinn_context &ctx) {
  if (ctx.output_count == ctx.outputs.size()) ctx.outputs.emplace_back();
  return ctx.outputs[ctx.output_count++];
}

// Dict entries in sorted key order: strings by bytes, integers by value. Other key types
// (float, bool, tensor) have no obvious order and become one output with a problem.
void flatten_dict(const c10::impl::GenericDict &dict, wasinn_context &ctx) {
  std::vector<std::pair<c10::IValue, c10::IValue>> entries;
  entries.reserve(dict.size());
  bool all_str = true, all_int = true;
  for (const auto &e : dict) {
    all_str = all_str && e.key().isString();
    all_int = all_int && e.key().isInt();
    entries.emplace_back(e.key(), e.value());
  }
  if (!all_str && !all_int) {
    OutputSlot &slot = next_slot(ctx);
    slot.name.clear();
    set_problem(slot, "is a dict whose keys are neither all strings nor all integers, so its "
                      "outputs have no defined order");
    return;
  }
  std::sort(entries.begin(), entries.end(), [&](const auto &a, const auto &b) {
    return all_str ? a.first.toStringRef() < b.first.toStringRef() : a.first.toInt() < b.first.toInt();
  });
  for (const auto &[key, value] : entries)
    fill_slot(value, all_str ? key.toStringRef() : std::to_string(key.toInt()), next_slot(ctx));
}

void flatten(const c10::IValue &result, wasinn_context &ctx) {
  const auto &declared = ctx.graph->outputs;
  if (result.isTuple()) {
    const auto &elems = result.toTupleRef().elements();
    for (size_t i = 0; i < elems.size(); ++i)
      fill_slot(elems[i], i < declared.size() ? declared[i].name : std::string(), next_slot(ctx));
  } else if (result.isList()) {
    for (const c10::IValue &v : result.toListRef()) fill_slot(v, {}, next_slot(ctx));
  } else if (result.isGenericDict()) {
    flatten_dict(result.toGenericDict(), ctx);
  } else {
    fill_slot(result, {}, next_slot(ctx));
  }
}

}  // namespace

Error create_context(wasinn_graph &graph, wasinn_context **out) {
  auto ctx = std::make_unique<wasinn_context>();
  ctx->graph = &graph;
  ctx->inputs.resize(graph.inputs.size());
  *out = ctx.release();
  return {};
}

void release_context(wasinn_context *context) { delete context; }

Error set_input(wasinn_context &ctx, const wasinn_tensor_id *id, const wasinn_tensor *tensor) {
  const auto &inputs = ctx.graph->inputs;
  size_t index = 0;
  if (Error e = resolve(inputs, inputs.size(), "input", id, index)) return e;
  const InputDesc &d = inputs[index];
  if (!d.takes_tensor)
    return {WASINN_UNSUPPORTED_OPERATION,
            input_label(inputs, index) + " is a TorchScript " + d.type_name +
                ", not a tensor: wasinn passes only tensors" +
                (d.fallback ? " (it keeps its default)" : "")};
  if (!tensor) return invalid(input_label(inputs, index) + ": no tensor given");
  if (tensor->rank > 0 && !tensor->dims) return invalid(input_label(inputs, index) + ": tensor has no dims");
  const auto st = to_scalar_type(tensor->type);
  if (!st) return invalid(input_label(inputs, index) + ": tensor type " +
                          std::to_string(tensor->type) + " is not a wasinn tensor type");

  c10::SmallVector<int64_t, 8> sizes;
  size_t bytes = element_size(static_cast<wasinn_tensor_type>(tensor->type));
  for (uint32_t i = 0; i < tensor->rank; ++i) {
    const uint32_t d = tensor->dims[i];
    if (d != 0 && bytes > std::numeric_limits<size_t>::max() / d)
      return {WASINN_TOO_LARGE, input_label(inputs, index) + ": tensor byte size overflows"};
    bytes *= d;
    sizes.push_back(d);
  }
  if (tensor->data_length != bytes)  // the host checks this too; a cheap second line of defence
    return invalid(input_label(inputs, index) + ": " +
                   describe(tensor->type, {tensor->dims, tensor->rank}) + " needs " +
                   std::to_string(bytes) + " bytes, got " + std::to_string(tensor->data_length));
  if (bytes > 0 && !tensor->data) return invalid(input_label(inputs, index) + ": tensor has no data");

  at::Tensor &slot = ctx.inputs[index];
  if (!reusable(slot, *st, sizes)) slot = at::empty(sizes, at::TensorOptions().dtype(*st));
  if (bytes) std::memcpy(slot.data_ptr(), tensor->data, bytes);
  return {};
}

Error compute(wasinn_context &ctx) {
  const wasinn_graph &g = *ctx.graph;
  // The interpreter's stack: self, then forward's arguments. Reused, so a steady loop does not
  // reallocate it.
  std::vector<c10::IValue> &stack = ctx.stack;
  stack.clear();
  stack.push_back(g.module._ivalue());
  std::string missing;
  for (size_t i = 0; i < g.inputs.size(); ++i) {
    const at::Tensor &t = ctx.inputs[i];
    if (t.defined())
      stack.emplace_back(g.device.is_cpu() ? t : t.to(g.device));
    else if (g.inputs[i].fallback)
      stack.push_back(*g.inputs[i].fallback);
    else
      missing += (missing.empty() ? "" : ", ") + input_label(g.inputs, i);
  }
  if (!missing.empty()) {
    stack.clear();
    return invalid("forward takes " + std::to_string(g.inputs.size()) + " input" +
                   (g.inputs.size() == 1 ? "" : "s") + "; not set: " + missing);
  }

  ctx.has_outputs = false;
  ctx.output_count = 0;
  for (OutputSlot &s : ctx.outputs) s.tensor.reset();  // drop last run's tensors now
  // Inference mode: no autograd records or version counters, and a thread-local guard, so
  // contexts on other threads are unaffected.
  c10::InferenceMode guard;
  c10::IValue result;
  try {
    // What Method::operator() does, minus its by-value stack: check the arguments against
    // forward's schema, run, take the result.
    torch::jit::Function &forward = g.forward->function();
    forward.getSchema().checkAndNormalizeInputs(stack);
    forward.run(stack);
    result = std::move(stack.front());
    stack.clear();
  } catch (const std::exception &e) {
    stack.clear();
    return {WASINN_RUNTIME_ERROR,
            "forward failed: " + exception_summary(e) + " (inputs: " + describe_inputs(ctx) + ")"};
  }
  flatten(result, ctx);
  ctx.has_outputs = true;
  return {};
}

Error get_output(wasinn_context &ctx, const wasinn_tensor_id *id, wasinn_tensor &out) {
  if (!ctx.has_outputs) return invalid("no outputs yet: call compute first");
  size_t index = 0;
  if (Error e = resolve(ctx.outputs, ctx.output_count, "output", id, index)) return e;
  const OutputSlot &s = ctx.outputs[index];
  if (!s.problem.empty())
    return {WASINN_UNSUPPORTED_OPERATION, "output " + std::to_string(index) + " " + s.problem};
  out.type = s.type;
  out.rank = static_cast<uint32_t>(s.dims.size());
  out.dims = s.dims.data();
  out.data = s.tensor.numel() ? s.tensor.data_ptr() : nullptr;
  out.data_length = s.tensor.nbytes();
  return {};
}

}  // namespace wasinn_torch
