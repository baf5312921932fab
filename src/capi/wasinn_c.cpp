// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The C API (include/wasinn/wasinn.h): opaque structs over the C++ Host, Program and RunOutcome.
// No exception crosses into C: each entry that can throw (allocation) answers as documented
// for failure instead.
#include "wasinn/wasinn.h"

#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "wasinn/host.h"
#include "wasinn/server.h"
#include "wasinn/version.h"

// The host's messages name the C functions that set an option, not the C++ fields or CLI flags.
wasinn::HostOptions c_host_options() {
  wasinn::HostOptions options;
  options.option_names.preload = "wasinn_options_add_preload";
  options.option_names.backend_config = "wasinn_options_set_backend_config";
  options.option_names.isolate_loads = "wasinn_options_set_isolate_loads";
  options.option_names.timeout = "wasinn_options_set_timeout_ms";
  options.option_names.max_memory = "wasinn_options_set_max_memory_bytes";
  options.option_names.invoke = "wasinn_program_set_invoke";
  options.option_names.listen = "wasinn_options_add_listen";
  options.option_names.connect = "wasinn_options_add_connect";
  return options;
}

struct wasinn_options_t {
  wasinn::HostOptions options = c_host_options();
};

struct wasinn_host_t {
  std::unique_ptr<wasinn::Host> host;
};

struct wasinn_program_t {
  wasinn::Program program;
  bool capture_stdout = false;
  bool capture_stderr = false;
};

struct wasinn_result_t {
  wasinn::RunOutcome outcome;
  std::string stdout_text;
  std::string stderr_text;
};

struct wasinn_backend_list_t {
  std::vector<wasinn::BackendStatus> backends;
  std::vector<std::string> encodings;  // joined, one per backend
};

struct wasinn_serve_options_t {
  wasinn::ServeOptions options;
  wasinn_request_fn on_request = nullptr;
  void* user_data = nullptr;
};

struct wasinn_server_t {
  std::unique_ptr<wasinn::Server> server;
};

namespace {

// A malloc'd copy the caller frees with wasinn_free (NULL when out of memory).
char* malloc_copy(const std::string& text) {
  auto* out = static_cast<char*>(std::malloc(text.size() + 1));
  if (out) std::memcpy(out, text.c_str(), text.size() + 1);
  return out;
}

void set_error(char** errptr, const std::string& message) {
  if (errptr) *errptr = malloc_copy(message);
}

std::string str(const char* s) { return s ? std::string(s) : std::string(); }

// ApiKeys' messages name `wasinn serve`'s flags; a C caller gave no flags.
std::string without_flag_names(std::string message) {
  for (const auto& [flag, words] : {std::pair<std::string, std::string>{"--api-key-file ", "API key file "},
                                    std::pair<std::string, std::string>{"--api-key", "API key"}}) {
    for (size_t at; (at = message.find(flag)) != std::string::npos;) message.replace(at, flag.size(), words);
  }
  return message;
}

}  // namespace

