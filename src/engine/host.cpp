// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Host and Instance: the embedding API over the Wasmtime C API: creating a Host (its engines and
// linkers) and telling a program's kind, so that a core module (module_instance) or a component
// (component_instance) runs it. Listing backends and inspecting models: host_info.cpp.
#include "wasinn/host.h"

#include <algorithm>
#include <exception>
#include <filesystem>
#include <string>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "base/log.h"
#include "engine/call_outcome.h"
#include "engine/component_instance.h"
#include "root/host_environment.h"
#include "engine/host_impl.h"
#include "engine/instance_impl.h"
#include "engine/module_bytes.h"
#include "engine/module_instance.h"
#include "engine/logging_imports.h"
#include "engine/nn_imports.h"
#include "engine/serving.h"
#include "engine/socket_imports.h"
#include "engine/wasmtime_ptr.h"

namespace wasinn {

ServedHost served_host(const Host::Impl& host) {
  return ServedHost{host.env, host.max_memory_bytes, host.module_cache_dir, p3_switches(host), host.max_resources};
}

P3Switches p3_switches(const Host::Impl& host) {
  return P3Switches{host.wasi_p3, host.component_model_async, host.option_names.wasi_p3,
                    host.option_names.component_model_async};
}

Instance::Instance(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Instance::~Instance() = default;

bool Instance::call(const std::string& export_name, int32_t* result, std::string* error) {
  return impl_->call(export_name, result, error);
}

std::unique_ptr<Host> Host::create(HostOptions options, std::string* error) {
  auto impl = std::make_unique<Impl>();
  if (options.log) {
    impl->log_callback = std::make_unique<AttachedLogCallback>(
        [log = std::move(options.log)](spdlog::level::level_enum level, std::string_view message) {
          log(static_cast<LogLevel>(std::min<int>(level, spdlog::level::critical)), message);
        });
  }
  wasm_config_t* config = wasm_config_new();
  impl->timeout_ms = options.timeout_ms;
  impl->option_names = options.option_names;
  impl->max_memory_bytes = options.max_memory_bytes;
  impl->wasi_p3 = options.wasi_p3;
  impl->component_model_async = options.component_model_async;
  impl->max_resources = options.max_resources;
  impl->max_threads = options.max_threads;
  // Epoch checks cost a little in every loop, so they are compiled in only when asked for.
  if (impl->timeout_ms > 0) wasmtime_config_epoch_interruption_set(config, true);
  // Atomics validate here too: only a module that imports a shared memory is a wasi-threads
  // guest (run on the threads engine); one that merely uses atomic instructions runs here.
  wasmtime_config_wasm_threads_set(config, true);
  impl->engine.reset(wasm_engine_new_with_config(config));
  if (!impl->engine) {
    if (error) *error = "cannot create the WebAssembly engine";
    return nullptr;
  }
  impl->linker.reset(wasmtime_linker_new(impl->engine.get()));
  if (ErrorPtr err(wasmtime_linker_define_wasi(impl->linker.get())); err) {
    if (error) *error = "defining WASI: " + message_of(err.get());
    return nullptr;
  }
  impl->component_linker.reset(wasmtime_component_linker_new(impl->engine.get()));
  impl->component_linker_p3.reset(wasmtime_component_linker_new(impl->engine.get()));
  Status nn = define_ephemeral_nn(impl->linker.get());
  if (nn.ok()) nn = define_legacy_nn(impl->linker.get());
  if (nn.ok()) nn = define_wasi_logging(impl->linker.get());
  if (nn.ok()) nn = define_component_imports(impl->component_linker.get(), false);
  if (nn.ok()) nn = define_component_imports(impl->component_linker_p3.get(), true);
  if (nn.ok()) {
    auto network = NetworkPolicy::make(options.network.listen, options.network.connect,
                                       {options.option_names.listen, options.option_names.connect});
    if (network) {
      impl->network = std::make_shared<const NetworkPolicy>(std::move(*network));
    } else {
      nn = network.take_error();
    }
  }
  if (auto s = std::move(nn); !s.ok()) {
    if (error) *error = s.error().detail;
    return nullptr;
  }
  if (impl->timeout_ms > 0) impl->ticker = std::make_unique<EpochTicker>(impl->engine.get());
  // Every engine setting that changes compiled code is in the entries' key.
  impl->module_cache_dir = options.module_cache == "off"  ? std::filesystem::path()
                           : options.module_cache.empty() ? default_module_cache_dir()
                                                          : std::filesystem::path(options.module_cache);
  const std::string settings = fmt::format("epoch-interruption={},threads=y", impl->timeout_ms > 0);
  impl->module_cache = std::make_unique<ModuleCache>(impl->engine.get(), impl->module_cache_dir, settings);
  impl->component_cache = std::make_unique<ComponentCache>(impl->engine.get(), impl->module_cache_dir, settings);
  auto env = make_environment(options);
  if (!env) {
    if (error) *error = env.error().detail;
    return nullptr;
  }
  impl->env = std::move(env->env);
  impl->catalog = std::move(env->catalog);
  return std::unique_ptr<Host>(new Host(std::move(impl)));
}

Host::Host(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Host::~Host() = default;

const Host::Impl::ThreadsEngine* Host::Impl::threads_engine() {
  std::call_once(threads_engine_once, [this] {
    wasm_config_t* config = wasm_config_new();
    wasmtime_config_wasm_threads_set(config, true);
    wasmtime_config_shared_memory_set(config, true);
    wasmtime_config_epoch_interruption_set(config, true);
    auto made = std::make_unique<ThreadsEngine>();
    made->engine.reset(wasm_engine_new_with_config(config));
    if (!made->engine) return;
    made->module_cache = std::make_unique<ModuleCache>(made->engine.get(), module_cache_dir,
                                                       "epoch-interruption=true,threads=y,shared-memory=y");
    if (timeout_ms > 0) made->ticker = std::make_unique<EpochTicker>(made->engine.get());
    threads_engine_ = std::move(made);
  });
  return threads_engine_.get();
}

const Host::Impl::SocketLinker* Host::Impl::socket_linker(std::string* error) {
  std::call_once(socket_linker_once, [this] {
    // The plain linker's imports, with WasmEdge's sockets over some of WASI's.
    auto made = std::make_unique<SocketLinker>();
    made->linker.reset(wasmtime_linker_new(engine.get()));
    wasmtime_linker_allow_shadowing(made->linker.get(), true);
    Status s;
    if (ErrorPtr err(wasmtime_linker_define_wasi(made->linker.get())); err) {
      s = make_error(Errc::runtime_error, "defining WASI: " + message_of(err.get()));
    }
    if (s.ok()) s = define_ephemeral_nn(made->linker.get());
    if (s.ok()) s = define_legacy_nn(made->linker.get());
    if (s.ok()) s = define_wasi_logging(made->linker.get());
    if (s.ok()) s = define_wasmedge_sockets(made->linker.get());
    if (s.ok()) {
      if (auto trampoline = compile_socket_trampoline(engine.get())) {
        made->trampoline = std::move(*trampoline);
      } else {
        s = trampoline.take_error();
      }
    }
    if (s.ok()) {
      socket_linker_ = std::move(made);
    } else {
      socket_linker_error = s.error().detail;
    }
  });
  if (!socket_linker_ && error) *error = socket_linker_error;
  return socket_linker_.get();
}

std::unique_ptr<Instance> Host::instantiate(const Program& program, std::string* error) {
  int exit_code = kHostFailureExit;
  return instantiate(program, error, &exit_code);
}

std::unique_ptr<Instance> Host::instantiate(const Program& program, std::string* error, int* exit_code) {
  auto fail = [&](std::string msg) -> std::unique_ptr<Instance> {
    if (error) *error = std::move(msg);
    return nullptr;
  };
  try {
    auto binary = program_binary(program);
    if (!binary) return fail(binary.error().detail);
    auto kind = binary_kind(*binary, program_name(program, "the module"));
    if (!kind) return fail(kind.error().detail);
    if (*kind == BinaryKind::component) return instantiate_component(*impl_, program, *binary, error, exit_code);
    return instantiate_module(*impl_, program, *binary, error);
  } catch (const std::exception& e) {
    return fail(fmt::format("cannot run {}: {}", program_name(program, "the module"), e.what()));
  }
}

RunOutcome Host::run(const Program& program) {
  try {
    return run_unguarded(program);
  } catch (const std::exception& e) {
    return RunOutcome{
        kHostFailureExit, false, fmt::format("cannot run {}: {}", program_name(program, "the module"), e.what()), {}};
  } catch (...) {
    return RunOutcome{
        kHostFailureExit, false, fmt::format("cannot run {}: unknown error", program_name(program, "the module")), {}};
  }
}

RunOutcome Host::run_unguarded(const Program& program) {
  std::string error;
  int exit_code = kHostFailureExit;
  std::shared_ptr<Instance> instance = instantiate(program, &error, &exit_code);
  if (!instance) return RunOutcome{exit_code, false, error, {}};
  Instance::Impl& impl = *instance->impl_;
  return impl.run(std::move(instance), program);
}

}  // namespace wasinn
