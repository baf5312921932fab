// Host and Instance: the embedding API over the Wasmtime C API: creating a Host and running
// programs (listing backends and inspecting models: host_info.cpp).
#include "wasinn/host.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <string>
#include <unordered_map>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "core/log.h"
#include "core/nn_environment.h"
#include "core/nn_session.h"
#include "engine/call_outcome.h"
#include "engine/guest_state.h"
#include "engine/guest_threads.h"
#include "engine/host_impl.h"
#include "engine/memory_export.h"
#include "engine/nn_imports.h"
#include "engine/wasmtime_ptr.h"

namespace wasinn {

struct Instance::Impl {
  uint64_t timeout_ms = 0;
  std::unique_ptr<GuestState> state;  // the store's data pointer: must outlive the store
  StorePtr store;
  // A wasi-threads guest's threads and shared memory (then `store` is its main thread's).
  std::shared_ptr<GuestThreads> threads;
  ModulePtr module;
  wasmtime_instance_t instance;
  // Exports already looked up by Instance::call: an embedder calling one export per request
  // would otherwise pay the by-name lookup and a function-type allocation every time.
  struct CallableExport {
    wasmtime_func_t func;
    size_t nresults;
  };
  std::unordered_map<std::string, CallableExport> callable_exports;
};

Instance::Instance(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Instance::~Instance() {
  if (!impl_) return;
  if (impl_->threads) impl_->threads->stop(kThreadGrace);
  // The store goes first: it may still reference the state through host functions.
  impl_->store.reset();
}

namespace {

std::string module_name(const Program& p) { return p.wasm_path.empty() ? std::string("the module") : p.wasm_path; }

// Reads a module file without ever throwing: a directory, a device that does not end, an
// unreadable or oversized file each give one line naming the file.
Result<std::vector<uint8_t>> read_module(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return make_error(Errc::not_found, fmt::format("cannot read {}: {}", path, std::strerror(errno)));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    return make_error(Errc::not_found, fmt::format("cannot read {}: {}", path, std::strerror(errno)));
  }
  if (S_ISDIR(st.st_mode)) {
    return make_error(Errc::invalid_argument,
                      fmt::format("cannot read {}: it is a directory, not a WebAssembly module", path));
  }
  const auto too_large = [&] {
    return make_error(Errc::too_large, fmt::format("cannot read {}: it is larger than {} MiB, the most a module may be",
                                                   path, kMaxModuleBytes >> 20));
  };
  if (S_ISREG(st.st_mode) && static_cast<uint64_t>(st.st_size) > kMaxModuleBytes) return too_large();
  std::vector<uint8_t> bytes;
  if (S_ISREG(st.st_mode)) bytes.reserve(static_cast<size_t>(st.st_size));
  uint8_t buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return make_error(Errc::not_found, fmt::format("cannot read {}: {}", path, std::strerror(errno)));
    if (n == 0) break;
    if (bytes.size() + static_cast<size_t>(n) > kMaxModuleBytes) return too_large();
    bytes.insert(bytes.end(), buf, buf + n);
  }
  return bytes;
}

// Wasmtime's errors run over several lines ("...\n\nCaused by:\n    0: ...\n    1: ..."); a
// module error is one line: the causes joined with ": ".
std::string one_line(const std::string& msg) {
  std::string out;
  size_t at = 0;
  while (at <= msg.size()) {
    size_t nl = msg.find('\n', at);
    if (nl == std::string::npos) nl = msg.size();
    std::string line = msg.substr(at, nl - at);
    at = nl + 1;
    const auto first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos) continue;
    line = line.substr(first, line.find_last_not_of(" \t\r") - first + 1);
    if (line == "Caused by:") continue;
    size_t digits = 0;
    while (digits < line.size() && line[digits] >= '0' && line[digits] <= '9') ++digits;
    if (digits > 0 && line.compare(digits, 2, ": ") == 0) line = line.substr(digits + 2);
    out += (out.empty() ? "" : ": ") + line;
  }
  return out;
}

