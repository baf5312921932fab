// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The C++ half of the typed component binding: wit_host_table.h's table over a guest's WitSession.
// Wasmtime's typed API (src/engine/wasmtime/src/wit_nn.rs) has lifted the arguments already;
// this file turns table calls into WitSession calls and their outcomes into statuses.
#include "engine/wit_nn_imports.h"

#include <exception>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "abi/nn_call_log.h"
#include "abi/wit_nn.h"
#include "engine/guest_state.h"
#include "engine/wasmtime_ptr.h"
#include "engine/wit_str.h"

// wit_host_table.h's records and its table are filled by name, every field: one the header (or
// the WIT it is generated from) gains and this file leaves out is a build error here, as is one
// reordered or renamed (designators follow the header), where by position a swap of two fields
// of one type would compile (layers.tables_by_name).
#pragma GCC diagnostic error "-Wmissing-field-initializers"

namespace wasinn {

namespace {

// What a call hands back to the Rust side, valid until this thread's next call (wit_host.h).
struct Lent {
  std::string message;
  std::vector<wasinn_wit_named> named;
  std::vector<std::string> names;
  std::vector<wasinn_wit_tensor_description> io;
  std::vector<wasinn_wit_str> strs;
  std::vector<GraphProperty> properties;
  std::string text;
};
thread_local Lent lent;

// A guest's misuse the canonical ABI cannot express as an error value.
struct Trap {
  std::string message;
};

template <class T>
T must(Result<T> r) {
  if (!r) throw Trap{r.error().detail};
  return std::move(*r);
}
void must(Status s) {
  if (!s) throw Trap{s.error().detail};
}

// "wasi:nn/graph", or an interface given whole ("wasinn:nn-ext/properties").
std::string qualified(std::string_view interface) {
  return interface.find(':') != std::string_view::npos ? std::string(interface) : fmt::format("wasi:nn/{}", interface);
}

// One wasi-nn function of one interface, for messages.
struct Call {
  std::string_view interface;  // "graph"
  std::string_view function;   // "load"
  wit_nn::WitSession* wit = nullptr;
  GuestState* state = nullptr;
  wasinn_wit_out* out = nullptr;
  NnCallTrace* trace = nullptr;

