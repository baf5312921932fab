// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A core module's instance (ordinary or wasi-threads): compiling, instantiating with WASI
// preview 1 and the witx wasi-nn imports, running its `_start` or an export.
#include "engine/module_instance.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unordered_map>

#include <fmt/format.h>

#include "base/log.h"
#include "core/nn_session.h"
#include "engine/call_outcome.h"
#include "engine/guest_state.h"
#include "engine/guest_threads.h"
#include "engine/guest_wasi.h"
#include "engine/instance_impl.h"
#include "engine/memory_export.h"
#include "engine/module_bytes.h"
#include "engine/socket_imports.h"
#include "engine/wasmtime_ptr.h"
#include "engine/wit_host.h"

namespace wasinn {

namespace {

struct ModuleInstance final : Instance::Impl {
  ~ModuleInstance() override {
    if (threads) threads->stop(kThreadGrace);
    // The store goes first: it may still reference the state through host functions.
    store.reset();
  }
  RunOutcome run(std::shared_ptr<Instance> self, const Program& program) override;
  bool call(const std::string& export_name, int32_t* result, std::string* error) override;

  uint64_t timeout_ms = 0;
  OptionNames option_names;           // the host's, for the run's messages
  std::unique_ptr<GuestState> state;  // the store's data pointer: must outlive the store
  StorePtr store;
  // A wasi-threads guest's threads and shared memory (then `store` is its main thread's).
  std::shared_ptr<GuestThreads> threads;
  ModulePtr module;
  wasmtime_instance_t instance;
  // Exports already looked up by call: an embedder calling one export per request would
  // otherwise pay the by-name lookup and a function-type allocation every time.
  struct CallableExport {
    wasmtime_func_t func;
    size_t nresults;
  };
  std::unordered_map<std::string, CallableExport> callable_exports;
};

// Compiles a binary core module (Host::instantiate has turned text into binary and checked the
// preamble already). A module compiled before comes from the cache.
Result<ModulePtr> compile_module(wasm_engine_t* engine, ModuleCache& cache, const std::vector<uint8_t>& bytes,
                                 const std::string& name) {
  const auto invalid = [&](const std::string& why) {
    return make_error(Errc::invalid_argument, fmt::format("{} is not a valid WebAssembly module: {}", name, why));
  };
  return cache.get(bytes, [&]() -> Result<ModulePtr> {
    wasmtime_module_t* module = nullptr;
    if (ErrorPtr err(wasmtime_module_new(engine, bytes.data(), bytes.size(), &module)); err) {
      return invalid(one_line(message_of(err.get())));
    }
    return ModulePtr(module);
  });
}

// Gives the store timeout_ms from now; a store without a deadline never sees epochs. A
// wasi-threads guest's stores keep their own deadline (GuestThreads), measured from its start.
void arm_deadline(const ModuleInstance& instance) {
  if (instance.timeout_ms == 0 || instance.threads) return;
  wasmtime_context_set_epoch_deadline(wasmtime_store_context(instance.store.get()),
                                      EpochTicker::ticks_for(instance.timeout_ms));
}

// A module that imports a shared memory: a GuestThreads (whose main thread the Instance is).
std::unique_ptr<Instance> instantiate_threads(Host::Impl& host, const Program& program,
                                              const std::vector<uint8_t>& wasm, std::string* error) {
  auto fail = [&](std::string msg) -> std::unique_ptr<Instance> {
    if (error) *error = std::move(msg);
    return nullptr;
  };
  const std::string name = program_name(program, "the module");
  const Host::Impl::ThreadsEngine* threads_engine = host.threads_engine();
  if (!threads_engine) return fail("cannot create the WebAssembly engine for wasi-threads guests");
  // Compiled by the engine whose code checks epochs: how other threads are stopped.
  auto exported = with_memory_export(wasm);
  if (!exported) return fail(fmt::format("{} is not a valid WebAssembly module: {}", name, exported.error().detail));
  auto module =
      compile_module(threads_engine->engine.get(), *threads_engine->module_cache, *exported ? **exported : wasm, name);
  if (!module) return fail(module.error().detail);
  if (imports_wasmedge_sockets(module->get())) {
    return fail(
        fmt::format("{} is a wasi-threads guest that imports WasmEdge's socket ABI: wasinn serves those "
                    "sockets to single-threaded modules only",
                    name));
  }
  auto memory = shared_memory_import(module->get());
  if (!memory) return fail(fmt::format("{} imports no shared memory Wasmtime can read", name));
  GuestThreads::Settings settings;
  settings.engine = threads_engine->engine.get();
  settings.module = std::move(*module);
  settings.memory = std::move(*memory);
  settings.make_wasi = [program] { return make_wasi(program); };
  settings.session = std::make_shared<NnSession>(host.env);
  settings.timeout_ms = host.timeout_ms;
  settings.timeout_option = host.option_names.timeout;
  settings.max_memory_bytes = host.max_memory_bytes;
  settings.max_memory_option = host.option_names.max_memory;
  settings.max_threads = host.max_threads;
  auto threads = GuestThreads::create(std::move(settings));
  if (!threads) return fail(fmt::format("cannot run {}: {}", name, threads.error().detail));
  auto main_store = (*threads)->instantiate(name);
  if (!main_store) return fail(main_store.error().detail);
  auto impl = std::make_unique<ModuleInstance>();
  impl->timeout_ms = host.timeout_ms;
  impl->option_names = host.option_names;
  impl->threads = std::move(*threads);
  impl->state = std::move((*main_store)->state);
  impl->store = std::move((*main_store)->store);
  impl->instance = (*main_store)->instance;
  return std::make_unique<Instance>(std::move(impl));
}

}  // namespace

std::unique_ptr<Instance> instantiate_module(Host::Impl& host, const Program& program, const std::vector<uint8_t>& wasm,
                                             std::string* error) {
  auto fail = [&](std::string msg) -> std::unique_ptr<Instance> {
    if (error) *error = std::move(msg);
    return nullptr;
  };
  const std::string name = program_name(program, "the module");
  // A wasi-threads guest is compiled once, for the threads engine only.
  if (imports_shared_memory(wasm)) return instantiate_threads(host, program, wasm, error);
  auto module = compile_module(host.engine.get(), *host.module_cache, wasm, name);
  if (!module) return fail(module.error().detail);
  auto impl = std::make_unique<ModuleInstance>();
  impl->module = std::move(*module);
  impl->timeout_ms = host.timeout_ms;
  impl->option_names = host.option_names;
  impl->state = std::make_unique<GuestState>();
  impl->state->session = std::make_shared<NnSession>(host.env);
  // A module speaking WasmEdge's socket ABI gets its sockets and the socket linker.
  wasmtime_linker_t* linker = host.linker.get();
  if (imports_wasmedge_sockets(impl->module.get())) {
    std::string why;
    const Host::Impl::SocketLinker* sockets = host.socket_linker(&why);
    if (!sockets) return fail(fmt::format("cannot serve {} WasmEdge's socket ABI: {}", name, why));
    impl->state->sockets = std::make_shared<SocketGuest>(host.network, host.linker.get(), sockets->trampoline.get());
    linker = sockets->linker.get();
  }
  impl->store.reset(wasmtime_store_new(host.engine.get(), impl->state.get(), nullptr));
  EpochTicker::limit_memory(impl->store.get(), host.max_memory_bytes);
  wasmtime_context_t* cx = wasmtime_store_context(impl->store.get());
  arm_deadline(*impl);
  auto wasi = make_wasi(program);
  if (!wasi) return fail(wasi.error().detail);
  // wasmtime_context_set_wasi takes ownership of the config, even on error.
  if (ErrorPtr err(wasmtime_context_set_wasi(cx, wasi->release())); err) return fail(message_of(err.get()));
  if (host.max_resources > 0) wasinn_store_set_max_resources(cx, host.max_resources);  // p1's open files

  wasm_trap_t* trap = nullptr;
  ErrorPtr err(wasmtime_linker_instantiate(linker, cx, impl->module.get(), &impl->instance, &trap));
  if (err) return fail(fmt::format("cannot instantiate {}: {}", name, message_of(err.get())));
  if (trap) {
    TrapPtr t(trap);
    return fail(fmt::format("{} trapped while starting: {}", name, message_of(t.get())));
  }
  wasmtime_extern_t mem;
  if (wasmtime_instance_export_get(cx, &impl->instance, "memory", 6, &mem)) {
    if (mem.kind == WASMTIME_EXTERN_MEMORY) impl->state->memory = mem.of.memory;
    wasmtime_extern_delete(&mem);
  }
  return std::make_unique<Instance>(std::move(impl));
}

namespace {

bool ModuleInstance::call(const std::string& export_name, int32_t* result, std::string* error) {
  wasmtime_context_t* cx = wasmtime_store_context(store.get());
  auto found = callable_exports.find(export_name);
  if (found == callable_exports.end()) {
    wasmtime_extern_t fn;
    if (!wasmtime_instance_export_get(cx, &instance, export_name.data(), export_name.size(), &fn) ||
        fn.kind != WASMTIME_EXTERN_FUNC) {
      if (error) *error = fmt::format("the module exports no function named {}", export_name);
      return false;
    }
    wasm_functype_t* type = wasmtime_func_type(cx, &fn.of.func);
    const size_t nresults = wasm_functype_results(type)->size;
    const size_t nparams = wasm_functype_params(type)->size;
    wasm_functype_delete(type);
    if (nparams != 0 || nresults > 1) {
      if (error) *error = fmt::format("{} must take no parameters and return at most one i32", export_name);
      return false;
    }
    found = callable_exports.emplace(export_name, CallableExport{fn.of.func, nresults}).first;
  }
  const CallableExport& fn = found->second;
  const size_t nresults = fn.nresults;
  wasmtime_val_t results[1];
  wasm_trap_t* trap = nullptr;
  arm_deadline(*this);
  ErrorPtr err(wasmtime_func_call(cx, &fn.func, nullptr, 0, results, nresults, &trap));
  if (err) {
    if (error) *error = message_of(err.get());
    int status = 0;
    if (wasmtime_error_exit_status(err.get(), &status) && result) *result = status;
    return false;
  }
  if (trap) {
    TrapPtr t(trap);
    if (error) *error = describe_trap(t.get(), timeout_ms, option_names.timeout);
    return false;
  }
  if (result) *result = (nresults == 1 && results[0].kind == WASMTIME_I32) ? results[0].of.i32 : 0;
  return true;
}

// A function's result as Wasmtime's CLI prints it with --invoke.
std::string format_value(const wasmtime_val_t& v) {
  switch (v.kind) {
    case WASMTIME_I32: return std::to_string(v.of.i32);
    case WASMTIME_I64: return std::to_string(v.of.i64);
    case WASMTIME_F32: return fmt::format("{}", v.of.f32);
    case WASMTIME_F64: return fmt::format("{}", v.of.f64);
    case WASMTIME_V128: {
      unsigned __int128 x = 0;
      for (int i = 15; i >= 0; --i) x = (x << 8) | v.of.v128[i];
      std::string digits;
      do {
        digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(x % 10)));
        x /= 10;
      } while (x != 0);
      return digits;
    }
    case WASMTIME_FUNCREF: return wasmtime_funcref_is_null(&v.of.funcref) ? "<null funcref>" : "<funcref>";
    case WASMTIME_EXTERNREF: return wasmtime_externref_is_null(&v.of.externref) ? "<null externref>" : "<externref>";
    case WASMTIME_ANYREF: return wasmtime_anyref_is_null(&v.of.anyref) ? "<null anyref>" : "<anyref>";
    default: return "<ref>";
  }
}

