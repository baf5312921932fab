// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A component's instance: WASI 0.2 and the WIT wasi-nn interfaces from the Host's component
// linker, its `wasi:cli/run` (a command) or another export (--invoke) run to completion.
#include "engine/component_instance.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "abi/wit_nn.h"
#include "core/nn_session.h"
#include "engine/call_outcome.h"
#include "engine/guest_state.h"
#include "engine/guest_wasi.h"
#include "engine/instance_impl.h"
#include "engine/module_bytes.h"
#include "engine/wit_host.h"
#include "engine/wit_nn_imports.h"
#include "engine/wasmtime_ptr.h"

namespace wasinn {

namespace {

using Val = wasmtime_component_val_t;

struct ExportIndexDeleter {
  void operator()(wasmtime_component_export_index_t* p) const { wasmtime_component_export_index_delete(p); }
};
using ExportIndexPtr = std::unique_ptr<wasmtime_component_export_index_t, ExportIndexDeleter>;

// Deletes what a call's results own once they have been read.
struct ValsOwner {
  std::vector<Val> vals;
  explicit ValsOwner(size_t n) : vals(n) {}
  ~ValsOwner() {
    for (auto& v : vals) wasmtime_component_val_delete(&v);
  }
};

// A component value as Wasmtime's CLI prints an --invoke result.
std::string format_value(const Val& v) {
  switch (v.kind) {
    case WASMTIME_COMPONENT_BOOL: return v.of.boolean ? "true" : "false";
    case WASMTIME_COMPONENT_S8: return std::to_string(v.of.s8);
    case WASMTIME_COMPONENT_U8: return std::to_string(v.of.u8);
    case WASMTIME_COMPONENT_S16: return std::to_string(v.of.s16);
    case WASMTIME_COMPONENT_U16: return std::to_string(v.of.u16);
    case WASMTIME_COMPONENT_S32: return std::to_string(v.of.s32);
    case WASMTIME_COMPONENT_U32: return std::to_string(v.of.u32);
    case WASMTIME_COMPONENT_S64: return std::to_string(v.of.s64);
    case WASMTIME_COMPONENT_U64: return std::to_string(v.of.u64);
    case WASMTIME_COMPONENT_F32: return fmt::format("{}", v.of.f32);
    case WASMTIME_COMPONENT_F64: return fmt::format("{}", v.of.f64);
    case WASMTIME_COMPONENT_STRING: return fmt::format("\"{}\"", std::string_view(v.of.string.data, v.of.string.size));
    case WASMTIME_COMPONENT_ENUM: return std::string(v.of.enumeration.data, v.of.enumeration.size);
    case WASMTIME_COMPONENT_RESULT:
      return fmt::format("{}({})", v.of.result.is_ok ? "ok" : "err",
                         v.of.result.val ? format_value(*v.of.result.val) : "");
    case WASMTIME_COMPONENT_OPTION: return v.of.option ? fmt::format("some({})", format_value(*v.of.option)) : "none";
    default: return "<value>";
  }
}

// A call's error, by Wasmtime's CLI's rule: an exit (wasi:cli/exit), a Wasmtime Trap (134: an
// instruction's trap, the timeout's interrupt) or any other error (1), a host call's failure
// under a wasm frame among them; either message keeps the wasm backtrace, as Wasmtime prints it.
RunOutcome error_outcome(ErrorPtr err, uint64_t timeout_ms, std::string_view timeout_option) {
  int status = 0;
  if (wasmtime_error_exit_status(err.get(), &status)) return RunOutcome{status, false, {}, {}};
  std::string msg = message_of(err.get());
  const bool trapped = wasinn_error_is_trap(err.get());
  if (trapped && timeout_ms > 0 && msg.find("interrupt") != std::string::npos) {
    msg = fmt::format("{}\n{}", timeout_words(timeout_ms, timeout_option), msg);
  }
  return RunOutcome{trapped ? kTrapExit : kHostFailureExit, trapped, msg, {}};
}

struct ComponentInstance final : Instance::Impl {
  ~ComponentInstance() override {
    store.reset();  // before the state its host calls use
    // Before the run's end is reported: no framework may still run for the guest at exit.
    if (state) state->end_async_calls();
  }
  RunOutcome run(std::shared_ptr<Instance> self, const Program& program) override;
  bool call(const std::string& export_name, int32_t* result, std::string* error) override;