extern "C" {

const char* wasinn_version(void) { return WASINN_VERSION_STRING; }
int wasinn_c_api_version(void) { return WASINN_C_API_VERSION; }
void wasinn_free(void* ptr) { std::free(ptr); }

wasinn_options_t* wasinn_options_create(void) { return new (std::nothrow) wasinn_options_t(); }
void wasinn_options_destroy(wasinn_options_t* options) { delete options; }
void wasinn_options_add_backend_dir(wasinn_options_t* o, const char* dir) {
  o->options.backend_dirs.push_back(str(dir));
}
void wasinn_options_set_backend_config(wasinn_options_t* o, const char* backend, const char* json) {
  o->options.backend_configs[str(backend)] = str(json);
}
void wasinn_options_add_preload(wasinn_options_t* o, const char* spec) { o->options.preloads.push_back(str(spec)); }
void wasinn_options_add_listen(wasinn_options_t* o, const char* addr_port) {
  o->options.network.listen.push_back(str(addr_port));
}
void wasinn_options_add_connect(wasinn_options_t* o, const char* host_port) {
  o->options.network.connect.push_back(str(host_port));
}
void wasinn_options_set_timeout_ms(wasinn_options_t* o, uint64_t timeout_ms) { o->options.timeout_ms = timeout_ms; }
void wasinn_options_set_max_threads(wasinn_options_t* o, size_t max_threads) { o->options.max_threads = max_threads; }
void wasinn_options_set_nn_context_wait(wasinn_options_t* o, int wait) {
  o->options.limits.wait_for_busy_context = wait != 0;
}
void wasinn_options_set_max_memory_bytes(wasinn_options_t* o, uint64_t max_bytes) {
  o->options.max_memory_bytes = max_bytes;
}
void wasinn_options_set_isolate_loads(wasinn_options_t* o, const char* mode) { o->options.isolate_loads = str(mode); }
void wasinn_options_set_module_cache(wasinn_options_t* o, const char* dir) { o->options.module_cache = str(dir); }
void wasinn_options_set_log_callback(wasinn_options_t* o, wasinn_log_fn fn, void* user_data) {
  if (!fn) {
    o->options.log = nullptr;
    return;
  }
  o->options.log = [fn, user_data](wasinn::LogLevel level, std::string_view message) {
    fn(user_data, static_cast<wasinn_log_level_t>(level), message.data(), message.size());
  };
}

wasinn_host_t* wasinn_host_create(const wasinn_options_t* options, char** errptr) {
  try {
    std::string error;
    auto host = wasinn::Host::create(options ? options->options : c_host_options(), &error);
    if (!host) {
      set_error(errptr, error);
      return nullptr;
    }
    return new wasinn_host_t{std::move(host)};
  } catch (const std::exception& e) {
    set_error(errptr, e.what());
    return nullptr;
  }
}
void wasinn_host_destroy(wasinn_host_t* host) { delete host; }

wasinn_program_t* wasinn_program_create_path(const char* wasm_path) {
  auto* p = new (std::nothrow) wasinn_program_t();
  if (p) p->program.wasm_path = str(wasm_path);
  return p;
}
wasinn_program_t* wasinn_program_create_bytes(const uint8_t* bytes, size_t length, const char* name) {
  auto* p = new (std::nothrow) wasinn_program_t();
  if (!p) return nullptr;
  p->program.wasm_path = name ? name : "module";
  p->program.wasm_bytes.emplace(bytes, bytes + length);
  return p;
}
void wasinn_program_destroy(wasinn_program_t* program) { delete program; }
void wasinn_program_add_arg(wasinn_program_t* p, const char* arg) { p->program.args.push_back(str(arg)); }
void wasinn_program_add_env(wasinn_program_t* p, const char* name, const char* value) {
  p->program.env.emplace_back(str(name), str(value));
}
void wasinn_program_add_dir(wasinn_program_t* p, const char* host_dir, const char* guest_path) {
  p->program.dirs.emplace_back(str(host_dir), str(guest_path));
}
void wasinn_program_set_stdin(wasinn_program_t* p, const uint8_t* bytes, size_t length) {
  p->program.stdin_bytes.emplace(reinterpret_cast<const char*>(bytes), length);
}
void wasinn_program_capture_output(wasinn_program_t* p, int capture_stdout, int capture_stderr) {
  p->capture_stdout = capture_stdout != 0;
  p->capture_stderr = capture_stderr != 0;
}
void wasinn_program_set_invoke(wasinn_program_t* p, const char* export_name) { p->program.invoke = str(export_name); }

wasinn_result_t* wasinn_host_run(wasinn_host_t* host, const wasinn_program_t* program) {
  auto* r = new (std::nothrow) wasinn_result_t();
  if (!r) return nullptr;
  try {
    wasinn::Program run = program->program;
    // The threads of a wasi-threads guest write at once, and one left parked after the run may
    // still hold its callback: the sink is locked and shared, and the result gets a copy.
    struct Captured {
      std::mutex mu;
      std::string out, err;
    };
    auto sink = std::make_shared<Captured>();
    if (program->capture_stdout) {
      run.on_stdout = [sink](std::string_view s) {
        std::lock_guard lock(sink->mu);
        sink->out.append(s);
      };
    }
    if (program->capture_stderr) {
      run.on_stderr = [sink](std::string_view s) {
        std::lock_guard lock(sink->mu);
        sink->err.append(s);
      };
    }
    r->outcome = host->host->run(run);
    std::lock_guard lock(sink->mu);
    r->stdout_text = sink->out;
    r->stderr_text = sink->err;
  } catch (const std::exception& e) {
    r->outcome.exit_code = 1;
    r->outcome.message = std::string("cannot run the program: ") + e.what();
  }
  return r;
}
void wasinn_result_destroy(wasinn_result_t* result) { delete result; }
int wasinn_result_exit_code(const wasinn_result_t* r) { return r->outcome.exit_code; }
int wasinn_result_trapped(const wasinn_result_t* r) { return r->outcome.trapped ? 1 : 0; }
const char* wasinn_result_message(const wasinn_result_t* r) { return r->outcome.message.c_str(); }
const char* wasinn_result_stdout(const wasinn_result_t* r, size_t* length) {
  if (length) *length = r->stdout_text.size();
  return r->stdout_text.c_str();
}
const char* wasinn_result_stderr(const wasinn_result_t* r, size_t* length) {
  if (length) *length = r->stderr_text.size();
  return r->stderr_text.c_str();
}
size_t wasinn_result_value_count(const wasinn_result_t* r) { return r->outcome.results.size(); }
const char* wasinn_result_value(const wasinn_result_t* r, size_t index) {
  return index < r->outcome.results.size() ? r->outcome.results[index].c_str() : nullptr;
}

char* wasinn_host_metrics_text(const wasinn_host_t* host) {
  try {
    return malloc_copy(host->host->metrics_text());
  } catch (const std::exception&) {
    return nullptr;
  }
}

wasinn_serve_options_t* wasinn_serve_options_create(void) { return new (std::nothrow) wasinn_serve_options_t; }
void wasinn_serve_options_destroy(wasinn_serve_options_t* options) { delete options; }
void wasinn_serve_options_set_address(wasinn_serve_options_t* o, const char* address) {
  o->options.address = str(address);
}
void wasinn_serve_options_set_workers(wasinn_serve_options_t* o, size_t workers) { o->options.workers = workers; }
void wasinn_serve_options_set_max_queue(wasinn_serve_options_t* o, size_t max_queue) {
  o->options.max_queue = max_queue;
}
void wasinn_serve_options_set_request_timeout_ms(wasinn_serve_options_t* o, uint64_t ms) {
  o->options.request_timeout_ms = ms;
}
void wasinn_serve_options_set_max_request_bytes(wasinn_serve_options_t* o, uint64_t n) {
  o->options.max_request_bytes = n;
}
void wasinn_serve_options_set_pooling_allocator(wasinn_serve_options_t* o, int pooling) {
  o->options.pooling_allocator = pooling != 0;
}
void wasinn_serve_options_set_request_callback(wasinn_serve_options_t* o, wasinn_request_fn fn, void* user_data) {
  o->on_request = fn;
  o->user_data = user_data;
}
void wasinn_serve_options_add_api_key(wasinn_serve_options_t* o, const char* key) {
  if (key) o->options.api_keys.emplace_back(key);
}
void wasinn_serve_options_add_api_key_file(wasinn_serve_options_t* o, const char* path) {
  if (path) o->options.api_key_files.emplace_back(path);
}
void wasinn_serve_options_set_header_timeout_ms(wasinn_serve_options_t* o, uint64_t ms) {
  o->options.header_timeout_ms = ms;
}
void wasinn_serve_options_set_max_connections(wasinn_serve_options_t* o, size_t n) { o->options.max_connections = n; }
void wasinn_serve_options_set_instance_reuse(wasinn_serve_options_t* o, size_t max_requests, size_t max_concurrent,
                                             uint64_t idle_timeout_ms) {
  o->options.max_instance_reuse_count = max_requests;
  o->options.max_instance_concurrent_reuse_count = max_concurrent;
  o->options.idle_instance_timeout_ms = idle_timeout_ms;
}
void wasinn_serve_options_set_busy_poll_us(wasinn_serve_options_t* o, uint64_t us) { o->options.busy_poll_us = us; }
void wasinn_serve_options_set_tls(wasinn_serve_options_t* o, const char* cert, const char* key, const char* client_ca) {
  o->options.tls_cert = str(cert);
  o->options.tls_key = str(key);
  o->options.tls_client_ca = str(client_ca);
}

wasinn_server_t* wasinn_host_serve(wasinn_host_t* host, const wasinn_program_t* program,
                                   const wasinn_serve_options_t* options, char** errptr) {
  try {
    if (!host || !program) {
      set_error(errptr, "wasinn_host_serve: host and program must not be NULL");
      return nullptr;
    }
    wasinn::ServeOptions opts = options ? options->options : wasinn::ServeOptions{};
    if (options && options->on_request) {
      // The C++ record is the C struct (wasinn/request_record.h): passed on as it is.
      opts.on_request = [fn = options->on_request, user = options->user_data](const wasinn::RequestRecord& r) {
        fn(user, &r);
      };
    }
    std::string error;
    auto server = host->host->serve(program->program, opts, &error);
    if (!server) {
      set_error(errptr, without_flag_names(error));
      return nullptr;
    }
    return new wasinn_server_t{std::move(server)};
  } catch (const std::exception& e) {
    set_error(errptr, e.what());
    return nullptr;
  }
}

const char* wasinn_server_address(const wasinn_server_t* server) { return server->server->address().c_str(); }
void wasinn_server_stop(wasinn_server_t* server) { server->server->stop(); }
uint64_t wasinn_server_wait(wasinn_server_t* server, uint64_t grace_ms) { return server->server->wait(grace_ms); }

size_t wasinn_server_reload_api_keys(wasinn_server_t* server, char** errptr) {
  try {
    std::string error;
    const std::optional<size_t> keys = server->server->reload_api_keys(&error);
    if (!keys) {
      set_error(errptr, without_flag_names(error));
      return 0;
    }
    return *keys;
  } catch (const std::exception& e) {
    set_error(errptr, e.what());
    return 0;
  }
}

char* wasinn_server_metrics_text(const wasinn_server_t* server) {
  try {
    return malloc_copy(server->server->metrics_text());
  } catch (const std::exception&) {
    return nullptr;
  }
}

void wasinn_server_destroy(wasinn_server_t* server) { delete server; }

wasinn_backend_list_t* wasinn_host_list_backends(const wasinn_host_t* host) {
  try {
    auto list = std::make_unique<wasinn_backend_list_t>();
    list->backends = host->host->list_backends();
    for (const auto& b : list->backends) {
      std::string joined;
      for (const auto& e : b.encodings) joined += (joined.empty() ? "" : ",") + e;
      list->encodings.push_back(std::move(joined));
    }
    return list.release();
  } catch (const std::exception&) {
    return nullptr;
  }
}
void wasinn_backend_list_destroy(wasinn_backend_list_t* list) { delete list; }
size_t wasinn_backend_list_count(const wasinn_backend_list_t* list) { return list->backends.size(); }
const char* wasinn_backend_list_name(const wasinn_backend_list_t* list, size_t index) {
  return index < list->backends.size() ? list->backends[index].name.c_str() : nullptr;
}
const char* wasinn_backend_list_encodings(const wasinn_backend_list_t* list, size_t index) {
  return index < list->encodings.size() ? list->encodings[index].c_str() : nullptr;
}
int wasinn_backend_list_found(const wasinn_backend_list_t* list, size_t index) {
  return index < list->backends.size() && list->backends[index].library_found ? 1 : 0;
}

}  // extern "C"