// A command-line word as a parameter of type `kind` (integers and floats, as Wasmtime's CLI).
Result<wasmtime_val_t> parse_param(const std::string& word, wasm_valkind_t kind, size_t index) {
  wasmtime_val_t v{};
  const char* s = word.c_str();
  char* end = nullptr;
  errno = 0;
  bool ok = !word.empty();
  const char* type = "?";
  switch (kind) {
    case WASM_I32: {
      type = "i32";
      const long long x = std::strtoll(s, &end, 10);
      ok = ok && *end == '\0' && errno == 0 && x >= INT32_MIN && x <= INT32_MAX;
      v.kind = WASMTIME_I32;
      v.of.i32 = static_cast<int32_t>(x);
      break;
    }
    case WASM_I64: {
      type = "i64";
      const long long x = std::strtoll(s, &end, 10);
      ok = ok && *end == '\0' && errno == 0;
      v.kind = WASMTIME_I64;
      v.of.i64 = x;
      break;
    }
    case WASM_F32:
      type = "f32";
      v.kind = WASMTIME_F32;
      v.of.f32 = std::strtof(s, &end);
      ok = ok && *end == '\0';
      break;
    case WASM_F64:
      type = "f64";
      v.kind = WASMTIME_F64;
      v.of.f64 = std::strtod(s, &end);
      ok = ok && *end == '\0';
      break;
    default:
      return make_error(Errc::invalid_argument,
                        fmt::format("parameter {} is not a number type; only i32, i64, f32 and f64 parameters "
                                    "can be given on the command line",
                                    index + 1));
  }
  if (!ok)
    return make_error(Errc::invalid_argument, fmt::format("argument {} '{}' is not an {}", index + 1, word, type));
  return v;
}

