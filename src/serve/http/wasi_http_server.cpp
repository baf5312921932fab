// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Host::serve and Server: the C++ side of the engine's HTTP server (serve_host.h). It compiles
// the component on the serve engine, gives each request a GuestState over the Host's shared
// NnEnvironment (so a preloaded graph is loaded once per process), and counts requests.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/log.h"
#include "base/sha256.h"
#include "core/request_trace.h"
#include "wasinn/available_cpus.h"
#include "serve/admission.h"
#include "serve/api_keys.h"
#include "serve/model_routes.h"
#include "serve/request_metrics.h"
#include "engine/call_outcome.h"
#include "engine/component_instance.h"
#include "engine/epoch_ticker.h"
#include "engine/module_cache.h"
#include "engine/guest_state.h"
#include "engine/module_bytes.h"
#include "engine/serving.h"
#include "serve/http/serve_host.h"
#include "engine/wasmtime_ptr.h"
#include "engine/wit_nn_imports.h"
#include "engine/wit_str.h"
#include "wasinn/host.h"
#include "wasinn/server.h"

// serve_host.h's records and tables are filled by name, every field: one the header gains and this
// file leaves out, or one reordered, is a build error here (layers.tables_by_name).
#pragma GCC diagnostic error "-Wmissing-field-initializers"

namespace wasinn {

namespace {

// What the Rust server calls back into (serve_host.h's user and admission policy): the server's
// from its start until its release, since a guest cut at the drain's end may finish, and call
// back, after the Server is gone.
struct ServeUser {
  std::shared_ptr<NnEnvironment> env;
  // A 0.2 request's instance lives for that request alone: its computes end with its
  // --request-timeout (0: none; a reused 0.3 instance's nn-async calls are cancelled instead).
  uint64_t request_deadline_ms = 0;
  std::function<void(const RequestRecord&)> on_request;
  std::function<bool(std::string_view)> authorize;
  RequestMetrics metrics;
  Admission admission;

  ServeUser(std::shared_ptr<NnEnvironment> e, std::function<void(const RequestRecord&)> r,
            std::function<bool(std::string_view)> a, size_t workers, size_t max_queue)
      : env(std::move(e)), on_request(std::move(r)), authorize(std::move(a)), admission(workers, max_queue) {}
};

}  // namespace

struct Server::Impl {
  // An engine of the server's own: its code checks epochs (a request's timeout stops its
  // guest), ticked while it lives; with the pooling allocator, instances come from
  // preallocated slots. Declared first: it outlives everything made from it.
  EnginePtr engine;
  std::unique_ptr<EpochTicker> ticker;
  std::unique_ptr<ComponentCache> component_cache;
  ComponentPtr component;     // the server's pre-instantiation keeps its own reference too
  ServeUser* user = nullptr;  // the server's (released by it); valid while `server` lives
  wasinn_server* server = nullptr;
  std::string address;
  std::mutex mu;
  std::condition_variable stopped;
  bool stop_requested = false;
  bool drained = false;
  std::shared_ptr<ApiKeys> keys;  // ServeOptions::api_keys and api_key_files, when given

