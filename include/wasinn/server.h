// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// wasinn embedding API: serving a wasi:http/proxy component over HTTP (Host::serve, wasinn/host.h):
// its options, the running Server, and the record of each request it answered.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "wasinn/request_record.h"

namespace wasinn {

struct ServeOptions {
  // HOST:PORT; port 0: any free port. Loopback unless told otherwise: an unauthenticated server
  // is on the network only when asked (0.0.0.0:8080, as `wasmtime serve`'s default, is not).
  std::string address = "127.0.0.1:8080";
  // Guests that run at once, a worker thread each; 0: the CPUs the process may use (its affinity
  // and cgroup CPU quota). Reused 0.3 instances take workers x max_instance_concurrent_reuse_count
  // requests at once (those waiting on I/O hold no thread); past the bound a request waits in the
  // queue.
  size_t workers = 0;
  size_t max_queue = 64;                     // requests that wait for a worker; past it 503 + Retry-After
  uint64_t request_timeout_ms = 0;           // 0: none; past it 504, and the guest is stopped
  uint64_t max_request_bytes = 64ull << 20;  // past it 413 before the guest runs; 0: no limit
  // Instances from preallocated slots (Wasmtime's pooling allocator, as `wasmtime serve`), not
  // mapped afresh for each request.
  bool pooling_allocator = true;
  // Called once per request when its answer is sent (or the client left), from the server's
  // threads, several at once; must be thread-safe and must not throw.
  std::function<void(const RequestRecord&)> on_request;
  // Empty: no key needed. Else every request but /healthz and /readyz is asked whether its
  // Authorization header's value ("" when absent) holds a key, and answered 401 when not; the
  // guest never sees the header. From the server's threads; must be thread-safe, not throw.
  std::function<bool(std::string_view authorization)> authorize;
  // Or, with no authorize, the keys `wasinn serve --api-key` and `--api-key-file` take: these keys
  // and the files' (one a line; blank lines and '#' comments skipped), compared in constant time.
  // A file that cannot be read or holds no key is serve's error; Server::reload_api_keys rereads them.
  std::vector<std::string> api_keys, api_key_files;
  // With keys: paths a GET or HEAD request reaches without one (exact matches of the request's
  // path, its query aside: "/" is the root alone), e.g. a chat page whose own API calls carry
  // the key its user types. Every other request still needs a key.
  std::vector<std::string> public_paths;
  // Request headers must arrive within it (an idle keep-alive connection too), and a body at
  // 1 KiB/s or more past it; else the connection is closed (408 for a body). 0: no limit.
  uint64_t header_timeout_ms = 10000;
  size_t max_connections = 1024;  // open at once; past it a new one is closed at once (counted); 0: no limit
  // HTTPS (HTTP/2 or HTTP/1.1 by ALPN): PEM files of the certificate chain and its private key
  // (both empty: plain HTTP); client certificates signed by the CAs of tls_client_ca are
  // required when it is given. A bad or mismatched file is serve's error, naming it.
  std::string tls_cert, tls_key, tls_client_ca;
  // A wasi:http@0.3 component's instances are reused, as `wasmtime serve` 48+ does: each takes at
  // most this many requests in all (0: Wasmtime's 128; 1: a fresh instance per request, for
  // isolation) and this many at once (0: Wasmtime's 16), and an idle one is dropped after
  // idle_instance_timeout_ms (0: Wasmtime's 1 s). A 0.2 component gets a fresh instance per request.
  size_t max_instance_reuse_count = 0;
  size_t max_instance_concurrent_reuse_count = 0;
  uint64_t idle_instance_timeout_ms = 0;
  // After its last work, the thread that serves a reused 0.3 instance's connections polls them for
  // up to this long before it sleeps, so a client's next request is read without a wake-up (most
  // of a small request's time on a VM); the window shrinks to nothing while requests come further
  // apart than this. 0: it sleeps at once; past kMaxBusyPollUs, serve's error.
  uint64_t busy_poll_us = 200;
  static constexpr uint64_t kMaxBusyPollUs = 10'000;
  // The host answers GET /v1/models and /models (every named model with its state) and POST
  // /models/load and /models/unload ({"model": NAME}) itself, from the Host's model registry,
  // after the key check (`wasinn serve --models-dir`; docs/serving.md, "Many models").
  bool model_routes = false;
};

// A running server (Host::serve). stop() may be called from any thread (not from a signal
// handler); wait() and the destructor from the thread that owns it.
class Server {
 public:
  ~Server();  // stops at once, cutting answers in progress, unless wait() has returned
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;
  const std::string& address() const;  // HOST:PORT it listens on
  // Stops accepting connections; answers in progress go on, /readyz answers 503.
  void stop();
  // Blocks until stop() is called, then waits up to grace_ms for the answers in progress.
  // Returns how many were cut (0: all finished).
  uint64_t wait(uint64_t grace_ms);
  // Its request metrics (count by status, latency, in flight, queued, rejected) as Prometheus
  // text; any thread.
  std::string metrics_text() const;
  // Rereads ServeOptions::api_key_files (its api_keys stay), as `wasinn serve` on SIGHUP; any
  // thread. The keys in use after it, or nullopt and *error (the keys in use then stay; a server
  // given no keys has none to reload).
  std::optional<size_t> reload_api_keys(std::string* error);

  struct Impl;
  explicit Server(std::unique_ptr<Impl> impl);

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace wasinn