// Runs the program's entry in an instance: its `_start`, or Program::invoke (after a reactor's
// `_initialize`), as Wasmtime's CLI does.
RunOutcome run_entry(ModuleInstance& instance, const Program& program) {
  wasmtime_context_t* cx = wasmtime_store_context(instance.store.get());
  const auto get_func = [&](const std::string& name, wasmtime_func_t* out) {
    wasmtime_extern_t ext;
    if (!wasmtime_instance_export_get(cx, &instance.instance, name.data(), name.size(), &ext)) return false;
    const bool is_func = ext.kind == WASMTIME_EXTERN_FUNC;
    if (is_func) *out = ext.of.func;
    wasmtime_extern_delete(&ext);
    return is_func;
  };
  const auto call = [&](const wasmtime_func_t& func, const wasmtime_val_t* args, size_t nargs, wasmtime_val_t* results,
                        size_t nresults) {
    wasm_trap_t* trap = nullptr;
    arm_deadline(instance);
    ErrorPtr err(wasmtime_func_call(cx, &func, args, nargs, results, nresults, &trap));
    return call_outcome(std::move(err), trap, instance.timeout_ms, instance.option_names.timeout);
  };
  const std::string name = program_name(program, "the module");
  wasmtime_func_t func;
  if (program.invoke.empty()) {
    if (!get_func("_start", &func) && !get_func("", &func)) {
      return RunOutcome{kHostFailureExit,
                        false,
                        fmt::format("{} has no _start export: it is not a WASI command (use {} NAME to call one of "
                                    "its exported functions)",
                                    name, instance.option_names.invoke),
                        {}};
    }
    if (auto end = call(func, nullptr, 0, nullptr, 0)) return *end;
    return RunOutcome{};
  }
  // A reactor initialises itself first, as Wasmtime's CLI does for --invoke.
  if (get_func("_initialize", &func)) {
    if (auto end = call(func, nullptr, 0, nullptr, 0)) return *end;
  }
  if (!get_func(program.invoke, &func)) {
    return RunOutcome{
        kHostFailureExit, false, fmt::format("{} exports no function named {}", name, program.invoke), {}};
  }
  wasm_functype_t* type = wasmtime_func_type(cx, &func);
  const wasm_valtype_vec_t* params = wasm_functype_params(type);
  const wasm_valtype_vec_t* results_type = wasm_functype_results(type);
  std::vector<wasm_valkind_t> param_kinds;
  for (size_t i = 0; i < params->size; ++i) param_kinds.push_back(wasm_valtype_kind(params->data[i]));
  const size_t nresults = results_type->size;
  wasm_functype_delete(type);
  if (program.args.size() != param_kinds.size()) {
    return RunOutcome{kHostFailureExit,
                      false,
                      fmt::format("{} takes {} argument(s) and {} were given", program.invoke, param_kinds.size(),
                                  program.args.size()),
                      {}};
  }
  std::vector<wasmtime_val_t> args;
  for (size_t i = 0; i < param_kinds.size(); ++i) {
    auto v = parse_param(program.args[i], param_kinds[i], i);
    if (!v)
      return RunOutcome{kHostFailureExit,
                        false,
                        fmt::format("{} {}: {}", instance.option_names.invoke, program.invoke, v.error().detail),
                        {}};
    args.push_back(*v);
  }
  std::vector<wasmtime_val_t> results(nresults);
  if (auto end = call(func, args.data(), args.size(), results.data(), results.size())) return *end;
  RunOutcome outcome;
  for (auto& r : results) {
    outcome.results.push_back(format_value(r));
    wasmtime_val_unroot(&r);
  }
  return outcome;
}

}  // namespace

RunOutcome ModuleInstance::run(std::shared_ptr<Instance> self, const Program& program) {
  if (!threads) return run_entry(*this, program);
  // A wasi-threads guest's entry runs on a thread of its own, so that this call returns as soon
  // as any thread ends the guest, even while the main thread waits on a lock that will never open.
  auto guest_threads = threads;
  guest_threads->start_main(
      [self, program] { return run_entry(static_cast<ModuleInstance&>(Instance::Impl::of(*self)), program); });
  RunOutcome outcome = guest_threads->wait_for_end();
  outcome.unstopped_threads = guest_threads->stop(kThreadGrace);
  self.reset();  // the last reference unless the main thread is one of those left running
  if (outcome.unstopped_threads > 0) {
    logger().debug("{}: {} guest thread(s) still parked {} ms after the guest's end (memory.atomic.wait)",
                   program_name(program, "the module"), outcome.unstopped_threads, kThreadGrace.count());
  }
  return outcome;
}

}  // namespace wasinn
