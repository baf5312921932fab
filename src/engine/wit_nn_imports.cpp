#include "engine/wit_nn_imports.h"

#include <exception>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "abi/nn_call_log.h"
#include "abi/wit_nn.h"
#include "engine/guest_state.h"
#include "engine/wasmtime_ptr.h"

namespace wasinn {

namespace {

using wit_nn::Version;
using Val = wasmtime_component_val_t;

enum class Res : uint32_t { tensor, graph, context, error };

// Host resource types are plain numbers to Wasmtime: one per version and resource, so a
// handle of one version's tensor is never taken for another's.
uint32_t resource_type(Version v, Res r) { return 0x4e4e0000u | (static_cast<uint32_t>(v) << 4) | static_cast<uint32_t>(r); }

enum class Op {
  tensor_new, tensor_dimensions, tensor_ty, tensor_data,
  error_new, error_code, error_data,
  load, load_by_name, init_execution_context,
  compute_named, set_input, compute, get_output,
};

struct FuncSpec {
  Version version;
  Op op;
  std::string_view interface;  // for messages: "tensor"
  std::string_view name;       // the import's name: "[constructor]tensor"
};

// A guest's misuse the canonical ABI cannot express as an error value (the host traps).
struct Trap {
  std::string message;
};

wit_nn::WitSession& session_of(wasmtime_context_t* cx) {
  auto* state = static_cast<GuestState*>(wasmtime_context_get_data(cx));
  if (!state || !state->wit) throw Trap{"wasi-nn is not enabled for this store"};
  return *state->wit;
}

struct Args {
  const FuncSpec& spec;
  wasmtime_context_t* cx;
  Val* vals;
  size_t count;