  void arm_deadline() const {
    if (timeout_ms == 0) return;
    wasmtime_context_set_epoch_deadline(wasmtime_store_context(store.get()), EpochTicker::ticks_for(timeout_ms));
  }
  // An export of the component by name, or within the exported instance `parent`.
  ExportIndexPtr export_index(const wasmtime_component_export_index_t* parent, std::string_view name) const {
    return ExportIndexPtr(wasmtime_component_instance_get_export_index(&instance, wasmtime_store_context(store.get()),
                                                                       parent, name.data(), name.size()));
  }
  // `wasi:cli/run@0.2.x`'s name as this component spells it, or "".
  std::string run_interface() const;
  // Calls a function of no parameters; results land in `out`.
  std::optional<RunOutcome> invoke(const wasmtime_component_func_t& func, ValsOwner& out) {
    arm_deadline();
    auto* call = p3 ? wasinn_component_func_call_p3 : wasmtime_component_func_call;
    ErrorPtr err(call(&func, wasmtime_store_context(store.get()), nullptr, 0, out.vals.data(), out.vals.size()));
    if (err) return error_outcome(std::move(err), timeout_ms, option_names.timeout);
    return std::nullopt;
  }
  Result<wasmtime_component_func_t> root_func(const std::string& name, size_t* nresults);

