// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * wasinn C API: run WebAssembly programs whose wasi-nn imports wasinn serves, from C or any
 * language with a C FFI. A thin layer over the C++ embedding API (wasinn/host.h), in
 * libwasinn; plain C99.
 *
 * Objects (all opaque):
 *   wasinn_options_t       settings for a host. wasinn_host_create copies them, so they may be
 *                          destroyed (wasinn_options_destroy) or reused right after.
 *   wasinn_host_t          the engine, the backend plugins and the named models; create one per
 *                          process and reuse it. Destroy it (wasinn_host_destroy) only after every
 *                          run on it has returned.
 *   wasinn_program_t       one program to run: the module (a file or its bytes), args, env,
 *                          preopened directories, stdin, what output to capture. Reusable.
 *   wasinn_result_t        how one run ended: exit code, message, captured stdout/stderr.
 *   wasinn_backend_list_t  the backend plugins a host found.
 *   wasinn_serve_options_t settings for serving (wasinn_host_serve copies them).
 *   wasinn_server_t        a running HTTP server of a wasi:http/proxy component. Destroy it
 *                          before its host; wasinn_server_stop may be called from any thread.
 *
 * Ownership: every object is released by its caller with its own destroy function (NULL is
 * accepted and ignored). Strings and bytes passed in are copied. Strings an object returns are
 * NUL-terminated, owned by that object and valid until it is destroyed.
 *
 * Thread safety: a wasinn_host_t may be used by any number of threads at once (wasinn_host_run
 * from several threads shares the host's named models, loaded once). Every other object is used
 * by one thread at a time; different objects may be used by different threads.
 *
 * Errors: a function that can fail takes `char **errptr`. On failure it returns NULL (or 0) and
 * sets *errptr (overwriting it: free an earlier message first) to a message allocated with
 * malloc, which the caller frees with wasinn_free; on success *errptr is left alone. A guest that fails is not an error
 * of wasinn_host_run: its result says why (exit code, message).
 *
 * Logs: wasinn logs to stderr unless a host has a log callback (wasinn_options_set_log_callback);
 * then lines go to the callback instead, from whichever thread logs, one call at a time, until
 * the host is destroyed. wasinn has one logger per process: while several hosts have callbacks,
 * each gets every line.
 */
#ifndef WASINN_WASINN_H_
#define WASINN_WASINN_H_

#include <stddef.h>
#include <stdint.h>

#include "wasinn/request_record.h"

/* This header's version; wasinn_c_api_version() says the library's. 2: the request callback takes
 * the record (wasinn_request_record_t) instead of its fields as arguments. */
#define WASINN_C_API_VERSION 2

#ifdef __cplusplus
extern "C" {
#endif

typedef struct wasinn_options_t wasinn_options_t;
typedef struct wasinn_host_t wasinn_host_t;
typedef struct wasinn_program_t wasinn_program_t;
typedef struct wasinn_result_t wasinn_result_t;
typedef struct wasinn_backend_list_t wasinn_backend_list_t;
typedef struct wasinn_serve_options_t wasinn_serve_options_t;
typedef struct wasinn_server_t wasinn_server_t;

/* The library's version, "MAJOR.MINOR.PATCH" (static storage). */
const char* wasinn_version(void);
/* The C API version the library implements (WASINN_C_API_VERSION of the header it was built with). */
int wasinn_c_api_version(void);
/* Frees a string wasinn allocated for the caller (an *errptr). */
void wasinn_free(void* ptr);

/* ---- Host options (defaults as the C++ HostOptions) ---- */
wasinn_options_t* wasinn_options_create(void);
void wasinn_options_destroy(wasinn_options_t* options);
/* A directory of backend manifests; repeatable. None: $WASINN_BACKEND_PATH, then
 * <libdir>/wasinn/backends beside libwasinn. */
void wasinn_options_add_backend_dir(wasinn_options_t* options, const char* dir);
/* A backend's config as JSON, e.g. ("onnxruntime", "{\"intra_op_threads\":1}"). */
void wasinn_options_set_backend_config(wasinn_options_t* options, const char* backend, const char* json);
/* A named model, loaded once and shared by every program: "NAME:ENCODING:TARGET:PATH[:PATH...]"
 * (e.g. "digits:onnx:cpu:/models/digits.onnx"); guests load it with load_by_name. */
void wasinn_options_add_preload(wasinn_options_t* options, const char* spec);
/* Stops a guest that runs longer (0: no limit). */
void wasinn_options_set_timeout_ms(wasinn_options_t* options, uint64_t timeout_ms);
/* wasi-threads guests: the most threads one guest may have running besides its main thread
 * (default 64); thread-spawn past it returns an error to the guest. */
void wasinn_options_set_max_threads(wasinn_options_t* options, size_t max_threads);
/* Nonzero: a thread using an execution context another thread of its guest is using waits its
 * turn instead of getting the busy errno. */
void wasinn_options_set_nn_context_wait(wasinn_options_t* options, int wait);
/* What a core module speaking WasmEdge's socket ABI (sock_open, sock_bind, ...: LlamaEdge's
 * llama-api-server) may reach; nothing unless added. An address it may bind and listen on:
 * "ADDR:PORT" (ADDR an IPv4 address, "[IPv6]" or "localhost"; PORT a number or "*" for any);
 * repeatable. */
void wasinn_options_add_listen(wasinn_options_t* options, const char* addr_port);
/* A host it may connect to (and look up): "HOST[:PORT]" (an address, "[IPv6]" or a name, resolved
 * when the host is created; no port: any); repeatable. */
void wasinn_options_add_connect(wasinn_options_t* options, const char* host_port);
/* The most bytes one linear memory of a guest may grow to (0: no limit). */
void wasinn_options_set_max_memory_bytes(wasinn_options_t* options, uint64_t max_bytes);
/* Loads whose framework may crash on a malformed model first run in a child process,
 * wasinn-load-check (found in <libdir>/../bin): "auto" (the default: the backends whose manifest
 * asks for it), "always" or "never". An unknown mode fails wasinn_host_create. */
void wasinn_options_set_isolate_loads(wasinn_options_t* options, const char* mode);
/* Where compiled guests are cached: "" (the default, ~/.cache/wasinn/modules), a directory or "off". */
void wasinn_options_set_module_cache(wasinn_options_t* options, const char* dir);

typedef enum wasinn_log_level_t {
  WASINN_LEVEL_TRACE = 0,
  WASINN_LEVEL_DEBUG = 1,
  WASINN_LEVEL_INFO = 2,
  WASINN_LEVEL_WARN = 3,
  WASINN_LEVEL_ERROR = 4,
  WASINN_LEVEL_CRITICAL = 5
} wasinn_log_level_t;
/* message is `length` bytes (not NUL-terminated), valid during the call only. */
typedef void (*wasinn_log_fn)(void* user_data, wasinn_log_level_t level, const char* message, size_t length);
/* fn NULL: logs go to stderr. user_data must stay valid as long as the host lives. */
void wasinn_options_set_log_callback(wasinn_options_t* options, wasinn_log_fn fn, void* user_data);

/* ---- Host ---- */
/* NULL and *errptr on a bad option (a malformed preload, say). */
wasinn_host_t* wasinn_host_create(const wasinn_options_t* options, char** errptr);
void wasinn_host_destroy(wasinn_host_t* host);

/* ---- Programs ---- */
/* A program file: a core module or a component (binary .wasm or text .wat), told apart by its bytes. */
wasinn_program_t* wasinn_program_create_path(const char* wasm_path);
/* A module's bytes; name names it in messages and is its argv[0] (NULL: "module"). */
wasinn_program_t* wasinn_program_create_bytes(const uint8_t* bytes, size_t length, const char* name);
void wasinn_program_destroy(wasinn_program_t* program);
void wasinn_program_add_arg(wasinn_program_t* program, const char* arg); /* argv[1..] */
void wasinn_program_add_env(wasinn_program_t* program, const char* name, const char* value);
/* Gives the guest host_dir as guest_path (read and write). */
void wasinn_program_add_dir(wasinn_program_t* program, const char* host_dir, const char* guest_path);
/* What the guest reads on stdin (default: the host process's stdin). */
void wasinn_program_set_stdin(wasinn_program_t* program, const uint8_t* bytes, size_t length);
/* Nonzero: keep the guest's stdout / stderr in the result instead of writing to the host's. */
void wasinn_program_capture_output(wasinn_program_t* program, int capture_stdout, int capture_stderr);
/* Call this export instead of _start; the args are then its parameters (numbers), and the
 * results come back in wasinn_result_value. */
void wasinn_program_set_invoke(wasinn_program_t* program, const char* export_name);

/* ---- Running ---- */
/* Instantiates the program and runs it to completion; NULL only when out of memory. */
wasinn_result_t* wasinn_host_run(wasinn_host_t* host, const wasinn_program_t* program);
void wasinn_result_destroy(wasinn_result_t* result);
/* The guest's exit code; 1 when the module cannot be read, compiled or instantiated, 134 for a trap. */
int wasinn_result_exit_code(const wasinn_result_t* result);
int wasinn_result_trapped(const wasinn_result_t* result); /* nonzero: the guest trapped */
/* Why the run ended abnormally ("" on a normal exit). */
const char* wasinn_result_message(const wasinn_result_t* result);
/* Captured output (see wasinn_program_capture_output): `*length` bytes; "" when not captured. */
const char* wasinn_result_stdout(const wasinn_result_t* result, size_t* length);
const char* wasinn_result_stderr(const wasinn_result_t* result, size_t* length);
/* With wasinn_program_set_invoke: the function's results, as Wasmtime's CLI prints them. */
size_t wasinn_result_value_count(const wasinn_result_t* result);
const char* wasinn_result_value(const wasinn_result_t* result, size_t index); /* NULL out of range */

/* ---- Serving HTTP (as `wasinn serve`; the C++ Host::serve) ---- */
wasinn_serve_options_t* wasinn_serve_options_create(void);
void wasinn_serve_options_destroy(wasinn_serve_options_t* options);
/* HOST:PORT (default "127.0.0.1:8080": loopback; "0.0.0.0:8080" for every interface; port 0 picks a
 * free port, see wasinn_server_address). */
void wasinn_serve_options_set_address(wasinn_serve_options_t* options, const char* address);
/* Guests that run at once (0, the default: the CPUs the process may use, from its affinity and
 * cgroup CPU quota). */
void wasinn_serve_options_set_workers(wasinn_serve_options_t* options, size_t workers);
/* Requests that may wait for a worker (default 64); past it 503 with Retry-After. */
void wasinn_serve_options_set_max_queue(wasinn_serve_options_t* options, size_t max_queue);
/* Past it 504, and the guest is stopped (0, the default: no limit). */
void wasinn_serve_options_set_request_timeout_ms(wasinn_serve_options_t* options, uint64_t timeout_ms);
/* Past it 413 before the guest runs (default 64 MiB; 0: no limit). */
void wasinn_serve_options_set_max_request_bytes(wasinn_serve_options_t* options, uint64_t max_bytes);
/* Nonzero (the default): instances from preallocated slots (Wasmtime's pooling allocator). */
void wasinn_serve_options_set_pooling_allocator(wasinn_serve_options_t* options, int pooling);
/* Called once per answered request, from the server's threads, several at once, with the
 * request's record (wasinn/request_record.h: a growable struct, read through struct_size; its
 * strings valid during the call only). Before C API version 2 the fields came as arguments. */
typedef void (*wasinn_request_fn)(void* user_data, const wasinn_request_record_t* record);
void wasinn_serve_options_set_request_callback(wasinn_serve_options_t* options, wasinn_request_fn fn, void* user_data);

/* Safe on a network (docs/serving.md, "On a network"; the defaults are those of `wasinn serve`).
 * A key (repeatable; NULL ignored): every request but /healthz and /readyz then needs
 * `Authorization: Bearer KEY`, else 401 with `WWW-Authenticate: Bearer` and a JSON error; keys
 * are compared in constant time, never logged, and the guest never sees the header. */
void wasinn_serve_options_add_api_key(wasinn_serve_options_t* options, const char* key);
/* A file of keys (repeatable): one a line, blank lines and lines starting with '#' skipped. Read
 * by wasinn_host_serve (an unreadable file, or one with no key, is its error) and again by
 * wasinn_server_reload_api_keys. */
void wasinn_serve_options_add_api_key_file(wasinn_serve_options_t* options, const char* path);
/* Request headers must arrive within it, an idle keep-alive connection is closed after it, and
 * a body slower than 1 KiB/s past it gets 408 (default 10000; 0: no limit). */
void wasinn_serve_options_set_header_timeout_ms(wasinn_serve_options_t* options, uint64_t timeout_ms);
/* Connections open at once (default 1024; 0: no limit); past it a new one is closed at once and
 * counted in the metrics (wasinn_http_connections_refused_total). */
void wasinn_serve_options_set_max_connections(wasinn_serve_options_t* options, size_t max_connections);
/* HTTPS (HTTP/2 or HTTP/1.1 by ALPN) with these PEM files: the certificate chain and its private
 * key; with client_ca_file (NULL or "": none) a client must show a certificate of those CAs
 * (mutual TLS). cert_file NULL or "": plain HTTP, the default. A bad or mismatched file is
 * wasinn_host_serve's error, naming the file. */
void wasinn_serve_options_set_tls(wasinn_serve_options_t* options, const char* cert_file, const char* key_file,
                                  const char* client_ca_file);
/* A wasi:http@0.3 component's instances are reused, as `wasmtime serve` does: each takes at most
 * max_requests in all (--max-instance-reuse-count; 0, the default: 128; 1: a fresh instance per
 * request, for isolation) and max_concurrent at once (--max-instance-concurrent-reuse-count; 0:
 * 16); an idle one is dropped after idle_timeout_ms (--idle-instance-timeout; 0: 1000). */
void wasinn_serve_options_set_instance_reuse(wasinn_serve_options_t* options, size_t max_requests,
                                             size_t max_concurrent, uint64_t idle_timeout_ms);
/* After its last work, a thread serving reused 0.3 instances polls its connections this many
 * microseconds before it sleeps (--busy-poll; default 200; 0: it sleeps at once). Past 10000,
 * wasinn_host_serve's error. */
void wasinn_serve_options_set_busy_poll_us(wasinn_serve_options_t* options, uint64_t busy_poll_us);
/* Serves the program, a component exporting wasi:http/incoming-handler: @0.2.x a fresh instance
 * per request, @0.3 reused instances (above); returns once it listens. Its env and dirs are every
 * instance's. NULL and *errptr when it is not such a component or the address cannot be bound. */
wasinn_server_t* wasinn_host_serve(wasinn_host_t* host, const wasinn_program_t* program,
                                   const wasinn_serve_options_t* options, char** errptr);
/* HOST:PORT it listens on. */
const char* wasinn_server_address(const wasinn_server_t* server);
/* Stops accepting; answers in progress go on. Any thread (not a signal handler). */
void wasinn_server_stop(wasinn_server_t* server);
/* Blocks until stopped, then waits up to grace_ms for the answers in progress; returns how
 * many were cut (0: all finished). */
uint64_t wasinn_server_wait(wasinn_server_t* server, uint64_t grace_ms);
/* Rereads the API key files (the keys added one by one stay), as `wasinn serve` does on SIGHUP;
 * any thread. Returns how many keys are in use after it; 0 and *errptr when a file cannot be
 * read or holds no key (the keys in use then stay) or the server takes no keys. */
size_t wasinn_server_reload_api_keys(wasinn_server_t* server, char** errptr);
/* Its request metrics as Prometheus text; any thread. Freed with wasinn_free. */
char* wasinn_server_metrics_text(const wasinn_server_t* server);
/* Stops at once if wasinn_server_wait has not returned. */
void wasinn_server_destroy(wasinn_server_t* server);

/* ---- Backends (from the manifests; no plugin is loaded) ---- */
/* The wasi-nn metrics of every guest the host has run or runs now (docs/metrics.md), as
 * Prometheus text; callable from any thread while guests run. Freed with wasinn_free; NULL when
 * out of memory. */
char* wasinn_host_metrics_text(const wasinn_host_t* host);

wasinn_backend_list_t* wasinn_host_list_backends(const wasinn_host_t* host);
void wasinn_backend_list_destroy(wasinn_backend_list_t* list);
size_t wasinn_backend_list_count(const wasinn_backend_list_t* list);
/* NULL out of range. */
const char* wasinn_backend_list_name(const wasinn_backend_list_t* list, size_t index);
/* Its encodings, comma-separated ("onnx"). */
const char* wasinn_backend_list_encodings(const wasinn_backend_list_t* list, size_t index);
/* Nonzero: its plugin library exists. */
int wasinn_backend_list_found(const wasinn_backend_list_t* list, size_t index);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* WASINN_WASINN_H_ */