  const Val& at(size_t i, uint8_t kind, const char* what) const {
    if (i >= count || vals[i].kind != kind) {
      throw Trap{fmt::format("wasi:nn/{}@{}#{}: argument {} is not {} (the component's import has another type)",
                             spec.interface, wit_nn::version_name(spec.version), spec.name, i + 1, what)};
    }
    return vals[i];
  }
  uint32_t rep(size_t i, Res r) const { return rep_of(at(i, WASMTIME_COMPONENT_RESOURCE, "a resource"), r); }
  uint32_t rep_of(const Val& v, Res r) const {
    if (v.kind != WASMTIME_COMPONENT_RESOURCE) throw Trap{"a wasi-nn resource was expected"};
    wasmtime_component_resource_host_t* host = nullptr;
    if (ErrorPtr err(wasmtime_component_resource_any_to_host(cx, v.of.resource, &host)); err) {
      throw Trap{fmt::format("wasi:nn/{}#{}: {}", spec.interface, spec.name, message_of(err.get()))};
    }
    const uint32_t rep = wasmtime_component_resource_host_rep(host);
    const uint32_t type = wasmtime_component_resource_host_type(host);
    wasmtime_component_resource_host_delete(host);
    if (type != resource_type(spec.version, r)) {
      throw Trap{fmt::format("wasi:nn/{}#{}: a resource of another type was passed", spec.interface, spec.name)};
    }
    return rep;
  }
  std::string_view string(size_t i) const {
    const Val& v = at(i, WASMTIME_COMPONENT_STRING, "a string");
    return {v.of.string.data, v.of.string.size};
  }
  std::string_view enum_case(size_t i) const {
    const Val& v = at(i, WASMTIME_COMPONENT_ENUM, "an enum");
    return {v.of.enumeration.data, v.of.enumeration.size};
  }
  const wasmtime_component_vallist_t& list(size_t i) const { return at(i, WASMTIME_COMPONENT_LIST, "a list").of.list; }
  // list<u8>: one value per byte is how the C API carries it; copied into bytes once here.
  std::vector<uint8_t> bytes(const wasmtime_component_vallist_t& l) const {
    std::vector<uint8_t> out(l.size);
    for (size_t k = 0; k < l.size; ++k) {
      if (l.data[k].kind != WASMTIME_COMPONENT_U8) throw Trap{"a list<u8> holds another type"};
      out[k] = l.data[k].of.u8;
    }
    return out;
  }
};

// Results are allocated with Wasmtime's own constructors: it frees them after the call.
void put_string(Val* out, std::string_view s) {
  out->kind = WASMTIME_COMPONENT_STRING;
  wasm_byte_vec_new(&out->of.string, s.size(), s.data());
}

void put_enum(Val* out, std::string_view s) {
  out->kind = WASMTIME_COMPONENT_ENUM;
  wasm_byte_vec_new(&out->of.enumeration, s.size(), s.data());
}

void put_u8_list(Val* out, std::span<const uint8_t> bytes) {
  out->kind = WASMTIME_COMPONENT_LIST;
  wasmtime_component_vallist_new_uninit(&out->of.list, bytes.size());
  Val* v = out->of.list.data;
  for (size_t k = 0; k < bytes.size(); ++k) {
    v[k].kind = WASMTIME_COMPONENT_U8;
    v[k].of.u8 = bytes[k];
  }
}

void put_u32_list(Val* out, std::span<const uint32_t> items) {
  out->kind = WASMTIME_COMPONENT_LIST;
  wasmtime_component_vallist_new_uninit(&out->of.list, items.size());
  for (size_t k = 0; k < items.size(); ++k) {
    out->of.list.data[k].kind = WASMTIME_COMPONENT_U32;
    out->of.list.data[k].of.u32 = items[k];
  }
}

void put_resource(wasmtime_context_t* cx, Val* out, uint32_t rep, uint32_t type) {
  wasmtime_component_resource_host_t* host = wasmtime_component_resource_host_new(true, rep, type);
  wasmtime_component_resource_any_t* any = nullptr;
  ErrorPtr err(wasmtime_component_resource_host_to_any(cx, host, &any));
  wasmtime_component_resource_host_delete(host);
  if (err) throw Trap{"cannot hand a wasi-nn resource to the guest: " + message_of(err.get())};
  out->kind = WASMTIME_COMPONENT_RESOURCE;
  out->of.resource = any;
}

// result<T, error>: ok with the value `inner` (or none), else an error resource.
void put_ok(Val* out, Val* inner) {
  out->kind = WASMTIME_COMPONENT_RESULT;
  out->of.result.is_ok = true;
  out->of.result.val = inner ? wasmtime_component_val_new(inner) : nullptr;
}

void put_err(const Args& a, Val* out, Error error) {
  log_nn_refusal(fmt::format("wasi:nn/{}@{}", a.spec.interface, wit_nn::version_name(a.spec.version)), a.spec.name,
                 error, wit_nn::error_code_case(error.code));
  auto rep = session_of(a.cx).keep_error(std::move(error));
  if (!rep) throw Trap{rep.error().detail};
  Val e{};
  put_resource(a.cx, &e, *rep, resource_type(a.spec.version, Res::error));
  out->kind = WASMTIME_COMPONENT_RESULT;
  out->of.result.is_ok = false;
  out->of.result.val = wasmtime_component_val_new(&e);
}

// result<own<R>, error>
template <class T>
void put_resource_result(const Args& a, Val* out, Result<T> rep, Res r) {
  if (!rep) return put_err(a, out, rep.take_error());
  Val v{};
  put_resource(a.cx, &v, *rep, resource_type(a.spec.version, r));
  put_ok(out, &v);
}

void put_status(const Args& a, Val* out, Status s) {
  if (!s) return put_err(a, out, s.take_error());
  put_ok(out, nullptr);
}

template <class T>
T must(Result<T> r) {
  if (!r) throw Trap{r.error().detail};
  return std::move(*r);
}

void run(const Args& a, Val* results, size_t nresults) {
  wit_nn::WitSession& wit = session_of(a.cx);
  const Version v = a.spec.version;
  if (nresults > 1) throw Trap{"a wasi-nn function returns at most one value"};
  Val* out = results;
  auto need_result = [&] {
    if (nresults != 1) throw Trap{fmt::format("wasi:nn/{}#{} returns a value", a.spec.interface, a.spec.name)};
  };
  switch (a.spec.op) {
    case Op::tensor_new: {
      need_result();
      std::vector<uint32_t> dims;
      for (size_t k = 0; k < a.list(0).size; ++k) {
        const Val& d = a.list(0).data[k];
        if (d.kind != WASMTIME_COMPONENT_U32) throw Trap{"tensor dimensions are not a list<u32>"};
        dims.push_back(d.of.u32);
      }
      const TensorType type = must(wit_nn::decode_tensor_type(a.enum_case(1)));
      const uint32_t rep = must(wit.new_tensor(OwnedTensor{type, std::move(dims), a.bytes(a.list(2))}));
      return put_resource(a.cx, out, rep, resource_type(v, Res::tensor));
    }
    case Op::tensor_dimensions: {
      need_result();
      auto t = must(wit.tensor(a.rep(0, Res::tensor)));
      return put_u32_list(out, t->dims);
    }
    case Op::tensor_ty: {
      need_result();
      auto t = must(wit.tensor(a.rep(0, Res::tensor)));
      return put_enum(out, must(wit_nn::tensor_type_case(t->type)));
    }
    case Op::tensor_data: {
      need_result();
      auto t = must(wit.tensor(a.rep(0, Res::tensor)));
      return put_u8_list(out, t->data);
    }
    case Op::error_new: {
      need_result();
      const Errc code = must(wit_nn::decode_error_code(a.enum_case(0)));
      const uint32_t rep = must(wit.keep_error(Error{code, std::string(a.string(1))}));
      return put_resource(a.cx, out, rep, resource_type(v, Res::error));
    }
    case Op::error_code: {
      need_result();
      return put_enum(out, wit_nn::error_code_case(must(wit.error(a.rep(0, Res::error)))->code));
    }
    case Op::error_data: {
      need_result();
      return put_string(out, must(wit.error(a.rep(0, Res::error)))->detail);
    }
    case Op::load: {
      need_result();
      const auto& list = a.list(0);
      std::vector<std::vector<uint8_t>> builders;
      builders.reserve(list.size);
      for (size_t k = 0; k < list.size; ++k) {
        if (list.data[k].kind != WASMTIME_COMPONENT_LIST) throw Trap{"a graph-builder is not a list<u8>"};
        builders.push_back(a.bytes(list.data[k].of.list));
      }
      std::vector<std::span<const uint8_t>> spans(builders.begin(), builders.end());
      return put_resource_result(a, out, wit.load(spans, a.enum_case(1), a.enum_case(2)), Res::graph);
    }
    case Op::load_by_name:
      need_result();
      return put_resource_result(a, out, wit.load_by_name(a.string(0)), Res::graph);
    case Op::init_execution_context:
      need_result();
      return put_resource_result(a, out, wit.init_execution_context(a.rep(0, Res::graph)), Res::context);
    case Op::compute_named: {
      need_result();
      const uint32_t ctx = a.rep(0, Res::context);
      const auto& list = a.list(1);
      std::vector<wit_nn::NamedRep> inputs;
      inputs.reserve(list.size);
      for (size_t k = 0; k < list.size; ++k) {
        const Val& t = list.data[k];
        if (t.kind != WASMTIME_COMPONENT_TUPLE || t.of.tuple.size != 2 ||
            t.of.tuple.data[0].kind != WASMTIME_COMPONENT_STRING) {
          throw Trap{"a named-tensor is not a tuple<string, tensor>"};
        }
        const auto& name = t.of.tuple.data[0].of.string;
        inputs.push_back({std::string(name.data, name.size), a.rep_of(t.of.tuple.data[1], Res::tensor)});
      }
      auto outputs = wit.compute(ctx, inputs);
      if (!outputs) return put_err(a, out, outputs.take_error());
      Val list_val{};
      list_val.kind = WASMTIME_COMPONENT_LIST;
      wasmtime_component_vallist_new_uninit(&list_val.of.list, outputs->size());
      for (size_t k = 0; k < outputs->size(); ++k) {
        Val& item = list_val.of.list.data[k];
        item.kind = WASMTIME_COMPONENT_TUPLE;
        wasmtime_component_valtuple_new_uninit(&item.of.tuple, 2);
        put_string(&item.of.tuple.data[0], (*outputs)[k].name);
        put_resource(a.cx, &item.of.tuple.data[1], (*outputs)[k].tensor, resource_type(v, Res::tensor));
      }
      return put_ok(out, &list_val);
    }
    case Op::set_input: {
      need_result();
      const uint32_t ctx = a.rep(0, Res::context);
      const std::string name(a.string(1));
      return put_status(a, out, wit.set_input(ctx, name, a.rep(2, Res::tensor)));
    }
    case Op::compute:
      need_result();
      return put_status(a, out, wit.compute(a.rep(0, Res::context)));
    case Op::get_output: {
      need_result();
      const uint32_t ctx = a.rep(0, Res::context);
      return put_resource_result(a, out, wit.get_output(ctx, a.string(1)), Res::tensor);
    }
  }
}

wasmtime_error_t* call(void* env, wasmtime_context_t* cx, const wasmtime_component_func_type_t*, Val* args,
                       size_t nargs, Val* results, size_t nresults) {
  const auto& spec = *static_cast<const FuncSpec*>(env);
  auto trap = [](const std::string& msg) { return wasmtime_error_new(msg.c_str()); };
  // No C++ exception may unwind into Wasmtime's frames.
  try {
    run(Args{spec, cx, args, nargs}, results, nresults);
    return nullptr;
  } catch (const Trap& t) {
    return trap(t.message);
  } catch (const std::bad_alloc&) {
    return trap(fmt::format("wasi:nn/{}#{}: the host ran out of memory", spec.interface, spec.name));
  } catch (const std::exception& e) {
    return trap(fmt::format("wasi:nn/{}#{}: internal error: {}", spec.interface, spec.name, e.what()));
  } catch (...) {
    return trap(fmt::format("wasi:nn/{}#{}: internal error", spec.interface, spec.name));
  }
}

struct ResourceSpec {
  Version version;
  Res res;
};

// The guest dropped its handle: the framework objects behind it go now.
wasmtime_error_t* drop(void* env, wasmtime_context_t* cx, uint32_t rep) {
  const auto& spec = *static_cast<const ResourceSpec*>(env);
  try {
    auto* state = static_cast<GuestState*>(wasmtime_context_get_data(cx));
    if (!state || !state->wit) return nullptr;
    wit_nn::WitSession& wit = *state->wit;
    Status s;
    switch (spec.res) {
      case Res::tensor: s = wit.drop_tensor(rep); break;
      case Res::graph: s = wit.drop_graph(rep); break;
      case Res::context: s = wit.drop_context(rep); break;
      case Res::error: s = wit.drop_error(rep); break;
    }
    return s ? nullptr : wasmtime_error_new(s.error().detail.c_str());
  } catch (const std::exception& e) {
    return wasmtime_error_new(e.what());
  }
}

// Every function and resource of every version, built once; the linker keeps pointers into it.
struct Tables {
  std::vector<FuncSpec> funcs;
  std::vector<ResourceSpec> resources;
  Tables() {
    funcs.reserve(64);
    resources.reserve(16);
    for (Version v : wit_nn::kVersions) {
      const bool named_compute = v == Version::rc_2024_10_28;
      funcs.push_back({v, Op::tensor_new, "tensor", "[constructor]tensor"});
      funcs.push_back({v, Op::tensor_dimensions, "tensor", "[method]tensor.dimensions"});
      funcs.push_back({v, Op::tensor_ty, "tensor", "[method]tensor.ty"});
      funcs.push_back({v, Op::tensor_data, "tensor", "[method]tensor.data"});
      if (v == Version::rc_2024_06_25) funcs.push_back({v, Op::error_new, "errors", "[constructor]error"});
      funcs.push_back({v, Op::error_code, "errors", "[method]error.code"});
      funcs.push_back({v, Op::error_data, "errors", "[method]error.data"});
      funcs.push_back({v, Op::load, "graph", "load"});
      funcs.push_back({v, Op::load_by_name, "graph", "load-by-name"});
      funcs.push_back({v, Op::init_execution_context, "graph", "[method]graph.init-execution-context"});
      if (named_compute) {
        funcs.push_back({v, Op::compute_named, "inference", "[method]graph-execution-context.compute"});
      } else {
        funcs.push_back({v, Op::set_input, "inference", "[method]graph-execution-context.set-input"});
        funcs.push_back({v, Op::compute, "inference", "[method]graph-execution-context.compute"});
        funcs.push_back({v, Op::get_output, "inference", "[method]graph-execution-context.get-output"});
      }
      for (Res r : {Res::tensor, Res::graph, Res::context, Res::error}) resources.push_back({v, r});
    }
  }
};

const Tables& tables() {
  static const Tables t;
  return t;
}

std::string_view resource_interface(Res r) {
  switch (r) {
    case Res::tensor: return "tensor";
    case Res::graph: return "graph";
    case Res::context: return "inference";
    case Res::error: return "errors";
  }
  return "";
}

std::string_view resource_name(Res r) {
  switch (r) {
    case Res::tensor: return "tensor";
    case Res::graph: return "graph";
    case Res::context: return "graph-execution-context";
    case Res::error: return "error";
  }
  return "";
}

}  // namespace

Status define_wit_nn(wasmtime_component_linker_t* linker) {
  const Tables& t = tables();
  wasmtime_component_linker_instance_t* root = wasmtime_component_linker_root(linker);
  Status status;
  for (Version v : wit_nn::kVersions) {
    for (std::string_view iface : {"tensor", "graph", "inference", "errors"}) {
      const std::string name = fmt::format("wasi:nn/{}@{}", iface, wit_nn::version_name(v));
      wasmtime_component_linker_instance_t* inst = nullptr;
      ErrorPtr err(wasmtime_component_linker_instance_add_instance(root, name.data(), name.size(), &inst));
      for (const auto& r : t.resources) {
        if (err || r.version != v || resource_interface(r.res) != iface) continue;
        wasmtime_component_resource_type_t* type = wasmtime_component_resource_type_new_host(resource_type(v, r.res));
        const std::string_view rname = resource_name(r.res);
        err.reset(wasmtime_component_linker_instance_add_resource(inst, rname.data(), rname.size(), type, drop,
                                                                  const_cast<ResourceSpec*>(&r), nullptr));
        wasmtime_component_resource_type_delete(type);
      }
      for (const auto& f : t.funcs) {
        if (err || f.version != v || f.interface != iface) continue;
        err.reset(wasmtime_component_linker_instance_add_func(inst, f.name.data(), f.name.size(), call,
                                                              const_cast<FuncSpec*>(&f), nullptr));
      }
      if (inst) wasmtime_component_linker_instance_delete(inst);
      if (err) {
        status = make_error(Errc::runtime_error, fmt::format("defining {}: {}", name, message_of(err.get())));
        break;
      }
    }
    if (!status) break;
  }
  wasmtime_component_linker_instance_delete(root);
  return status;
}

}  // namespace wasinn
