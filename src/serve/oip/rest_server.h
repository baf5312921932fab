// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RestServer: the Open Inference Protocol over HTTP/1.1 (civetweb, as the metrics endpoint),
// every route of docs/oip-server.md: health, server and model metadata and readiness, infer
// (JSON and the binary tensor extension), the repository extension, and Triton's model
// configuration and statistics extensions. civetweb's threads are the connection pool; the
// computes pass ModelSet's admission. Errors are {"error": "..."} with error_status.h's status.
// A hostile client gets what the component server gives it: --header-timeout for a TLS handshake
// and for a request's headers, a least rate for its body (read_deadlines.h cuts a read civetweb
// would wait on for ever), strict framing (http_framing.h), connections counted as a thread takes
// them (over TLS before the handshake, rest_tls.h), and a refused or cut connection closed.
#pragma once

#include <memory>
#include <string>

#include "core/error.h"
#include "serve/oip/connection_limit.h"
#include "serve/oip/read_deadlines.h"
#include "serve/oip/rest_tls.h"
#include "serve/oip/server_context.h"

struct mg_context;
struct mg_connection;

namespace wasinn::oip_server {

class RestServer {
 public:
  // address: HOST:PORT (port 0: any free one); threads: connections served at once (more wait
  // in civetweb's queue); header_timeout_ms: --header-timeout, the time a TLS handshake and a
  // request's headers may take, and a body's before its least rate (0: civetweb's 30 s between
  // two reads, no more); tls: HTTPS (HTTP/1.1, TLS 1.2 and later; client certificates with
  // tls.client_ca) when tls.cert is given; connections: --max-connections (OipServer's, outliving
  // this server): past it a new connection is answered 503 and closed as it reaches a thread (over
  // TLS: closed before its handshake; threads should exceed the limit).
  static Result<std::unique_ptr<RestServer>> start(ServerContext& context, const std::string& address, size_t threads,
                                                   uint64_t header_timeout_ms = 0, const TlsFiles& tls = {},
                                                   ConnectionLimit* connections = nullptr);
  ~RestServer();  // stops listening, then waits for the requests in progress
  RestServer(const RestServer&) = delete;
  RestServer& operator=(const RestServer&) = delete;

  const std::string& address() const { return address_; }  // HOST:PORT, with the port chosen

  // civetweb's threads for --max-connections N: N, and these beside them for the connections
  // being refused (which leave within a second), so a new connection reaches a thread at once; at
  // most kMaxConnections (each is a thread: 100 KiB of stack, 16 KiB used).
  static constexpr size_t kSpareThreads = 32;
  static constexpr size_t kMaxConnections = 16384;

 private:
  RestServer(ServerContext& context, ConnectionLimit* connections) : context_(context), connections_(connections) {}
  // civetweb's callbacks (rest_server.cpp says what each does).
  static int handle(mg_connection* conn, void* self);
  static int init_tls(void* ssl_ctx, void* self);
  static int init_connection(const mg_connection* conn, void** conn_data);
  static void connection_close(const mg_connection* conn);
  static int http_error(mg_connection* conn, int status, const char* message);
  static void* init_thread(const mg_context* ctx, int thread_type);
  static void exit_thread(const mg_context* ctx, int thread_type, void* thread_pointer);
  // The calling worker's wait for its client's next request headers starts; it may last `ms`.
  void wait_for_headers(uint64_t ms);

  ServerContext& context_;
  ConnectionLimit* connections_;  // nullptr: no limit, none counted
  std::unique_ptr<ReadDeadlines> deadlines_;
  uint64_t header_timeout_ms_ = 0;
  uint64_t keep_alive_ms_ = 0;  // an idle kept-alive connection's time for its next request
  bool https_ = false;
  mg_context* server_ = nullptr;
  std::string address_;
  TlsFiles tls_;              // read by civetweb's init_ssl during mg_start
  TlsHandshakes handshakes_;  // what the TLS handshakes share, for as long as civetweb runs
  std::string tls_error_;     // what init_ssl found wrong, for start's error
};

}  // namespace wasinn::oip_server
