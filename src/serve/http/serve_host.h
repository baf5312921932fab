// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/* serve/http's Rust half, the HTTP server (the crate src/serve/http, its lib.rs): a
 * wasi:http/proxy component, a fresh instance per request, wasi:nn served through the
 * wit_host.h table. serve/http/wasi_http_server.cpp drives it.
 *
 * Ownership: the config is read during wasinn_serve_start only (strings copied); its engine,
 * component and table must outlive the server. Its user pointer and admission policy are the
 * server's from wasinn_serve_start on, success or failure: release(user) is called exactly once,
 * from any thread, when nothing will call back any more (on failure, before wasinn_serve_start
 * returns; else after wasinn_serve_free and the last guest cut at the drain's end, which may end
 * later). A server is freed with wasinn_serve_free, which stops it at once if it still runs.
 * Threads: guest_new, guest_free, on_request and the admission's functions are called from the
 * server's threads, several at
 * once; the record passed to on_request is valid for that call only. wasinn_serve_stop and
 * wasinn_serve_stats may be called from any thread; wasinn_serve_wait and wasinn_serve_free
 * from one thread, after which nothing else touches the server.
 * Errors: wasinn_serve_start returns a wasmtime error (an unserved import, an address it cannot
 * bind, a component that is not a wasi:http proxy), else NULL. */
#ifndef WASINN_SERVE_HTTP_SERVE_HOST_H
#define WASINN_SERVE_HTTP_SERVE_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <wasmtime.h>

#include "engine/wit_host.h"
#include "wasinn/request_record.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the server counts; the admission counts the queue and its refusals. */
typedef struct wasinn_serve_stats {
  uint64_t in_flight;           /* arrived and not yet answered whole */
  uint64_t running;             /* guests executing */
  uint64_t connections;         /* open */
  uint64_t connections_refused; /* closed at once past max_connections */
} wasinn_serve_stats;

/* The admission policy the server asks for a place per request: serve/admission.h's, which the
 * OIP server admits by too. enter: ADMITTED, a place is held now; QUEUED, granted(waiter, admitted)
 * is called exactly once later, from any thread, unless withdraw(ticket) returns true first;
 * REFUSED, the queue is full (503). A place held (admitted, or granted with true) is given back
 * with leave. close ends every wait (granted with false) and refuses from then on. resize is
 * called once by wasinn_serve_start, before it listens, with the requests the server runs at once:
 * workers, or workers x max_instance_concurrent_reuse_count when it reuses a wasi:http@0.3
 * component's instances (a thread runs one instance at a time; an instance takes that many
 * requests at once, the others waiting on I/O). Every function may be called from any thread. */
typedef enum wasinn_admission_entry {
  WASINN_ADMISSION_ADMITTED = 0,
  WASINN_ADMISSION_QUEUED = 1,
  WASINN_ADMISSION_REFUSED = 2,
} wasinn_admission_entry;

typedef struct wasinn_serve_admission {
  void* policy;
  int (*enter)(void* policy, void (*granted)(void* waiter, bool admitted), void* waiter, uint64_t* ticket);
  bool (*withdraw)(void* policy, uint64_t ticket);
  void (*leave)(void* policy);
  void (*close)(void* policy);
  void (*resize)(void* policy, size_t places);
} wasinn_serve_admission;