  uint64_t timeout_ms = 0;
  bool p3 = false;           // a WASI 0.3 component: instantiated and called asynchronously
  OptionNames option_names;  // the host's, for the run's messages
  const wasm_engine_t* engine = nullptr;
  std::unique_ptr<GuestState> state;  // the store's data pointer: must outlive the store
  StorePtr store;
  ComponentPtr component;
  wasmtime_component_instance_t instance{};
};

// The names of a component's imports (or exports), as it spells them.
std::vector<std::string> item_names(const wasmtime_component_t* component, const wasm_engine_t* engine, bool imports) {
  wasmtime_component_type_t* type = wasmtime_component_type(component);
  std::vector<std::string> names;
  const size_t n =
      imports ? wasmtime_component_type_import_count(type, engine) : wasmtime_component_type_export_count(type, engine);
  for (size_t i = 0; i < n; ++i) {
    const char* name = nullptr;
    size_t len = 0;
    wasmtime_component_extern_t* item = nullptr;
    const bool got = imports ? wasmtime_component_type_import_nth(type, engine, i, &name, &len, &item)
                             : wasmtime_component_type_export_nth(type, engine, i, &name, &len, &item);
    if (!got) continue;
    names.emplace_back(name, len);
    if (item) wasmtime_component_extern_delete(item);
  }
  wasmtime_component_type_delete(type);
  return names;
}

constexpr std::string_view kWasiPackages[] = {"wasi:cli/",        "wasi:io/",     "wasi:clocks/",
                                              "wasi:filesystem/", "wasi:random/", "wasi:sockets/"};

// Whether the component linker serves an import: WASI 0.2's and 0.3's interfaces
// (semver-compatible, as Wasmtime's add_wasip2 and p3::add_to_linker define them), wasi:nn's four
// interfaces in the versions wit_nn serves, and wasinn's own packages.
bool served(std::string_view import) {
  for (std::string_view package : kWasiPackages) {
    if (import.starts_with(package) && (import.find("@0.2.") != std::string_view::npos ||
                                        (import.find("@0.3.") != std::string_view::npos && package != "wasi:io/"))) {
      return true;
    }
  }
  for (std::string_view own : {"wasinn:nn-ext/", "wasinn:nn-async/"}) {
    if (import.starts_with(own) && import.ends_with("@0.1.0")) return true;
  }
  // Spin's llm interface (src/engine/wasmtime/src/spin_llm.rs), 2.0.x.
  if (import.starts_with("fermyon:spin/llm@2.0.")) return true;
  for (wit_nn::Version v : wit_nn::kVersions) {
    for (std::string_view iface : {"tensor", "graph", "inference", "errors"}) {
      if (import == fmt::format("wasi:nn/{}@{}", iface, wit_nn::version_name(v))) return true;
    }
  }
  return false;
}

// Why instantiation failed, in the user's terms when an import is one wasinn does not provide
// (Wasmtime says only that some function implementation is missing).
std::string instantiate_failure(const wasmtime_component_t* component, const wasm_engine_t* engine,
                                const std::string& name, const std::string& wasmtime_says) {
  std::vector<std::string> missing;
  for (auto& import : item_names(component, engine, true)) {
    if (!served(import)) missing.push_back(std::move(import));
  }
  if (missing.empty()) return fmt::format("cannot instantiate {}: {}", name, wasmtime_says);
  return fmt::format(
      "cannot instantiate {}: it imports {}, which wasinn does not provide (it serves WASI 0.2's cli, "
      "io, clocks, filesystem, random and sockets, WASI 0.3's cli, clocks, filesystem, random and sockets, "
      "wasi:nn@0.2.0-rc-2024-10-28, -08-19 and -06-25, wasinn:nn-ext and wasinn:nn-async 0.1.0, and of "
      "Spin's interfaces fermyon:spin/llm@2.0.0 only)"
      "\n(Wasmtime: {})",
      name, fmt::join(missing, ", "), wasmtime_says);
}

std::string ComponentInstance::run_interface() const {
  // Semver-compatible: any 0.2.x or 0.3.x of the interface.
  for (const auto& export_name : item_names(component.get(), engine, false)) {
    if (export_name.starts_with("wasi:cli/run@0.2.") || export_name.starts_with("wasi:cli/run@0.3.")) {
      return export_name;
    }
  }
  return "";
}

// Whether a component imports or exports a WASI 0.3 interface or wasinn's async wasi-nn: what
// -S p3=n turns off.
bool uses_p3_apis(const wasmtime_component_t* component, const wasm_engine_t* engine) {
  for (bool imports : {true, false}) {
    for (const auto& name : item_names(component, engine, imports)) {
      if (name.starts_with("wasinn:nn-async/")) return true;
      if (name.starts_with("wasi:") && name.find("@0.3.") != std::string::npos) return true;
    }
  }
  return false;
}

Result<wasmtime_component_func_t> ComponentInstance::root_func(const std::string& name, size_t* nresults) {
  wasmtime_context_t* cx = wasmtime_store_context(store.get());
  auto index = export_index(nullptr, name);
  wasmtime_component_func_t func{};
  if (!index || !wasmtime_component_instance_get_func(&instance, cx, index.get(), &func)) {
    return make_error(Errc::not_found, fmt::format("the component exports no function named {}", name));
  }
  wasmtime_component_func_type_t* type = wasmtime_component_func_type(&func, cx);
  const size_t nparams = wasmtime_component_func_type_param_count(type);
  wasmtime_component_valtype_t result_type;
  *nresults = wasmtime_component_func_type_result(type, &result_type) ? 1 : 0;
  if (*nresults) wasmtime_component_valtype_delete(&result_type);
  wasmtime_component_func_type_delete(type);
  if (nparams != 0) {
    return make_error(
        Errc::invalid_argument,
        fmt::format("{} takes {} parameter(s); wasinn calls component functions without arguments", name, nparams));
  }
  return func;
}

RunOutcome ComponentInstance::run(std::shared_ptr<Instance>, const Program& program) {
  const std::string name = program_name(program, "the component");
  wasmtime_context_t* cx = wasmtime_store_context(store.get());
  if (program.invoke.empty()) {
    const std::string iface = run_interface();
    auto iface_index = iface.empty() ? nullptr : export_index(nullptr, iface);
    auto run_index = iface_index ? export_index(iface_index.get(), "run") : nullptr;
    wasmtime_component_func_t func{};
    if (!run_index || !wasmtime_component_instance_get_func(&instance, cx, run_index.get(), &func)) {
      return RunOutcome{kHostFailureExit,
                        false,
                        fmt::format("{} is a WebAssembly component without a wasi:cli/run export: not a command (use "
                                    "{} NAME to call one of its exported functions)",
                                    name, option_names.invoke),
                        {}};
    }
    ValsOwner results(1);
    if (auto end = invoke(func, results)) return *end;
    // run returns result<_, _>: an err is exit status 1, as Wasmtime's CLI has it.
    const Val& r = results.vals[0];
    const bool ok = r.kind == WASMTIME_COMPONENT_RESULT && r.of.result.is_ok;
    return ok ? RunOutcome{} : RunOutcome{1, false, {}, {}};
  }
  // Wasmtime's call form, `answer()`, names the same function; arguments are not passed.
  std::string_view fn_name = program.invoke;
  const bool call_form = fn_name.ends_with(")") && fn_name.find('(') != std::string_view::npos;
  const bool with_args = call_form && fn_name.substr(fn_name.find('(')) != "()";
  if (!program.args.empty() || with_args) {
    return RunOutcome{
        kHostFailureExit,
        false,
        fmt::format("{} {}: arguments cannot be passed to a component's function", option_names.invoke, program.invoke),
        {}};
  }
  if (call_form) fn_name = fn_name.substr(0, fn_name.find('('));
  size_t nresults = 0;
  auto func = root_func(std::string(fn_name), &nresults);
  if (!func) return RunOutcome{kHostFailureExit, false, fmt::format("{}: {}", name, func.error().detail), {}};
  ValsOwner results(nresults);
  if (auto end = invoke(*func, results)) return *end;
  RunOutcome outcome;
  for (const auto& v : results.vals) outcome.results.push_back(format_value(v));
  return outcome;
}

bool ComponentInstance::call(const std::string& export_name, int32_t* result, std::string* error) {
  size_t nresults = 0;
  auto func = root_func(export_name, &nresults);
  if (!func) {
    if (error) *error = func.error().detail;
    return false;
  }
  ValsOwner results(nresults);
  if (auto end = invoke(*func, results)) {
    if (error) *error = end->message;
    if (result && !end->trapped) *result = end->exit_code;
    return false;
  }
  int32_t value = 0;
  if (nresults == 1) {
    const Val& v = results.vals[0];
    if (v.kind == WASMTIME_COMPONENT_S32)
      value = v.of.s32;
    else if (v.kind == WASMTIME_COMPONENT_U32)
      value = static_cast<int32_t>(v.of.u32);
    else if (v.kind == WASMTIME_COMPONENT_RESULT)
      value = v.of.result.is_ok ? 0 : 1;
    else {
      if (error) *error = fmt::format("{} returns {}, not an integer or a result", export_name, format_value(v));
      return false;
    }
  }
  if (result) *result = value;
  return true;
}

}  // namespace

Result<ComponentPtr> compile_component(const wasm_engine_t* engine, const std::vector<uint8_t>& bytes,
                                       const std::string& name) {
  wasmtime_component_t* component = nullptr;
  if (ErrorPtr err(wasmtime_component_new(engine, bytes.data(), bytes.size(), &component)); err) {
    return make_error(Errc::invalid_argument, fmt::format("{} is not a valid WebAssembly component: {}", name,
                                                          one_line(message_of(err.get()))));
  }
  return ComponentPtr(component);
}

size_t hostcall_fuel_for(const Limits& limits) {
  const uint64_t most = std::max<uint64_t>({limits.max_model_bytes, limits.max_tensor_bytes, 128ull << 20});
  return static_cast<size_t>(std::min<uint64_t>(most + (1u << 20), SIZE_MAX));
}

Status define_component_imports(wasmtime_component_linker_t* linker, bool p3) {
  auto* add_wasip2 = p3 ? wasmtime_component_linker_add_wasip2_async : wasmtime_component_linker_add_wasip2;
  if (ErrorPtr err(add_wasip2(linker)); err) {
    return make_error(Errc::runtime_error, "defining WASI 0.2: " + message_of(err.get()));
  }
  if (p3) {
    if (ErrorPtr err(wasinn_component_linker_add_wasip3(linker)); err) {
      return make_error(Errc::runtime_error, "defining WASI 0.3: " + message_of(err.get()));
    }
  }
  return define_wit_nn(linker);
}

P3Check check_p3(const P3Switches& switches, const wasmtime_component_t* component, const wasm_engine_t* engine,
                 const std::string& name) {
  // A WASI 0.3 component: it uses 0.3's APIs, or has a function typed async (an async export
  // with 0.2's imports or none is one too). Its async-lifted exports and concurrent imports need
  // Wasmtime's async instantiation and calls.
  const bool p3_apis = uses_p3_apis(component, engine);
  P3Check check;
  check.p3 = p3_apis || wasinn_component_has_async_func(engine, component);
  const std::string* off_by = check.p3 && !switches.component_model_async ? &switches.async_by
                              : p3_apis && !switches.wasi_p3              ? &switches.wasi_p3_by
                                                                          : nullptr;
  if (off_by) {
    check.refusal = fmt::format(
        "{} is a WASI 0.3 component (it imports or exports a 0.3 interface, "
        "wasinn:nn-async or an async function) and {} turned WASI 0.3 off: leave it out (0.3 is on by "
        "default) or give =y to run it",
        name, *off_by);
  }
  return check;
}

std::unique_ptr<Instance> instantiate_component(Host::Impl& host, const Program& program,
                                                const std::vector<uint8_t>& wasm, std::string* error, int* exit_code) {
  auto fail = [&](std::string msg) -> std::unique_ptr<Instance> {
    if (error) *error = std::move(msg);
    return nullptr;
  };
  const std::string name = program_name(program, "the component");
  auto component = host.component_cache->get(wasm, [&] { return compile_component(host.engine.get(), wasm, name); });
  if (!component) return fail(component.error().detail);
  auto impl = std::make_unique<ComponentInstance>();
  impl->engine = host.engine.get();
  impl->component = std::move(*component);
  impl->timeout_ms = host.timeout_ms;
  impl->option_names = host.option_names;
  impl->state = GuestState::for_component(host.env);
  impl->store.reset(wasmtime_store_new(host.engine.get(), impl->state.get(), nullptr));
  EpochTicker::limit_memory(impl->store.get(), host.max_memory_bytes);
  wasmtime_context_t* cx = wasmtime_store_context(impl->store.get());
  // wasinn's own limits are the ones a component meets: Wasmtime's per-call allowance for the
  // bytes a guest passes (128 MiB by default) is raised past them. wasi:nn reads them in place.
  wasinn_store_set_hostcall_fuel(cx, hostcall_fuel_for(host.env->limits()));
  impl->arm_deadline();
  auto wasi = make_wasi(program);
  if (!wasi) return fail(wasi.error().detail);
  // wasmtime_context_set_wasi takes ownership of the config, even on error.
  if (ErrorPtr err(wasmtime_context_set_wasi(cx, wasi->release())); err) return fail(message_of(err.get()));
  const P3Check p3 = check_p3(p3_switches(host), impl->component.get(), host.engine.get(), name);
  impl->p3 = p3.p3;
  if (!p3.refusal.empty()) {
    if (exit_code) *exit_code = kRefusedByOptionExit;
    return fail(p3.refusal);
  }
  if (host.max_resources > 0) wasinn_store_set_max_resources(cx, host.max_resources);
  auto* instantiate = impl->p3 ? wasinn_component_linker_instantiate_p3 : wasmtime_component_linker_instantiate;
  const auto& linker = impl->p3 ? host.component_linker_p3 : host.component_linker;
  if (ErrorPtr err(instantiate(linker.get(), cx, impl->component.get(), &impl->instance)); err) {
    return fail(instantiate_failure(impl->component.get(), host.engine.get(), name, one_line(message_of(err.get()))));
  }
  return std::make_unique<Instance>(std::move(impl));
}

}  // namespace wasinn
