// Host and Instance: the embedding API over the Wasmtime C API.
#include "wasinn/host.h"

#include <filesystem>
#include <condition_variable>
#include <fstream>
#include <mutex>
#include <thread>
#include <iterator>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include "core/mapped_file.h"
#include "core/nn_environment.h"
#include "core/nn_session.h"
#include "engine/guest_state.h"
#include "engine/nn_imports.h"
#include "engine/wasmtime_ptr.h"

namespace wasinn {

// Advances the engine's epoch every tick so that stores with a deadline get interrupted.
class EpochTicker {
 public:
  static constexpr auto kTick = std::chrono::milliseconds(10);
  explicit EpochTicker(const wasm_engine_t* engine) : thread_([this, engine] {
    std::unique_lock lock(mu_);
    while (!cv_.wait_for(lock, kTick, [this] { return stop_; })) wasmtime_engine_increment_epoch(engine);
  }) {}
  ~EpochTicker() {
    {
      std::lock_guard lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

struct Host::Impl {
  EnginePtr engine;
  LinkerPtr linker;  // shared by all programs: a Wasmtime linker may instantiate concurrently
  std::shared_ptr<NnEnvironment> env;
  uint64_t timeout_ms = 0;
  std::unique_ptr<EpochTicker> ticker;  // only when timeout_ms > 0; stopped before the engine dies

  ~Impl() { ticker.reset(); }
};

struct Instance::Impl {
  uint64_t timeout_ms = 0;
  std::unique_ptr<GuestState> state;  // the store's data pointer: must outlive the store
  StorePtr store;
  ModulePtr module;
  wasmtime_instance_t instance;
};

Instance::Instance(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Instance::~Instance() {
  // The store goes first: it may still reference the state through host functions.
  if (impl_) impl_->store.reset();
}

namespace {

constexpr int kHostFailureExit = 128;
constexpr int kTrapExit = 134;  // as Wasmtime's CLI: a trap is told apart from a host failure

Result<std::vector<uint8_t>> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error(Errc::not_found, fmt::format("cannot read {}", path));
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

Result<WasiConfigPtr> make_wasi(const Program& p) {
  WasiConfigPtr wasi(wasi_config_new());
  std::vector<const char*> argv;
  std::string argv0 = p.wasm_path.substr(p.wasm_path.find_last_of('/') + 1);
  argv.push_back(argv0.c_str());
  for (const auto& a : p.args) argv.push_back(a.c_str());
  if (!wasi_config_set_argv(wasi.get(), argv.size(), argv.data())) {
    return make_error(Errc::invalid_argument, "arguments are not valid UTF-8");
  }
  std::vector<const char*> names, values;
  for (const auto& [k, v] : p.env) {
    names.push_back(k.c_str());
    values.push_back(v.c_str());
  }
  if (!wasi_config_set_env(wasi.get(), names.size(), names.data(), values.data())) {
    return make_error(Errc::invalid_argument, "environment is not valid UTF-8");
  }
  wasi_config_inherit_stdin(wasi.get());
  wasi_config_inherit_stdout(wasi.get());
  wasi_config_inherit_stderr(wasi.get());
  for (const auto& [host, guest] : p.dirs) {
    if (!wasi_config_preopen_dir(wasi.get(), host.c_str(), guest.c_str(), /*fs_mutable=*/true)) {
      return make_error(Errc::not_found, fmt::format("cannot open directory {} for the guest", host));
    }
  }
  return wasi;
}

// Gives the store timeout_ms from now; a store without a deadline never sees epochs.
void arm_deadline(wasmtime_context_t* cx, uint64_t timeout_ms) {
  if (timeout_ms == 0) return;
  const uint64_t tick = EpochTicker::kTick.count();
  wasmtime_context_set_epoch_deadline(cx, (timeout_ms + tick - 1) / tick);
}

std::string describe_trap(const wasm_trap_t* trap, uint64_t timeout_ms) {
  wasmtime_trap_code_t code;
  if (timeout_ms > 0 && wasmtime_trap_code(trap, &code) && code == WASMTIME_TRAP_CODE_INTERRUPT) {
    return fmt::format("the guest ran longer than --timeout ({} ms) and was stopped\n{}", timeout_ms,
                       message_of(trap));
  }
  return message_of(trap);
}

}  // namespace

std::unique_ptr<Host> Host::create(HostOptions options, std::string* error) {
  auto impl = std::make_unique<Impl>();
  wasm_config_t* config = wasm_config_new();
  impl->timeout_ms = options.timeout_ms;
  // Epoch checks cost a little in every loop, so they are compiled in only when asked for.
  if (impl->timeout_ms > 0) wasmtime_config_epoch_interruption_set(config, true);
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
  Status nn = define_ephemeral_nn(impl->linker.get());
  if (nn.ok()) nn = define_legacy_nn(impl->linker.get());
  if (auto s = std::move(nn); !s.ok()) {
    if (error) *error = s.error().detail;
    return nullptr;
  }
  if (impl->timeout_ms > 0) impl->ticker = std::make_unique<EpochTicker>(impl->engine.get());
  EnvironmentOptions env_options;
  for (const auto& d : options.backend_dirs) env_options.backend_dirs.emplace_back(d);
  env_options.backend_configs = std::move(options.backend_configs);
  env_options.limits = options.limits;
  const auto isolation = parse_isolation_mode(options.isolate_loads);
  if (!isolation) {
    if (error) *error = fmt::format("isolate_loads '{}': expected auto, always or never", options.isolate_loads);
    return nullptr;
  }
  env_options.isolation.mode = *isolation;
  env_options.isolation.max_address_space_mb = options.isolated_load_max_mb;
  impl->env = std::make_shared<NnEnvironment>(std::move(env_options));
  std::vector<std::pair<std::string, Result<NamedModel>>> models;
  for (const auto& spec : options.preloads) models.emplace_back(spec, parse_preload_spec(spec));
  for (const auto& spec : options.wasmtime_graphs) models.emplace_back(spec, parse_wasmtime_graph_spec(spec));
  for (auto& [spec, model] : models) {
    if (model) {
      for (const auto& p : model->paths) {
        std::error_code ec;
        if (!std::filesystem::exists(p, ec)) {
          spdlog::warn("--nn-preload {}: {} does not exist; load_by_name(\"{}\") will fail", spec, p.string(),
                       model->name);
        }
      }
    }
    Status added = model ? impl->env->models().add(std::move(*model)) : Status(model.take_error());
    if (!added.ok()) {
      if (error) *error = added.error().detail;
      return nullptr;
    }
  }
  return std::unique_ptr<Host>(new Host(std::move(impl)));
}

Host::Host(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Host::~Host() = default;

std::unique_ptr<Instance> Host::instantiate(const Program& program, std::string* error) {
  auto fail = [&](std::string msg) -> std::unique_ptr<Instance> {
    if (error) *error = std::move(msg);
    return nullptr;
  };
  auto bytes = read_file(program.wasm_path);
  if (!bytes) return fail(bytes.error().detail);
  auto impl = std::make_unique<Instance::Impl>();
  wasmtime_module_t* module = nullptr;
  if (ErrorPtr err(wasmtime_module_new(impl_->engine.get(), bytes->data(), bytes->size(), &module)); err) {
    return fail(fmt::format("{} is not a valid WebAssembly module: {}", program.wasm_path, message_of(err.get())));
  }
  impl->module.reset(module);
  impl->timeout_ms = impl_->timeout_ms;
  impl->state = std::make_unique<GuestState>();
  impl->state->session = std::make_shared<NnSession>(impl_->env);
  impl->store.reset(wasmtime_store_new(impl_->engine.get(), impl->state.get(), nullptr));
  wasmtime_context_t* cx = wasmtime_store_context(impl->store.get());
  arm_deadline(cx, impl->timeout_ms);
  auto wasi = make_wasi(program);
  if (!wasi) return fail(wasi.error().detail);
  // wasmtime_context_set_wasi takes ownership of the config, even on error.
  if (ErrorPtr err(wasmtime_context_set_wasi(cx, wasi->release())); err) return fail(message_of(err.get()));

  wasm_trap_t* trap = nullptr;
  ErrorPtr err(wasmtime_linker_instantiate(impl_->linker.get(), cx, module, &impl->instance, &trap));
  if (err) return fail(fmt::format("cannot instantiate {}: {}", program.wasm_path, message_of(err.get())));
  if (trap) {
    TrapPtr t(trap);
    return fail(fmt::format("{} trapped while starting: {}", program.wasm_path, message_of(t.get())));
  }
  wasmtime_extern_t mem;
  if (wasmtime_instance_export_get(cx, &impl->instance, "memory", 6, &mem)) {
    if (mem.kind == WASMTIME_EXTERN_MEMORY) impl->state->memory = mem.of.memory;
    wasmtime_extern_delete(&mem);
  }
  return std::make_unique<Instance>(std::move(impl));
}

bool Instance::call(const std::string& export_name, int32_t* result, std::string* error) {
  wasmtime_context_t* cx = wasmtime_store_context(impl_->store.get());
  wasmtime_extern_t fn;
  if (!wasmtime_instance_export_get(cx, &impl_->instance, export_name.data(), export_name.size(), &fn) ||
      fn.kind != WASMTIME_EXTERN_FUNC) {
    if (error) *error = fmt::format("the module exports no function named {}", export_name);
    return false;
  }
  wasmtime_val_t results[1];
  wasm_functype_t* type = wasmtime_func_type(cx, &fn.of.func);
  const size_t nresults = wasm_functype_results(type)->size;
  const size_t nparams = wasm_functype_params(type)->size;
  wasm_functype_delete(type);
  if (nparams != 0 || nresults > 1) {
    if (error) *error = fmt::format("{} must take no parameters and return at most one i32", export_name);
    return false;
  }
  wasm_trap_t* trap = nullptr;
  arm_deadline(cx, impl_->timeout_ms);
  ErrorPtr err(wasmtime_func_call(cx, &fn.of.func, nullptr, 0, results, nresults, &trap));
  if (err) {
    if (error) *error = message_of(err.get());
    int status = 0;
    if (wasmtime_error_exit_status(err.get(), &status) && result) *result = status;
    return false;
  }
  if (trap) {
    TrapPtr t(trap);
    if (error) *error = describe_trap(t.get(), impl_->timeout_ms);
    return false;
  }
  if (result) *result = (nresults == 1 && results[0].kind == WASMTIME_I32) ? results[0].of.i32 : 0;
  return true;
}

RunOutcome Host::run(const Program& program) {
  std::string error;
  auto instance = instantiate(program, &error);
  if (!instance) return RunOutcome{kHostFailureExit, false, error};
  wasmtime_context_t* cx = wasmtime_store_context(instance->impl_->store.get());
  wasmtime_extern_t start;
  if (!wasmtime_instance_export_get(cx, &instance->impl_->instance, "_start", 6, &start) ||
      start.kind != WASMTIME_EXTERN_FUNC) {
    return RunOutcome{kHostFailureExit, false,
                      fmt::format("{} has no _start export: it is not a WASI command", program.wasm_path)};
  }
  wasm_trap_t* trap = nullptr;
  arm_deadline(cx, impl_->timeout_ms);
  ErrorPtr err(wasmtime_func_call(cx, &start.of.func, nullptr, 0, nullptr, 0, &trap));
  if (err) {
    int status = 0;
    if (wasmtime_error_exit_status(err.get(), &status)) return RunOutcome{status, false, {}};
    std::string msg = message_of(err.get());
    // WASI preview1 cannot carry exit codes of 126 and above; say so in one line.
    if (const auto at = msg.find("invalid exit status"); at != std::string::npos) {
      msg = msg.substr(at, msg.find('\n', at) - at);
    }
    return RunOutcome{kHostFailureExit, false, msg};
  }
  if (trap) {
    TrapPtr t(trap);
    return RunOutcome{kTrapExit, true, describe_trap(t.get(), impl_->timeout_ms)};
  }
  return RunOutcome{0, false, {}};
}

std::vector<BackendStatus> Host::probe_backends() {
  std::vector<BackendStatus> out;
  for (const auto& r : impl_->env->backends().probe_all()) {
    BackendStatus s;
    s.name = r.manifest.name;
    for (Encoding e : r.manifest.encodings) s.encodings.emplace_back(encoding_name(e));
    s.library = r.manifest.library.string();
    s.loadable = r.loaded;
    s.framework_version = r.framework_version;
    s.problem = r.problem;
    out.push_back(std::move(s));
  }
  for (const auto& p : impl_->env->backends().manifest_problems()) {
    BackendStatus s;
    s.name = "(bad manifest)";
    s.problem = p;
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace wasinn

namespace wasinn {
std::vector<std::string> Host::backend_search_dirs() const {
  std::vector<std::string> out;
  for (const auto& d : impl_->env->backends().dirs()) out.push_back(d.string());
  return out;
}
}  // namespace wasinn

namespace wasinn {

namespace {
TensorInfo describe_io(const IoInfo& io) {
  TensorInfo t;
  t.name = io.name;
  t.type = io.type ? std::string(type_name(*io.type)) : "?";
  t.rank_known = io.dims.has_value();
  if (io.dims) t.dims = *io.dims;
  return t;
}
}  // namespace

bool Host::inspect_model(const std::vector<std::string>& name_or_paths, const std::string& encoding,
                         ModelInfo* out, std::string* error) {
  auto fail = [&](std::string msg) {
    if (error) *error = std::move(msg);
    return false;
  };
  if (name_or_paths.empty()) return fail("no model given");
  Result<std::shared_ptr<Graph>> graph = make_error(Errc::unknown, "");
  if (name_or_paths.size() == 1 && impl_->env->models().contains(name_or_paths[0])) {
    graph = impl_->env->load_named(name_or_paths[0], {});
  } else {
    auto enc = parse_encoding(encoding);
    if (!enc) return fail(fmt::format("unknown encoding '{}'", encoding));
    const std::vector<std::filesystem::path> paths(name_or_paths.begin(), name_or_paths.end());
    auto mapped = MappedBuilders::open(paths);
    if (!mapped) {
      return fail(fmt::format("'{}' is neither a registered model name nor readable model files: {}",
                              fmt::join(name_or_paths, ", "), mapped.error().detail));
    }
    graph = impl_->env->load_graph(*enc, Target::cpu, mapped->builders(), paths, {});
  }
  if (!graph) return fail(fmt::format("{}: {}", errc_name(graph.error().code), graph.error().detail));
  const Graph& g = **graph;
  out->backend = g.plugin().name();
  out->framework_version = g.plugin().framework_version();
  out->encoding = std::string(encoding_name(g.encoding()));
  out->inputs.clear();
  out->outputs.clear();
  for (const auto& io : g.inputs()) out->inputs.push_back(describe_io(io));
  for (const auto& io : g.outputs()) out->outputs.push_back(describe_io(io));
  return true;
}

}  // namespace wasinn
