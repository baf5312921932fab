// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "engine/nn_imports.h"

#include <cstring>
#include <exception>
#include <optional>
#include <span>
#include <string_view>

#include <fmt/format.h>

#include "abi/ephemeral_nn.h"
#include "abi/ephemeral_nn_ext.h"
#include "abi/legacy_nn.h"
#include "abi/nn_call_log.h"
#include "engine/guest_state.h"
#include "engine/wasmtime_ptr.h"

namespace wasinn {

namespace {

using ephemeral_nn::Call;
using Handler = Status (*)(Call, const wasmtime_val_raw_t*);

struct ImportSpec {
  std::string_view module;
  std::string_view name;
  size_t params;
  Handler handler;
};

uint32_t u(const wasmtime_val_raw_t& v) { return static_cast<uint32_t>(v.i32); }

constexpr std::string_view kEphemeralModule = "wasi_ephemeral_nn";
constexpr std::string_view kLegacyModule = "wasi_nn";

constexpr ImportSpec kEphemeralImports[] = {
    {kEphemeralModule, "load", 5,
     [](Call c, const wasmtime_val_raw_t* a) {
       return ephemeral_nn::load(c, u(a[0]), u(a[1]), u(a[2]), u(a[3]), u(a[4]));
     }},
    {kEphemeralModule, "load_by_name", 3,
     [](Call c, const wasmtime_val_raw_t* a) { return ephemeral_nn::load_by_name(c, u(a[0]), u(a[1]), u(a[2])); }},
    {kEphemeralModule, "load_by_name_with_config", 5,
     [](Call c, const wasmtime_val_raw_t* a) {
       return ephemeral_nn::load_by_name_with_config(c, u(a[0]), u(a[1]), u(a[2]), u(a[3]), u(a[4]));
     }},
    {kEphemeralModule, "init_execution_context", 2,
     [](Call c, const wasmtime_val_raw_t* a) { return ephemeral_nn::init_execution_context(c, u(a[0]), u(a[1])); }},
    {kEphemeralModule, "set_input", 3,
     [](Call c, const wasmtime_val_raw_t* a) { return ephemeral_nn::set_input(c, u(a[0]), u(a[1]), u(a[2])); }},
    {kEphemeralModule, "compute", 1,
     [](Call c, const wasmtime_val_raw_t* a) { return ephemeral_nn::compute(c, u(a[0])); }},
    {kEphemeralModule, "get_output", 5,
     [](Call c, const wasmtime_val_raw_t* a) {
       return ephemeral_nn::get_output(c, u(a[0]), u(a[1]), u(a[2]), u(a[3]), u(a[4]));
     }},
    {kEphemeralModule, "compute_single", 1,
     [](Call c, const wasmtime_val_raw_t* a) { return ephemeral_nn::compute_single(c, u(a[0])); }},
    {kEphemeralModule, "get_output_single", 5,
     [](Call c, const wasmtime_val_raw_t* a) {
       return ephemeral_nn::get_output_single(c, u(a[0]), u(a[1]), u(a[2]), u(a[3]), u(a[4]));
     }},
    {kEphemeralModule, "fini_single", 1,
     [](Call c, const wasmtime_val_raw_t* a) { return ephemeral_nn::fini_single(c, u(a[0])); }},
    {kEphemeralModule, "unload", 1,
     [](Call c, const wasmtime_val_raw_t* a) { return ephemeral_nn::unload(c, u(a[0])); }},
    {kEphemeralModule, "finalize_execution_context", 1,
     [](Call c, const wasmtime_val_raw_t* a) { return ephemeral_nn::finalize_execution_context(c, u(a[0])); }},
    // wasinn's own, beyond the spec (abi/ephemeral_nn_ext.h)
    {kEphemeralModule, "graph_io_count", 3,
     [](Call c, const wasmtime_val_raw_t* a) { return ephemeral_nn::graph_io_count(c, u(a[0]), u(a[1]), u(a[2])); }},
    {kEphemeralModule, "graph_io_info", 10,
     [](Call c, const wasmtime_val_raw_t* a) {
       return ephemeral_nn::graph_io_info(c, u(a[0]), u(a[1]), u(a[2]), u(a[3]), u(a[4]), u(a[5]), u(a[6]), u(a[7]),
                                          u(a[8]), u(a[9]));
     }},
    {kEphemeralModule, "graph_list_properties", 4,
     [](Call c, const wasmtime_val_raw_t* a) {
       return ephemeral_nn::graph_list_properties(c, u(a[0]), u(a[1]), u(a[2]), u(a[3]));
     }},
    {kEphemeralModule, "graph_get_property", 6,
     [](Call c, const wasmtime_val_raw_t* a) {
       return ephemeral_nn::graph_get_property(c, u(a[0]), u(a[1]), u(a[2]), u(a[3]), u(a[4]), u(a[5]));
     }},
    {kEphemeralModule, "graph_set_property", 5,
     [](Call c, const wasmtime_val_raw_t* a) {
       return ephemeral_nn::graph_set_property(c, u(a[0]), u(a[1]), u(a[2]), u(a[3]), u(a[4]));
     }},
    {kEphemeralModule, "context_set_property", 5,
     [](Call c, const wasmtime_val_raw_t* a) {
       return ephemeral_nn::context_set_property(c, u(a[0]), u(a[1]), u(a[2]), u(a[3]), u(a[4]));
     }},
    {kEphemeralModule, "prompt", 6,
     [](Call c, const wasmtime_val_raw_t* a) {
       return ephemeral_nn::prompt(c, u(a[0]), u(a[1]), u(a[2]), u(a[3]), u(a[4]), u(a[5]));
     }},
};

constexpr ImportSpec kLegacyImports[] = {
    {kLegacyModule, "load", 4,
     [](Call c, const wasmtime_val_raw_t* a) { return legacy_nn::load(c, u(a[0]), u(a[1]), u(a[2]), u(a[3])); }},
    {kLegacyModule, "load_by_name", 3,
     [](Call c, const wasmtime_val_raw_t* a) { return legacy_nn::load_by_name(c, u(a[0]), u(a[1]), u(a[2])); }},
    {kLegacyModule, "init_execution_context", 2,
     [](Call c, const wasmtime_val_raw_t* a) { return legacy_nn::init_execution_context(c, u(a[0]), u(a[1])); }},
    {kLegacyModule, "set_input", 3,
     [](Call c, const wasmtime_val_raw_t* a) { return legacy_nn::set_input(c, u(a[0]), u(a[1]), u(a[2])); }},
    {kLegacyModule, "compute", 1, [](Call c, const wasmtime_val_raw_t* a) { return legacy_nn::compute(c, u(a[0])); }},
    {kLegacyModule, "get_output", 4,
     [](Call c, const wasmtime_val_raw_t* a) { return legacy_nn::get_output(c, u(a[0]), u(a[1]), u(a[2]), u(a[3])); }},
};

wasm_trap_t* trampoline(void* env, wasmtime_caller_t* caller, wasmtime_val_raw_t* args, size_t) {
  const auto* spec = static_cast<const ImportSpec*>(env);
  wasmtime_context_t* cx = wasmtime_caller_context(caller);
  auto* state = static_cast<GuestState*>(wasmtime_context_get_data(cx));
  Status status;
  struct CallCount {
    std::atomic<int>* n;
    explicit CallCount(std::atomic<int>* c) : n(c) {
      if (n) n->fetch_add(1, std::memory_order_relaxed);
    }
    ~CallCount() {
      if (n) n->fetch_sub(1, std::memory_order_release);
    }
  } counted(state ? state->nn_calls : nullptr);
  static const std::string kNoRequest;
  NnCallTrace trace(spec->module, spec->name, state && state->session ? state->session->request_id() : kNoRequest);
  // No C++ exception may unwind into Wasmtime's frames: every one becomes an errno.
  try {
    if (!state || !state->session) {
      status = make_error(Errc::runtime_error, "wasi-nn is not enabled for this store");
    } else if (std::optional<GuestMemoryView> view = caller_memory(caller, *state); !view) {
      status = make_error(Errc::missing_memory, "the guest exports no memory named \"memory\"");
    } else {
      status = spec->handler(Call{*state->session, *view}, args);
    }
  } catch (const std::bad_alloc&) {
    status = make_error(Errc::too_large, "the host ran out of memory");
  } catch (const std::exception& e) {
    status = make_error(Errc::runtime_error, std::string("internal error: ") + e.what());
  } catch (...) {
    status = make_error(Errc::runtime_error, "internal error");
  }
  args[0].i32 = ephemeral_nn::answer(status, spec->module, spec->name);
  if (!status.ok()) trace.set_outcome(errc_name(status.error().code));
  return nullptr;
}

Status define_imports(wasmtime_linker_t* linker, std::span<const ImportSpec> imports) {
  for (const auto& spec : imports) {
    WASINN_TRY(
        define_i32_func(linker, spec.module, spec.name, spec.params, 1, trampoline, const_cast<ImportSpec*>(&spec)));
  }
  return {};
}

}  // namespace

Status define_i32_func(wasmtime_linker_t* linker, std::string_view module, std::string_view name, size_t params,
                       size_t results, wasmtime_func_unchecked_callback_t callback, void* env) {
  wasm_valtype_vec_t param_types, result_types;
  wasm_valtype_vec_new_uninitialized(&param_types, params);
  for (size_t i = 0; i < params; ++i) param_types.data[i] = wasm_valtype_new(WASM_I32);
  wasm_valtype_vec_new_uninitialized(&result_types, results);
  for (size_t i = 0; i < results; ++i) result_types.data[i] = wasm_valtype_new(WASM_I32);
  wasm_functype_t* type = wasm_functype_new(&param_types, &result_types);
  ErrorPtr err(wasmtime_linker_define_func_unchecked(linker, module.data(), module.size(), name.data(), name.size(),
                                                     type, callback, env, nullptr));
  wasm_functype_delete(type);
  if (err)
    return make_error(Errc::runtime_error, fmt::format("defining {}::{}: {}", module, name, message_of(err.get())));
  return {};
}

std::optional<GuestMemoryView> caller_memory(wasmtime_caller_t* caller, GuestState& state) {
  if (state.shared_memory) {
    // A shared memory never moves; it may grow in another thread, which only adds bytes.
    return GuestMemoryView(wasmtime_sharedmemory_data(state.shared_memory),
                           wasmtime_sharedmemory_data_size(state.shared_memory));
  }
  // The cached export, else the caller's "memory" export.
  wasmtime_memory_t mem;
  if (state.memory) {
    mem = *state.memory;
  } else {
    wasmtime_extern_t item;
    if (!wasmtime_caller_export_get(caller, "memory", 6, &item)) return std::nullopt;
    if (item.kind != WASMTIME_EXTERN_MEMORY) {
      wasmtime_extern_delete(&item);
      return std::nullopt;
    }
    mem = item.of.memory;
  }
  wasmtime_context_t* cx = wasmtime_caller_context(caller);
  return GuestMemoryView(wasmtime_memory_data(cx, &mem), wasmtime_memory_data_size(cx, &mem));
}

Status define_ephemeral_nn(wasmtime_linker_t* linker) { return define_imports(linker, kEphemeralImports); }
Status define_legacy_nn(wasmtime_linker_t* linker) { return define_imports(linker, kLegacyImports); }

}  // namespace wasinn