  ~Impl() {
    if (server) {
      if (!drained) {
        wasinn_serve_stop(server);
        wasinn_serve_wait(server, 0);
      }
      wasinn_serve_free(server);
    }
    ticker.reset();
  }
};

namespace {

void* new_guest(void* user, wasinn_wit_str presented_key, wasinn_wit_str request_id) noexcept {
  try {
    const auto* served = static_cast<ServeUser*>(user);
    auto state = GuestState::for_component(served->env);
    state->session->set_request_id(std::string(view(request_id)));
    if (served->request_deadline_ms) {
      state->session->set_deadline(std::chrono::steady_clock::now() +
                                   std::chrono::milliseconds(served->request_deadline_ms));
    }
    // With keys, a request's prompts reuse only KV its own key's requests left: the partition is
    // the key's digest (the key itself goes no further). A state without a key (a reused instance
    // serves every key; a public path) shares KV with no other context.
    if (!view(presented_key).empty()) {
      Sha256 digest;
      digest.field(view(presented_key));
      state->session->set_cache_partition("key:" + digest.hex_digest());
    } else if (served->authorize) {
      state->session->isolate_cache();
    }
    return state.release();
  } catch (...) {
    return nullptr;
  }
}

// Wasmtime's pooling allocator reserves address space for its 1000 memory slots at start (4 GiB
// each, whatever --max-memory-size says: about 3.95 TiB measured) and aborts the process when it
// cannot; a finite `ulimit -v` below that is said here instead, with what to do.
constexpr uint64_t kPoolingReservation = 4ull << 40;

std::string pooling_refusal(const ServeOptions& options) {
  rlimit limit{};
  if (!options.pooling_allocator || getrlimit(RLIMIT_AS, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY ||
      limit.rlim_cur >= kPoolingReservation) {
    return {};
  }
  return fmt::format(
      "the pooling allocator (-O pooling-allocator, on by default for serve) reserves about 4 TiB of address "
      "space for its instances' memories, more than the {} GiB this process may map (ulimit -v): raise the limit, "
      "or pass -O pooling-allocator=n to allocate each instance's memory when it is made",
      limit.rlim_cur >> 30);
}

// The serve engine: epoch interruption always; the pooling allocator when asked, its linear
// memories as large as --max-memory-size allows (Wasmtime's 4 GiB reservation otherwise).
EnginePtr make_serve_engine(const ServeOptions& options, uint64_t max_memory_bytes) {
  wasm_config_t* config = wasm_config_new();
  wasmtime_config_epoch_interruption_set(config, true);
  if (options.pooling_allocator) {
    wasmtime_pooling_allocation_config_t* pool = wasmtime_pooling_allocation_config_new();
    if (max_memory_bytes > 0) wasmtime_pooling_allocation_config_max_memory_size_set(pool, max_memory_bytes);
    wasmtime_pooling_allocation_strategy_set(config, pool);
    wasmtime_pooling_allocation_config_delete(pool);
  }
  return EnginePtr(wasm_engine_new_with_config(config));
}

// The request's store is gone: its nn-async work is cancelled and waited for first.
void free_guest(void*, void* guest) noexcept {
  auto* state = static_cast<GuestState*>(guest);
  state->end_async_calls();
  delete state;
}

// serve_host.h's admission table over Admission.
int admission_enter(void* self, void (*granted)(void*, bool), void* waiter, uint64_t* ticket) noexcept {
  try {
    switch (
        static_cast<Admission*>(self)->enter([granted, waiter](bool admitted) { granted(waiter, admitted); }, ticket)) {
      case Admission::Entry::admitted: return WASINN_ADMISSION_ADMITTED;
      case Admission::Entry::queued: return WASINN_ADMISSION_QUEUED;
      case Admission::Entry::refused: break;
    }
  } catch (...) {
    // Out of memory for the wait: refused, as a full queue.
  }
  return WASINN_ADMISSION_REFUSED;
}
bool admission_withdraw(void* self, uint64_t ticket) noexcept {
  return static_cast<Admission*>(self)->withdraw(ticket);
}
void admission_leave(void* self) noexcept { static_cast<Admission*>(self)->leave(); }
void admission_close(void* self) noexcept { static_cast<Admission*>(self)->close(); }
void admission_resize(void* self, size_t places) noexcept { static_cast<Admission*>(self)->resize(places); }
void release_user(void* user) noexcept { delete static_cast<ServeUser*>(user); }

bool authorized(void* user, wasinn_wit_str authorization) noexcept {
  try {
    return static_cast<ServeUser*>(user)->authorize(view(authorization));
  } catch (...) {
    return false;  // the contract says it must not throw; refusing is the safe answer
  }
}

void answered(void* user, const wasinn_request_record_t* r) noexcept {
  auto* served = static_cast<ServeUser*>(user);
  served->metrics.record(r->status, r->micros, r->outcome, r->path);
  if (!served->on_request) return;
  try {
    served->on_request(*r);
  } catch (...) {
    // The contract says it must not throw; a log line lost is all it costs.
  }
}

void host_route(void* user, wasinn_wit_str method, wasinn_wit_str path, wasinn_wit_str body,
                void (*answer)(void*, uint32_t, wasinn_wit_str), void* answer_ctx) noexcept {
  try {
    const ModelRouteAnswer a =
        answer_model_route(*static_cast<ServeUser*>(user)->env, view(method), view(path), view(body));
    answer(answer_ctx, static_cast<uint32_t>(a.status), wit_str(a.json));
  } catch (...) {
    // Out of memory for the answer: none given is the server's 500.
  }
}

void warned(void*, wasinn_wit_str line) noexcept {
  try {
    logger().warn("{}", view(line));
  } catch (...) {
    // The contract says it must not throw; the line is lost, nothing else.
  }
}

// A line of the server's trace, "serve [ID] ...": json logs get the id as a field too.
void traced(void*, wasinn_wit_str line) noexcept {
  try {
    const std::string_view text = view(line);
    std::string_view id;
    if (text.starts_with("serve [")) {
      if (const size_t end = text.find("] "); end != std::string_view::npos) id = text.substr(7, end - 7);
    }
    log_with_fields(spdlog::level::trace, text, {{"request_id", id}, {"layer", "serve"}});
  } catch (...) {
    // As warned: the line is lost, nothing else.
  }
}

}  // namespace

std::unique_ptr<Server> Host::serve(const Program& program, const ServeOptions& options, std::string* error,
                                    int* exit_code) {
  if (exit_code) *exit_code = kHostFailureExit;
  auto fail = [&](std::string msg) -> std::unique_ptr<Server> {
    if (error) *error = std::move(msg);
    return nullptr;
  };
  try {
    const ServedHost host = served_host(*impl_);
    const std::string name = program_name(program, "the component");
    // Before the models load: checked at once.
    if (std::string why = pooling_refusal(options); !why.empty())
      return fail(fmt::format("cannot serve {}: {}", name, why));
    if (options.busy_poll_us > ServeOptions::kMaxBusyPollUs) {
      return fail(fmt::format("cannot serve {}: a busy poll of {} us is past the most, {} us ({} ms)", name,
                              options.busy_poll_us, ServeOptions::kMaxBusyPollUs, ServeOptions::kMaxBusyPollUs / 1000));
    }
    auto binary = program_binary(program);
    if (!binary) return fail(binary.error().detail);
    auto kind = binary_kind(*binary, name);
    if (!kind) return fail(kind.error().detail);
    if (*kind != BinaryKind::component) {
      return fail(
          fmt::format("{} is a core module; wasinn serve runs a component that exports "
                      "wasi:http/incoming-handler (the wasi:http/proxy world)",
                      name));
    }
    auto impl = std::make_unique<Server::Impl>();
    impl->engine = make_serve_engine(options, host.max_memory_bytes);
    if (!impl->engine) return fail("cannot create the WebAssembly engine for serving");
    impl->ticker = std::make_unique<EpochTicker>(impl->engine.get());
    impl->component_cache =
        std::make_unique<ComponentCache>(impl->engine.get(), host.module_cache_dir, "epoch-interruption=true,serve=y");
    auto component =
        impl->component_cache->get(*binary, [&] { return compile_component(impl->engine.get(), *binary, name); });
    if (!component) return fail(component.error().detail);
    impl->component = std::move(*component);
    // -S p3=n, -W component-model-async=n: a 0.3 component is refused, as run refuses it; a 0.2
    // one is served. Before the models load, so the mistake costs no load.
    const P3Check p3 = check_p3(host.p3, impl->component.get(), impl->engine.get(), name);
    if (!p3.refusal.empty()) {
      if (exit_code) *exit_code = kRefusedByOptionExit;
      return fail(p3.refusal);
    }
    // Every registered model is loaded now, before the server listens: one that cannot load is
    // a start error rather than each request's 500, and no request pays a load. A remote
    // model's server may come up later: warned about, then tried again by the requests.
    for (const auto& model : host.env->models().list()) {
      if (model.on_demand) continue;  // loaded at its first use (--models-dir)
      auto graph = host.env->load_named(model.name, "");
      if (graph) continue;
      if (model.encoding == Encoding::remote) {
        logger().warn("the remote model '{}' is not reachable yet ({}); requests for it will try again", model.name,
                      graph.error().detail);
        continue;
      }
      return fail(
          fmt::format("cannot serve {}: the model '{}' does not load: {}", name, model.name, graph.error().detail));
    }
    std::vector<wasinn_wit_str> env, dirs;
    for (const auto& [k, v] : program.env) env.insert(env.end(), {wit_str(k), wit_str(v)});
    // The guest learns the models it may load by name: WASINN_MODELS=NAME:ENCODING,... (what
    // http_openai's /v1/models lists), unless the command line sets it.
    const std::string models_key = "WASINN_MODELS";
    std::string models_value;
    for (const auto& model : host.env->models().list()) {
      Encoding encoding = model.encoding;
      if (model.on_demand) {
        encoding = Encoding::ggml;                // --models-dir registers GGUF files alone
      } else if (encoding != Encoding::remote) {  // loaded above: the graph says what AUTO became
        if (auto graph = host.env->load_named(model.name, "")) encoding = (*graph)->encoding();
      }
      models_value += fmt::format("{}{}:{}", models_value.empty() ? "" : ",", model.name, encoding_name(encoding));
    }
    const bool models_given =
        std::any_of(program.env.begin(), program.env.end(), [&](const auto& kv) { return kv.first == models_key; });
    if (!models_given) env.insert(env.end(), {wit_str(models_key), wit_str(models_value)});
    for (const auto& [host_dir, guest_dir] : program.dirs)
      dirs.insert(dirs.end(), {wit_str(host_dir), wit_str(guest_dir)});
    const size_t cores = available_cpus();
    wasinn_serve_config config{};
    config.engine = impl->engine.get();
    config.component = impl->component.get();
    config.nn = &wit_host_table();
    config.addr = wit_str(options.address);
    config.workers = options.workers ? options.workers : cores;
    std::function<bool(std::string_view)> authorize = options.authorize;
    if (!authorize && (!options.api_keys.empty() || !options.api_key_files.empty())) {
      auto keys = ApiKeys::make(options.api_keys, options.api_key_files);
      if (!keys) return fail(keys.error().detail);
      impl->keys = *keys;
      authorize = [keys = *keys](std::string_view authorization) { return keys->check(authorization); };
    }
    // Handed over at start, success or failure: the server releases it (release_user).
    auto* user = new ServeUser(host.env, options.on_request, authorize, config.workers, options.max_queue);
    if (!p3.p3) user->request_deadline_ms = options.request_timeout_ms;
    // By name (leave and close share a signature: by position, a slip would compile).
    config.admission = {.policy = &user->admission,
                        .enter = admission_enter,
                        .withdraw = admission_withdraw,
                        .leave = admission_leave,
                        .close = admission_close,
                        .resize = admission_resize};
    config.request_timeout_ms = options.request_timeout_ms;
    config.max_request_bytes = options.max_request_bytes;
    config.max_memory_bytes = host.max_memory_bytes;
    config.hostcall_fuel = hostcall_fuel_for(host.env->limits());
    config.max_resources = host.max_resources;
    // The epoch deadline lies two ticks past the answer's, so the 504 goes out before the trap.
    config.timeout_ticks = options.request_timeout_ms ? EpochTicker::ticks_for(options.request_timeout_ms) + 2 : 0;
    config.env = env.data();
    config.env_count = env.size() / 2;
    config.dirs = dirs.data();
    config.dir_count = program.dirs.size();
    config.inherit_stdio = true;
    config.user = user;
    config.guest_new = new_guest;
    config.guest_free = free_guest;
    config.on_request = answered;
    config.release = release_user;
    config.authorize = authorize ? authorized : nullptr;
    config.header_timeout_ms = options.header_timeout_ms;
    config.max_connections = options.max_connections;
    config.tls_cert = wit_str(options.tls_cert);
    config.tls_key = wit_str(options.tls_key);
    config.tls_client_ca = wit_str(options.tls_client_ca);
    config.max_instance_reuse_count = options.max_instance_reuse_count;
    config.max_instance_concurrent_reuse_count = options.max_instance_concurrent_reuse_count;
    config.idle_instance_timeout_ms = options.idle_instance_timeout_ms;
    config.busy_poll_us = options.busy_poll_us;
    config.on_warning = warned;
    config.trace = tracing() ? traced : nullptr;
    std::vector<wasinn_wit_str> public_paths;
    for (const auto& path : options.public_paths) public_paths.push_back(wit_str(path));
    config.public_paths = public_paths.data();
    config.public_path_count = public_paths.size();
    std::vector<wasinn_wit_str> host_paths;
    if (options.model_routes) {
      for (const auto& path : model_route_paths()) host_paths.push_back(wit_str(path));
      config.host_route = host_route;
    }
    config.host_paths = host_paths.data();
    config.host_path_count = host_paths.size();
    if (ErrorPtr err(wasinn_serve_start(&config, &impl->server)); err) {
      std::string message = one_line(message_of(err.get()));
      // A command component (wasi:cli/run) handed to serve: say which command runs it.
      if (message.find("no exported instance named `wasi:http/incoming-handler") != std::string::npos) {
        message +=
            ": it is not a wasi:http/proxy component; a command component (one exporting wasi:cli/run) "
            "runs with `wasinn run`";
      }
      return fail(fmt::format("cannot serve {}: {}", name, message));
    }
    impl->user = user;
    impl->address = std::string(view(wasinn_serve_address(impl->server)));
    return std::make_unique<Server>(std::move(impl));
  } catch (const std::exception& e) {
    return fail(fmt::format("cannot serve {}: {}", program_name(program, "the component"), e.what()));
  }
}

Server::Server(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Server::~Server() = default;

const std::string& Server::address() const { return impl_->address; }

void Server::stop() {
  wasinn_serve_stop(impl_->server);
  std::lock_guard lock(impl_->mu);
  impl_->stop_requested = true;
  impl_->stopped.notify_all();
}

uint64_t Server::wait(uint64_t grace_ms) {
  {
    std::unique_lock lock(impl_->mu);
    impl_->stopped.wait(lock, [&] { return impl_->stop_requested; });
  }
  const uint64_t cut = wasinn_serve_wait(impl_->server, grace_ms);
  impl_->drained = true;
  return cut;
}

std::optional<size_t> Server::reload_api_keys(std::string* error) {
  auto fail = [&](std::string message) -> std::optional<size_t> {
    if (error) *error = std::move(message);
    return std::nullopt;
  };
  if (!impl_->keys) return fail("the server was given no API keys to reload");
  auto reloaded = impl_->keys->reload();
  if (!reloaded) return fail(reloaded.error().detail);
  return *reloaded;
}

std::string Server::metrics_text() const {
  wasinn_serve_stats stats{};
  wasinn_serve_read_stats(impl_->server, &stats);
  const Admission::Gauges admission = impl_->user->admission.gauges();
  return impl_->user->metrics.render({stats.in_flight, stats.running, admission.queued, admission.refused, true,
                                      stats.connections, stats.connections_refused});
}

}  // namespace wasinn