typedef struct wasinn_serve_config {
  const wasm_engine_t* engine; /* with epoch interruption, ticked by the caller */
  const wasmtime_component_t* component;
  const wasinn_wit_host* nn;
  wasinn_wit_str addr; /* HOST:PORT; port 0: any free port */
  size_t workers;      /* threads that run guests (the admission's places: resize) */
  wasinn_serve_admission admission;
  uint64_t request_timeout_ms; /* 0: none; past it 504 and the guest is stopped */
  uint64_t max_request_bytes;  /* 0: no limit; past it 413 before the guest runs */
  uint64_t max_memory_bytes;   /* per linear memory; 0: no limit */
  size_t hostcall_fuel;        /* bytes one host call may lift (wit_host.h) */
  size_t max_resources;        /* a store's WASI table's most entries (-S max-resources); 0: none */
  uint64_t timeout_ticks;      /* a guest's epoch deadline, in the caller's ticks; 0: none */
  const wasinn_wit_str* env;   /* NAME, VALUE pairs: 2 x env_count */
  size_t env_count;
  const wasinn_wit_str* dirs; /* HOST_DIR, GUEST_DIR pairs: 2 x dir_count */
  size_t dir_count;
  bool inherit_stdio; /* the guest's stdout and stderr are the process's */
  void* user;
  /* A request's GuestState (the table's `guest`); NULL: 500. presented_key: the authorization the
     request showed and authorize() accepted ("Bearer KEY"), "" for none and for a reused 0.3
     instance's state (its requests may show any key): what keeps each key's prompts apart in a
     prompt cache (NnSession::set_cache_partition). request_id: the request's id (its answer's
     X-Request-Id), "" for a reused 0.3 instance's state, for the trace lines of its wasi-nn calls. */
  void* (*guest_new)(void* user, wasinn_wit_str presented_key, wasinn_wit_str request_id);
  void (*guest_free)(void* user, void* guest);
  /* The record (wasinn/request_record.h) of each answered request; may be NULL. */
  void (*on_request)(void* user, const wasinn_request_record_t* record);
  void (*release)(void* user); /* may be NULL: the user outlives the server some other way */
  /* NULL: no key needed. Else every request but /healthz and /readyz is asked: true when the
   * Authorization header's value (empty when absent) holds a key, else 401. Any thread. The guest
   * never sees the header then. */
  bool (*authorize)(void* user, wasinn_wit_str authorization);
  /* Request headers within it (an idle keep-alive's too), a body at 1 KiB/s past it; 0: none. */
  uint64_t header_timeout_ms;
  uint64_t max_connections; /* open at once; past it a new one is closed at once; 0: no limit */
  /* HTTPS: PEM files of the certificate chain and its private key (both empty: plain HTTP), and
   * of the CAs whose client certificates are required (empty: none asked). A bad or mismatched
   * file is wasinn_serve_start's error, naming it. */
  wasinn_wit_str tls_cert;
  wasinn_wit_str tls_key;
  wasinn_wit_str tls_client_ca;
  /* A wasi:http@0.3 component's instance reuse (`wasmtime serve`'s knobs): requests per instance in
   * all (0: 128; 1: a fresh instance per request) and at once (0: 16), and how long an idle one
   * is kept (0: 1000 ms). A 0.2 component: a fresh instance per request whatever these say. */
  size_t max_instance_reuse_count;
  size_t max_instance_concurrent_reuse_count;
  uint64_t idle_instance_timeout_ms;
  /* The longest a reused 0.3 instance's thread polls its sockets after its last work before it
   * sleeps (adapting below it to how far apart requests come); 0: it sleeps at once. */
  uint64_t busy_poll_us;
  /* A line for the server's log at warning level: what went wrong outside any request's record
   * (a reused 0.3 instance that failed). May be NULL; any thread; must not throw. */
  void (*on_warning)(void* user, wasinn_wit_str line);
  /* Paths a GET or HEAD request reaches without a key when authorize is set (exact matches of the
   * request's path, its query aside): public_path_count strings; NULL, 0: none. */
  const wasinn_wit_str* public_paths;
  size_t public_path_count;
  /* Paths the host answers itself with host_route (exact matches of the path, its query aside),
   * after the key check, in place of the guest: host_path_count strings; NULL, 0: none. The body
   * is read whole first (max_request_bytes); host_route is called on a blocking thread (it may
   * take long: a model's load) and calls answer(answer_ctx, status, json) once before it
   * returns; an answer not given is a 500. */
  const wasinn_wit_str* host_paths;
  size_t host_path_count;
  void (*host_route)(void* user, wasinn_wit_str method, wasinn_wit_str path, wasinn_wit_str body,
                     void (*answer)(void* answer_ctx, uint32_t status, wasinn_wit_str json), void* answer_ctx);
  /* NULL: no trace. Else one line per crossing of a request's path through the server (arrived,
   * body read, admitted, guest started, answered, ...), each naming the request's id, for the
   * log at trace level; any thread; must not throw. */
  void (*trace)(void* user, wasinn_wit_str line);
} wasinn_serve_config;

typedef struct wasinn_server wasinn_server;

/* Binds and returns once it listens. */
wasmtime_error_t* wasinn_serve_start(const wasinn_serve_config* config, wasinn_server** out);
/* HOST:PORT it listens on; valid while the server lives. */
wasinn_wit_str wasinn_serve_address(const wasinn_server* server);
/* Stops accepting; answers in progress go on. */
void wasinn_serve_stop(const wasinn_server* server);
/* After stop: waits up to grace_ms for the answers in progress; returns how many were cut. */
uint64_t wasinn_serve_wait(wasinn_server* server, uint64_t grace_ms);
void wasinn_serve_read_stats(const wasinn_server* server, wasinn_serve_stats* out);
void wasinn_serve_free(wasinn_server* server);
/* The same TLS files checked as wasinn_serve_start would take them (for the OIP server's
 * transports): NULL when good, else an error naming the file at fault. */
wasmtime_error_t* wasinn_tls_check(wasinn_wit_str cert, wasinn_wit_str key, wasinn_wit_str client_ca);

#ifdef __cplusplus
}
#endif

#endif