  // A failed wasi-nn call: logged as every ABI logs one, handed to the guest as an error resource.
  // A call its caller gave up (wasinn:nn-async) ends without a warning: nobody waits for it.
  bool cancelled() const { return state->async_call && state->async_call->cancelled(); }
  wasinn_wit_status refuse(Error error) const {
    log_nn_refusal(qualified(interface), function, error, wit_nn::error_code_case(error.code), cancelled());
    trace->set_outcome(wit_nn::error_code_case(error.code));
    out->rep = must(wit->keep_error(std::move(error)));
    return WASINN_WIT_ERR;
  }
  wasinn_wit_status made(Result<uint32_t> rep) const {
    if (!rep) return refuse(rep.take_error());
    out->rep = *rep;
    return WASINN_WIT_OK;
  }
  wasinn_wit_status done(Status s) const { return s ? WASINN_WIT_OK : refuse(s.take_error()); }
  // The prompt interface's refusal: a string, "<error-code>: <detail>".
  wasinn_wit_status refuse_text(Error error) const {
    log_nn_refusal(qualified(interface), function, error, wit_nn::error_code_case(error.code), cancelled());
    trace->set_outcome(wit_nn::error_code_case(error.code));
    lent.message = fmt::format("{}: {}", wit_nn::error_code_case(error.code), error.detail);
    out->message = wit_str(lent.message);
    return WASINN_WIT_ERR;
  }
  wasinn_wit_status chars(std::string_view s) const {
    out->data = s.data();
    out->len = s.size();
    return WASINN_WIT_OK;
  }
};

// Runs one table call for `guest`: no C++ exception may unwind into Wasmtime's frames.
template <class F>
wasinn_wit_status guarded(void* guest, std::string_view interface, std::string_view function, wasinn_wit_out* out,
                          F&& body) {
  static const std::string kNoRequest;
  std::optional<NnCallTrace> trace;  // its line is written as the call returns
  auto trap = [&](std::string msg) {
    if (trace) trace->set_outcome("trap");
    lent.message = std::move(msg);
    out->message = wit_str(lent.message);
    return WASINN_WIT_TRAP;
  };
  try {
    auto* state = static_cast<GuestState*>(guest);
    if (state) (void)state->published.load(std::memory_order_acquire);  // a share's hand-off (guest_state.h)
    trace.emplace(tracing() ? qualified(interface) : std::string(), function,
                  state && state->session ? state->session->request_id() : kNoRequest);
    if (!state || !state->wit) throw Trap{"wasi-nn is not enabled for this store"};
    // A share's calls hand it on (to the next call's thread, to guest_release) through tokio too.
    // Made before the step, so its bump comes after the step's end, which it hands on as well.
    struct Republish {
      GuestState* share;
      ~Republish() {
        if (share) share->published.fetch_add(1, std::memory_order_acq_rel);
      }
    } republish{state->async_call ? state : nullptr};
    std::optional<NnSession::AsyncScope> step;
    if (state->async_call) {
      step.emplace(*state->session, *state->async_call);
      if (!step->entered()) throw Trap{"compute was cancelled: the guest has ended"};
    }
    return body(Call{interface, function, state->wit.get(), state, out, &*trace});
  } catch (const Trap& t) {
    return trap(t.message);
  } catch (const std::bad_alloc&) {
    return trap(fmt::format("{}#{}: the host ran out of memory", qualified(interface), function));
  } catch (const std::exception& e) {
    return trap(fmt::format("{}#{}: internal error: {}", qualified(interface), function, e.what()));
  } catch (...) {
    return trap(fmt::format("{}#{}: internal error", qualified(interface), function));
  }
}

std::shared_ptr<const OwnedTensor> tensor_of(const Call& c, uint32_t rep) { return must(c.wit->tensor(rep)); }

wasinn_wit_status tensor_new(void* guest, const uint32_t* dims, size_t rank, wasinn_wit_str type, wasinn_wit_bytes data,
                             wasinn_wit_out* out) {
  return guarded(guest, "tensor", "[constructor]tensor", out, [&](const Call& c) {
    const TensorType t = must(wit_nn::decode_tensor_type(view(type)));
    // A tensor over wasinn's limits is still made: WIT's constructor has no error, so the
    // refusal is the answer of the call that uses it (wit_nn.h).
    c.out->rep = must(c.wit->new_tensor(TensorView{t, {dims, rank}, {data.data, data.len}}));
    return WASINN_WIT_OK;
  });
}

wasinn_wit_status tensor_dimensions(void* guest, uint32_t tensor, wasinn_wit_out* out) {
  return guarded(guest, "tensor", "[method]tensor.dimensions", out, [&](const Call& c) {
    auto t = tensor_of(c, tensor);
    // The tensor stays in the guest's table until the Rust side has copied the dims.
    c.out->data = t->dims.data();
    c.out->len = t->dims.size();
    return WASINN_WIT_OK;
  });
}

wasinn_wit_status tensor_ty(void* guest, uint32_t tensor, wasinn_wit_out* out) {
  return guarded(guest, "tensor", "[method]tensor.ty", out,
                 [&](const Call& c) { return c.chars(must(wit_nn::tensor_type_case(tensor_of(c, tensor)->type))); });
}

wasinn_wit_status tensor_data(void* guest, uint32_t tensor, wasinn_wit_out* out) {
  return guarded(guest, "tensor", "[method]tensor.data", out, [&](const Call& c) {
    // Lent until the next tensor.data: the bytes are lowered into guest memory after the call.
    c.state->lent_tensor = tensor_of(c, tensor);
    c.out->data = c.state->lent_tensor->data.data();
    c.out->len = c.state->lent_tensor->data.size();
    return WASINN_WIT_OK;
  });
}

wasinn_wit_status error_new(void* guest, wasinn_wit_str code, wasinn_wit_str data, wasinn_wit_out* out) {
  return guarded(guest, "errors", "[constructor]error", out, [&](const Call& c) {
    const Errc errc = must(wit_nn::decode_error_code(view(code)));
    c.out->rep = must(c.wit->keep_error(Error{errc, std::string(view(data))}));
    return WASINN_WIT_OK;
  });
}

wasinn_wit_status error_code(void* guest, uint32_t error, wasinn_wit_out* out) {
  return guarded(guest, "errors", "[method]error.code", out,
                 [&](const Call& c) { return c.chars(wit_nn::error_code_case(must(c.wit->error(error))->code)); });
}

wasinn_wit_status error_data(void* guest, uint32_t error, wasinn_wit_out* out) {
  return guarded(guest, "errors", "[method]error.data", out, [&](const Call& c) {
    lent.message = must(c.wit->error(error))->detail;
    return c.chars(lent.message);
  });
}

wasinn_wit_status graph_load(void* guest, const wasinn_wit_bytes* builders, size_t count, wasinn_wit_str encoding,
                             wasinn_wit_str target, wasinn_wit_out* out) {
  return guarded(guest, "graph", "load", out, [&](const Call& c) {
    std::vector<std::span<const uint8_t>> spans;
    spans.reserve(count);
    for (size_t k = 0; k < count; ++k) spans.emplace_back(builders[k].data, builders[k].len);
    return c.made(c.wit->load(spans, view(encoding), view(target)));
  });
}

wasinn_wit_status graph_load_by_name(void* guest, wasinn_wit_str name, wasinn_wit_out* out) {
  return guarded(guest, "graph", "load-by-name", out,
                 [&](const Call& c) { return c.made(c.wit->load_by_name(view(name))); });
}

wasinn_wit_status graph_init_execution_context(void* guest, uint32_t graph, wasinn_wit_out* out) {
  return guarded(guest, "graph", "[method]graph.init-execution-context", out,
                 [&](const Call& c) { return c.made(c.wit->init_execution_context(graph)); });
}

wasinn_wit_status graph_execution_context_compute_inputs(void* guest, uint32_t context, const wasinn_wit_named* inputs,
                                                         size_t count, wasinn_wit_out* out) {
  return guarded(guest, "inference", "[method]graph-execution-context.compute", out, [&](const Call& c) {
    std::vector<wit_nn::NamedRep> named;
    named.reserve(count);
    for (size_t k = 0; k < count; ++k) named.push_back({std::string(view(inputs[k].name)), inputs[k].tensor});
    auto outputs = c.wit->compute(context, named);
    if (!outputs) return c.refuse(outputs.take_error());
    lent.names.clear();
    lent.named.clear();
    for (auto& o : *outputs) lent.names.push_back(std::move(o.name));
    for (size_t k = 0; k < outputs->size(); ++k)
      lent.named.push_back({.name = wit_str(lent.names[k]), .tensor = (*outputs)[k].tensor});
    c.out->data = lent.named.data();
    c.out->len = lent.named.size();
    return WASINN_WIT_OK;
  });
}

wasinn_wit_status graph_execution_context_set_input(void* guest, uint32_t context, wasinn_wit_str name, uint32_t tensor,
                                                    wasinn_wit_out* out) {
  return guarded(guest, "inference", "[method]graph-execution-context.set-input", out,
                 [&](const Call& c) { return c.done(c.wit->set_input(context, view(name), tensor)); });
}

wasinn_wit_status graph_execution_context_compute(void* guest, uint32_t context, wasinn_wit_out* out) {
  return guarded(guest, "inference", "[method]graph-execution-context.compute", out,
                 [&](const Call& c) { return c.done(c.wit->compute(context)); });
}

wasinn_wit_status graph_execution_context_get_output(void* guest, uint32_t context, wasinn_wit_str name,
                                                     wasinn_wit_out* out) {
  return guarded(guest, "inference", "[method]graph-execution-context.get-output", out,
                 [&](const Call& c) { return c.made(c.wit->get_output(context, view(name))); });
}

// The guest dropped its handle: the framework objects behind it go now.
wasinn_wit_status drop(void* guest, wasinn_wit_resource kind, uint32_t rep, wasinn_wit_out* out) {
  return guarded(guest, "resource", "drop", out, [&](const Call& c) {
    Status s;
    switch (kind) {
      case WASINN_WIT_TENSOR: s = c.wit->drop_tensor(rep); break;
      case WASINN_WIT_GRAPH: s = c.wit->drop_graph(rep); break;
      case WASINN_WIT_CONTEXT: s = c.wit->drop_context(rep); break;
      case WASINN_WIT_ERROR: s = c.wit->drop_error(rep); break;
      default: throw Trap{fmt::format("resource kind {} is not a wasi-nn resource", static_cast<int>(kind))};
    }
    if (!s) throw Trap{s.error().detail};
    return WASINN_WIT_OK;
  });
}

// wasinn:nn-ext@0.1.0: graph and context reps are the NnSession's handles, as in wasi:nn. A
// borrowed handle the guest does not hold traps, as for every borrow.
// describe's inputs or outputs, as wasinn_wit_tensor_description[len].
wasinn_wit_status describe(void* guest, uint32_t graph, bool outputs, wasinn_wit_out* out) {
  return guarded(guest, "wasinn:nn-ext/describe", outputs ? "outputs" : "inputs", out, [&](const Call& c) {
    const auto io = must(c.wit->describe(graph, outputs));
    lent.io.clear();
    for (const auto& one : io) {
      lent.io.push_back({.name = wit_str(one.name),
                         .has_tensor_type = !one.type.empty(),
                         .tensor_type = wit_str(one.type),
                         .has_dimensions = one.dims.has_value(),
                         .dimensions = one.dims ? one.dims->data() : nullptr,
                         .dimensions_len = one.dims ? one.dims->size() : 0});
    }
    c.out->data = lent.io.data();
    c.out->len = lent.io.size();
    return WASINN_WIT_OK;
  });
}
wasinn_wit_status describe_inputs(void* guest, uint32_t graph, wasinn_wit_out* out) {
  return describe(guest, graph, false, out);
}
wasinn_wit_status describe_outputs(void* guest, uint32_t graph, wasinn_wit_out* out) {
  return describe(guest, graph, true, out);
}

wasinn_wit_status properties_list_properties(void* guest, uint32_t graph, wasinn_wit_out* out) {
  return guarded(guest, "wasinn:nn-ext/properties", "list-properties", out, [&](const Call& c) {
    lent.properties = must(c.wit->properties(graph));
    lent.strs.clear();
    for (const auto& p : lent.properties) lent.strs.push_back(wit_str(p.name));
    c.out->data = lent.strs.data();
    c.out->len = lent.strs.size();
    return WASINN_WIT_OK;
  });
}

wasinn_wit_status properties_get_property(void* guest, uint32_t graph, wasinn_wit_str name, wasinn_wit_out* out) {
  return guarded(guest, "wasinn:nn-ext/properties", "get-property", out, [&](const Call& c) {
    must(c.wit->borrow_graph(graph));
    auto value = c.wit->get_property(graph, view(name));
    if (!value) return c.refuse(value.take_error());
    lent.text = std::move(*value);
    return c.chars(lent.text);
  });
}

wasinn_wit_status properties_set_property(void* guest, uint32_t graph, wasinn_wit_str name, wasinn_wit_str value,
                                          wasinn_wit_out* out) {
  return guarded(guest, "wasinn:nn-ext/properties", "set-property", out, [&](const Call& c) {
    must(c.wit->borrow_graph(graph));
    return c.done(c.wit->set_graph_property(graph, view(name), view(value)));
  });
}

wasinn_wit_status properties_set_context_property(void* guest, uint32_t context, wasinn_wit_str name,
                                                  wasinn_wit_str value, wasinn_wit_out* out) {
  return guarded(guest, "wasinn:nn-ext/properties", "set-context-property", out, [&](const Call& c) {
    must(c.wit->borrow_context(context));
    return c.done(c.wit->set_context_property(context, view(name), view(value)));
  });
}

wasinn_wit_status prompt_init(void* guest, uint32_t graph, wasinn_wit_out* out) {
  return guarded(guest, "wasinn:nn-ext/prompt", "init", out, [&](const Call& c) {
    must(c.wit->borrow_graph(graph));
    auto ctx = c.wit->init_prompt_context(graph);
    if (!ctx) return c.refuse_text(ctx.take_error());
    c.out->rep = *ctx;
    return WASINN_WIT_OK;
  });
}

wasinn_wit_status context_compute(void* guest, uint32_t context, wasinn_wit_str prompt, wasinn_wit_out* out) {
  return guarded(guest, "wasinn:nn-ext/prompt", "[method]context.compute", out, [&](const Call& c) {
    must(c.wit->borrow_context(context));
    auto text = c.wit->prompt(context, view(prompt));
    if (!text) return c.refuse_text(text.take_error());
    lent.text = std::move(*text);
    return c.chars(lent.text);
  });
}

wasinn_wit_status context_set_property(void* guest, uint32_t context, wasinn_wit_str name, wasinn_wit_str value,
                                       wasinn_wit_out* out) {
  return guarded(guest, "wasinn:nn-ext/prompt", "[method]context.set-property", out, [&](const Call& c) {
    must(c.wit->borrow_context(context));
    Status set = c.wit->set_context_property(context, view(name), view(value));
    return set ? WASINN_WIT_OK : c.refuse_text(set.take_error());
  });
}

wasinn_wit_status context_start(void* guest, uint32_t context, wasinn_wit_str input, wasinn_wit_str text,
                                wasinn_wit_out* out) {
  return guarded(guest, "wasinn:nn-ext/prompt", "[method]context.start", out, [&](const Call& c) {
    must(c.wit->borrow_context(context));
    Status started = c.wit->prompt_start(context, view(input), view(text));
    return started ? WASINN_WIT_OK : c.refuse_text(started.take_error());
  });
}

wasinn_wit_status context_next(void* guest, uint32_t context, wasinn_wit_out* out) {
  return guarded(guest, "wasinn:nn-ext/prompt", "[method]context.next", out, [&](const Call& c) {
    must(c.wit->borrow_context(context));
    auto piece = c.wit->prompt_next(context);
    if (!piece) return c.refuse_text(piece.take_error());
    if (!*piece) {
      c.out->rep = 0;
      return WASINN_WIT_OK;
    }
    lent.text = std::move(**piece);
    c.out->rep = 1;
    return c.chars(lent.text);
  });
}

wasinn_wit_status context_metadata(void* guest, uint32_t context, wasinn_wit_out* out) {
  return guarded(guest, "wasinn:nn-ext/prompt", "[method]context.metadata", out, [&](const Call& c) {
    must(c.wit->borrow_context(context));
    auto meta = c.wit->prompt_metadata(context);
    if (!meta) return c.refuse_text(meta.take_error());
    lent.text = std::move(*meta);
    return c.chars(lent.text);
  });
}

// A GuestState of the session and WIT resources alone (no memory), for another thread: it
// keeps them alive while a framework call runs there, even past the store's end.
wasinn_wit_status guest_share(void* guest, wasinn_wit_out* out) {
  return guarded(guest, "wasinn:nn-async", "share", out, [&](const Call& c) {
    auto shared = std::make_unique<GuestState>();
    shared->session = c.state->session;
    shared->wit = c.state->wit;
    shared->async_call = must(c.state->session->begin_async_call());
    shared->published.fetch_add(1, std::memory_order_acq_rel);
    c.out->data = shared.release();
    return WASINN_WIT_OK;
  });
}

void guest_release(void* shared) {
  auto* share = static_cast<GuestState*>(shared);
  (void)share->published.load(std::memory_order_acquire);  // after its last call (guest_state.h)
  // The call goes last: once it is gone (AsyncCallCount), the host may tear the frameworks down,
  // so the session this share held must already be let go.
  std::shared_ptr<AsyncCall> call = std::move(share->async_call);
  delete share;
  call.reset();
}

wasinn_wit_status cancel(void* guest, uint32_t context, wasinn_wit_out* out) {
  return guarded(guest, "wasinn:nn-async/inference", "cancel", out, [&](const Call& c) {
    must(c.wit->cancel(context));  // an unknown handle traps, as for every borrow
    return WASINN_WIT_OK;
  });
}

}  // namespace

const wasinn_wit_host& wit_host_table() {
  static const wasinn_wit_host table{.tensor_new = tensor_new,
                                     .tensor_dimensions = tensor_dimensions,
                                     .tensor_ty = tensor_ty,
                                     .tensor_data = tensor_data,
                                     .error_new = error_new,
                                     .error_code = error_code,
                                     .error_data = error_data,
                                     .graph_execution_context_set_input = graph_execution_context_set_input,
                                     .graph_execution_context_compute = graph_execution_context_compute,
                                     .graph_execution_context_get_output = graph_execution_context_get_output,
                                     .graph_init_execution_context = graph_init_execution_context,
                                     .graph_load = graph_load,
                                     .graph_load_by_name = graph_load_by_name,
                                     .graph_execution_context_compute_inputs = graph_execution_context_compute_inputs,
                                     .describe_inputs = describe_inputs,
                                     .describe_outputs = describe_outputs,
                                     .properties_list_properties = properties_list_properties,
                                     .properties_get_property = properties_get_property,
                                     .properties_set_property = properties_set_property,
                                     .properties_set_context_property = properties_set_context_property,
                                     .context_compute = context_compute,
                                     .context_set_property = context_set_property,
                                     .context_start = context_start,
                                     .context_next = context_next,
                                     .context_metadata = context_metadata,
                                     .prompt_init = prompt_init,
                                     .drop = drop,
                                     .guest_share = guest_share,
                                     .guest_release = guest_release,
                                     .cancel = cancel};
  return table;
}

Status define_wit_nn(wasmtime_component_linker_t* linker) {
  if (ErrorPtr err(wasinn_wit_define(linker, &wit_host_table())); err) {
    return make_error(Errc::runtime_error, "defining wasi:nn: " + message_of(err.get()));
  }
  return {};
}

}  // namespace wasinn