// wat2wasm's error is "REASON\n     --> <anon>:LINE:COL\n      |\n    1 | source...\n      |  ^":
// kept as "REASON (line LINE, column COL)".
std::string wat_error(const std::string& msg) {
  const std::string reason = msg.substr(0, msg.find('\n'));
  const auto at = msg.find("--> <anon>:");
  if (at == std::string::npos) return one_line(msg);
  const std::string where = msg.substr(at + 11, msg.find('\n', at) - at - 11);
  const auto colon = where.find(':');
  if (colon == std::string::npos) return one_line(msg);
  return fmt::format("{} (line {}, column {})", reason, where.substr(0, colon), where.substr(colon + 1));
}

bool looks_like_text(const std::vector<uint8_t>& b) {
  size_t i = 0;
  if (b.size() >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF) i = 3;  // UTF-8 BOM
  while (i < b.size() && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r')) ++i;
  return i < b.size() && (b[i] == '(' || (b[i] == ';' && i + 1 < b.size() && b[i + 1] == ';'));
}

// A text module (.wat) as binary wasm; its syntax error in one line.
Result<std::vector<uint8_t>> text_to_binary(const std::vector<uint8_t>& text, const std::string& name) {
  wasm_byte_vec_t out;
  if (ErrorPtr err(wasmtime_wat2wasm(reinterpret_cast<const char*>(text.data()), text.size(), &out)); err) {
    return make_error(Errc::invalid_argument, fmt::format("{} is not a valid WebAssembly text module: {}", name,
                                                          wat_error(message_of(err.get()))));
  }
  std::vector<uint8_t> binary(reinterpret_cast<const uint8_t*>(out.data),
                              reinterpret_cast<const uint8_t*>(out.data) + out.size);
  wasm_byte_vec_delete(&out);
  return binary;
}

// Compiles a binary module (Host::instantiate has turned a text one into binary already); never
// a byte dump. A module compiled before comes from the cache.
Result<ModulePtr> compile_module(wasm_engine_t* engine, ModuleCache& cache, const std::vector<uint8_t>& bytes,
                                 const std::string& name) {
  static constexpr uint8_t kMagic[4] = {0x00, 0x61, 0x73, 0x6D};
  const auto invalid = [&](const std::string& why) {
    return make_error(Errc::invalid_argument, fmt::format("{} is not a valid WebAssembly module: {}", name, why));
  };
  if (bytes.empty()) return invalid("it is empty");
  if (bytes.size() < 4 || std::memcmp(bytes.data(), kMagic, 4) != 0) {
    std::string start;
    for (size_t i = 0; i < std::min<size_t>(bytes.size(), 8); ++i) start += fmt::format("{:02x} ", bytes[i]);
    start.pop_back();
    return invalid(fmt::format("it starts with the bytes {}, not \\0asm (binary) or a text module's '('", start));
  }
  if (bytes.size() >= 8 && bytes[4] == 0x0d && bytes[5] == 0x00 && bytes[6] == 0x01 && bytes[7] == 0x00) {
    return invalid("it is a WebAssembly component; wasinn runs core modules (wasm32-wasi, wasip1)");
  }
  return cache.get(bytes, [&]() -> Result<ModulePtr> {
    wasmtime_module_t* module = nullptr;
    if (ErrorPtr err(wasmtime_module_new(engine, bytes.data(), bytes.size(), &module)); err) {
      return invalid(one_line(message_of(err.get())));
    }
    return ModulePtr(module);
  });
}

using GuestOutput = std::function<void(std::string_view)>;

// Wasmtime's custom stdout/stderr writer: a write is all taken, or fails with EIO if the
// embedder's callback throws (an exception must not unwind through Wasmtime).
ptrdiff_t write_guest_output(void* data, const unsigned char* bytes, size_t size) {
  try {
    (*static_cast<GuestOutput*>(data))(std::string_view(reinterpret_cast<const char*>(bytes), size));
    return static_cast<ptrdiff_t>(size);
  } catch (...) {
    return -EIO;
  }
}

void delete_guest_output(void* data) { delete static_cast<GuestOutput*>(data); }

Result<WasiConfigPtr> make_wasi(const Program& p) {
  WasiConfigPtr wasi(wasi_config_new());
  std::vector<const char*> argv;
  const std::string argv0 = p.argv0.empty() ? p.wasm_path.substr(p.wasm_path.find_last_of('/') + 1) : p.argv0;
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
  if (p.stdin_bytes) {
    wasm_byte_vec_t input;  // the config takes it
    wasm_byte_vec_new(&input, p.stdin_bytes->size(), p.stdin_bytes->data());
    wasi_config_set_stdin_bytes(wasi.get(), &input);
  } else {
    wasi_config_inherit_stdin(wasi.get());
  }
  if (p.on_stdout) {
    wasi_config_set_stdout_custom(wasi.get(), write_guest_output, new GuestOutput(p.on_stdout), delete_guest_output);
  } else {
    wasi_config_inherit_stdout(wasi.get());
  }
  if (p.on_stderr) {
    wasi_config_set_stderr_custom(wasi.get(), write_guest_output, new GuestOutput(p.on_stderr), delete_guest_output);
  } else {
    wasi_config_inherit_stderr(wasi.get());
  }
  for (const auto& [host, guest] : p.dirs) {
    if (!wasi_config_preopen_dir(wasi.get(), host.c_str(), guest.c_str(), /*fs_mutable=*/true)) {
      return make_error(Errc::not_found, fmt::format("cannot open directory {} for the guest", host));
    }
  }
  return wasi;
}

// Gives the store timeout_ms from now; a store without a deadline never sees epochs. A
// wasi-threads guest's stores keep their own deadline (GuestThreads), measured from its start.
void arm_deadline(const Instance::Impl& instance) {
  if (instance.timeout_ms == 0 || instance.threads) return;
  const uint64_t tick = EpochTicker::kTick.count();
  wasmtime_context_set_epoch_deadline(wasmtime_store_context(instance.store.get()),
                                      (instance.timeout_ms + tick - 1) / tick);
}

}  // namespace

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
  impl->max_memory_bytes = options.max_memory_bytes;
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
  Status nn = define_ephemeral_nn(impl->linker.get());
  if (nn.ok()) nn = define_legacy_nn(impl->linker.get());
  if (auto s = std::move(nn); !s.ok()) {
    if (error) *error = s.error().detail;
    return nullptr;
  }
  if (impl->timeout_ms > 0) impl->ticker = std::make_unique<EpochTicker>(impl->engine.get());
  // Every engine setting that changes compiled code is in the entries' key.
  impl->module_cache_dir = options.module_cache == "off"   ? std::filesystem::path()
                           : options.module_cache.empty() ? default_module_cache_dir()
                                                          : std::filesystem::path(options.module_cache);
  impl->module_cache = std::make_unique<ModuleCache>(impl->engine.get(), impl->module_cache_dir,
                                                     fmt::format("epoch-interruption={},threads=y", impl->timeout_ms > 0));
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
  set_verdict_cache(env_options.isolation, options.isolated_load_cache);
  impl->env = std::make_shared<NnEnvironment>(std::move(env_options));
  std::vector<std::pair<std::string, Result<NamedModel>>> models;
  for (const auto& spec : options.preloads) models.emplace_back(spec, parse_preload_spec(spec));
  for (const auto& spec : options.wasmtime_graphs) models.emplace_back(spec, parse_wasmtime_graph_spec(spec));
  for (auto& [spec, model] : models) {
    if (model) {
      for (const auto& p : model->paths) {
        std::error_code ec;
        if (!std::filesystem::exists(p, ec)) {
          logger().warn("--nn-preload {}: {} does not exist; load_by_name(\"{}\") will fail", spec, p.string(),
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

namespace {

// A module that imports a shared memory: a GuestThreads (whose main thread the Instance is).
std::unique_ptr<Instance> instantiate_threads(Host::Impl& host, const Program& program,
                                              const std::vector<uint8_t>& wasm, std::string* error) {
  auto fail = [&](std::string msg) -> std::unique_ptr<Instance> {
    if (error) *error = std::move(msg);
    return nullptr;
  };
  const std::string name = module_name(program);
  const Host::Impl::ThreadsEngine* threads_engine = host.threads_engine();
  if (!threads_engine) return fail("cannot create the WebAssembly engine for wasi-threads guests");
  // Compiled by the engine whose code checks epochs: how other threads are stopped.
  auto exported = with_memory_export(wasm);
  if (!exported) return fail(fmt::format("{} is not a valid WebAssembly module: {}", name, exported.error().detail));
  auto module = compile_module(threads_engine->engine.get(), *threads_engine->module_cache,
                               *exported ? **exported : wasm, name);
  if (!module) return fail(module.error().detail);
  auto memory = shared_memory_import(module->get());
  if (!memory) return fail(fmt::format("{} imports no shared memory Wasmtime can read", name));
  GuestThreads::Settings settings;
  settings.engine = threads_engine->engine.get();
  settings.module = std::move(*module);
  settings.memory = std::move(*memory);
  settings.make_wasi = [program] { return make_wasi(program); };
  settings.session = std::make_shared<NnSession>(host.env);
  settings.timeout_ms = host.timeout_ms;
  settings.max_memory_bytes = host.max_memory_bytes;
  settings.max_threads = host.max_threads;
  auto threads = GuestThreads::create(std::move(settings));
  if (!threads) return fail(fmt::format("cannot run {}: {}", name, threads.error().detail));
  auto main_store = (*threads)->instantiate(name);
  if (!main_store) return fail(main_store.error().detail);
  auto impl = std::make_unique<Instance::Impl>();
  impl->timeout_ms = host.timeout_ms;
  impl->threads = std::move(*threads);
  impl->state = std::move((*main_store)->state);
  impl->store = std::move((*main_store)->store);
  impl->instance = (*main_store)->instance;
  return std::make_unique<Instance>(std::move(impl));
}

}  // namespace

std::unique_ptr<Instance> Host::instantiate(const Program& program, std::string* error) {
  auto fail = [&](std::string msg) -> std::unique_ptr<Instance> {
    if (error) *error = std::move(msg);
    return nullptr;
  };
  try {
    const std::string name = module_name(program);
    Result<std::vector<uint8_t>> read = make_error(Errc::unknown, "");
    if (!program.wasm_bytes) read = read_module(program.wasm_path);
    if (!program.wasm_bytes && !read) return fail(read.error().detail);
    const std::vector<uint8_t>* bytes = program.wasm_bytes ? &*program.wasm_bytes : &*read;
    // A text module is converted here, so that its imports can be read before compiling.
    std::vector<uint8_t> converted;
    if (looks_like_text(*bytes)) {
      auto binary = text_to_binary(*bytes, name);
      if (!binary) return fail(binary.error().detail);
      converted = std::move(*binary);
      bytes = &converted;
    }
    // A wasi-threads guest is compiled once, for the threads engine only.
    if (imports_shared_memory(*bytes)) return instantiate_threads(*impl_, program, *bytes, error);
    auto module = compile_module(impl_->engine.get(), *impl_->module_cache, *bytes, name);
    if (!module) return fail(module.error().detail);
    auto impl = std::make_unique<Instance::Impl>();
    impl->module = std::move(*module);
    impl->timeout_ms = impl_->timeout_ms;
    impl->state = std::make_unique<GuestState>();
    impl->state->session = std::make_shared<NnSession>(impl_->env);
    impl->store.reset(wasmtime_store_new(impl_->engine.get(), impl->state.get(), nullptr));
    if (impl_->max_memory_bytes > 0) {
      const auto limit = static_cast<int64_t>(std::min<uint64_t>(impl_->max_memory_bytes, INT64_MAX));
      wasmtime_store_limiter(impl->store.get(), limit, -1, -1, -1, -1);
    }
    wasmtime_context_t* cx = wasmtime_store_context(impl->store.get());
    arm_deadline(*impl);
    auto wasi = make_wasi(program);
    if (!wasi) return fail(wasi.error().detail);
    // wasmtime_context_set_wasi takes ownership of the config, even on error.
    if (ErrorPtr err(wasmtime_context_set_wasi(cx, wasi->release())); err) return fail(message_of(err.get()));

    wasm_trap_t* trap = nullptr;
    ErrorPtr err(wasmtime_linker_instantiate(impl_->linker.get(), cx, impl->module.get(), &impl->instance, &trap));
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
  } catch (const std::exception& e) {
    return fail(fmt::format("cannot run {}: {}", module_name(program), e.what()));
  }
}

bool Instance::call(const std::string& export_name, int32_t* result, std::string* error) {
  wasmtime_context_t* cx = wasmtime_store_context(impl_->store.get());
  auto found = impl_->callable_exports.find(export_name);
  if (found == impl_->callable_exports.end()) {
    wasmtime_extern_t fn;
    if (!wasmtime_instance_export_get(cx, &impl_->instance, export_name.data(), export_name.size(), &fn) ||
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
    found = impl_->callable_exports.emplace(export_name, Impl::CallableExport{fn.of.func, nresults}).first;
  }
  const Impl::CallableExport& fn = found->second;
  const size_t nresults = fn.nresults;
  wasmtime_val_t results[1];
  wasm_trap_t* trap = nullptr;
  arm_deadline(*impl_);
  ErrorPtr err(wasmtime_func_call(cx, &fn.func, nullptr, 0, results, nresults, &trap));
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

namespace {

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
                                    "can be given on the command line", index + 1));
  }
  if (!ok) return make_error(Errc::invalid_argument, fmt::format("argument {} '{}' is not an {}", index + 1, word, type));
  return v;
}

}  // namespace

RunOutcome Host::run(const Program& program) {
  try {
    return run_unguarded(program);
  } catch (const std::exception& e) {
    return RunOutcome{kHostFailureExit, false, fmt::format("cannot run {}: {}", module_name(program), e.what()), {}};
  } catch (...) {
    return RunOutcome{kHostFailureExit, false, fmt::format("cannot run {}: unknown error", module_name(program)), {}};
  }
}

namespace {

// Runs the program's entry in an instance: its `_start`, or Program::invoke (after a reactor's
// `_initialize`), as Wasmtime's CLI does.
RunOutcome run_entry(Instance::Impl& instance, const Program& program) {
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
    return call_outcome(std::move(err), trap, instance.timeout_ms);
  };
  const std::string name = module_name(program);
  wasmtime_func_t func;
  if (program.invoke.empty()) {
    if (!get_func("_start", &func) && !get_func("", &func)) {
      return RunOutcome{kHostFailureExit, false,
                        fmt::format("{} has no _start export: it is not a WASI command (use --invoke NAME to call "
                                    "one of its exported functions)", name), {}};
    }
    if (auto end = call(func, nullptr, 0, nullptr, 0)) return *end;
    return RunOutcome{};
  }
  // A reactor initialises itself first, as Wasmtime's CLI does for --invoke.
  if (get_func("_initialize", &func)) {
    if (auto end = call(func, nullptr, 0, nullptr, 0)) return *end;
  }
  if (!get_func(program.invoke, &func)) {
    return RunOutcome{kHostFailureExit, false, fmt::format("{} exports no function named {}", name, program.invoke), {}};
  }
  wasm_functype_t* type = wasmtime_func_type(cx, &func);
  const wasm_valtype_vec_t* params = wasm_functype_params(type);
  const wasm_valtype_vec_t* results_type = wasm_functype_results(type);
  std::vector<wasm_valkind_t> param_kinds;
  for (size_t i = 0; i < params->size; ++i) param_kinds.push_back(wasm_valtype_kind(params->data[i]));
  const size_t nresults = results_type->size;
  wasm_functype_delete(type);
  if (program.args.size() != param_kinds.size()) {
    return RunOutcome{kHostFailureExit, false,
                      fmt::format("{} takes {} argument(s) and {} were given", program.invoke, param_kinds.size(),
                                  program.args.size()), {}};
  }
  std::vector<wasmtime_val_t> args;
  for (size_t i = 0; i < param_kinds.size(); ++i) {
    auto v = parse_param(program.args[i], param_kinds[i], i);
    if (!v) return RunOutcome{kHostFailureExit, false, fmt::format("--invoke {}: {}", program.invoke, v.error().detail), {}};
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

RunOutcome Host::run_unguarded(const Program& program) {
  std::string error;
  auto instance = instantiate(program, &error);
  if (!instance) return RunOutcome{kHostFailureExit, false, error, {}};
  if (!instance->impl_->threads) return run_entry(*instance->impl_, program);
  // A wasi-threads guest's entry runs on a thread of its own, so that this call returns as soon
  // as any thread ends the guest, even while the main thread waits on a lock that will never open.
  std::shared_ptr<Instance> main(std::move(instance));
  auto threads = main->impl_->threads;
  threads->start_main([main, program] { return run_entry(*main->impl_, program); });
  RunOutcome outcome = threads->wait_for_end();
  outcome.unstopped_threads = threads->stop(kThreadGrace);
  main.reset();  // the last reference unless the main thread is one of those left running
  if (outcome.unstopped_threads > 0) {
    logger().debug("{}: {} guest thread(s) still parked {} ms after the guest's end (memory.atomic.wait)",
                  module_name(program), outcome.unstopped_threads, kThreadGrace.count());
  }
  return outcome;
}

}  // namespace wasinn
