// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// OipServer: `wasinn serve --oip-http/--oip-grpc`: every model registered in an NnEnvironment,
// served with the Open Inference Protocol (v2) over REST, gRPC or both, with one ModelSet (the
// models, their contexts and the worker admission) and one access log and request metrics for
// both transports. docs/oip-server.md is the user's view. Start, then stop() and wait() from
// the thread that owns it (the CLI's, on SIGTERM/SIGINT).
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>

#include "core/error.h"
#include "core/nn_environment.h"
#include "serve/request_metrics.h"
#include "serve/oip/connection_limit.h"
#include "serve/oip/grpc_server.h"
#include "serve/oip/model_set.h"
#include "serve/oip/rest_server.h"
#include "serve/oip/server_context.h"
#include "wasinn/available_cpus.h"
#include "wasinn/request_record.h"

namespace wasinn::oip_server {

struct OipServerOptions {
  std::string http_address;                              // HOST:PORT, or "" for no REST
  std::string grpc_address;                              // HOST:PORT, or "" for no gRPC
  size_t workers = 0;                                    // computes at once; 0: wasinn::available_cpus()
  size_t max_queue = 64;                                 // requests that wait for a worker; past it 503/UNAVAILABLE
  uint64_t max_request_bytes = 64ull << 20;              // past it 413/RESOURCE_EXHAUSTED; 0: no limit
  std::function<void(const RequestRecord&)> on_request;  // the access log; any thread
  std::shared_ptr<ApiKeys> keys;                         // nullptr: no key needed
  // A request's headers within it (REST: civetweb's per-read timeout; gRPC: the HTTP/2
  // handshake's deadline); 0: the libraries' defaults.
  uint64_t header_timeout_ms = 10000;
  // Client connections open at once, REST's and gRPC's each; past it a new one is refused at once
  // and counted (REST: 503; gRPC: closed); 0: no limit. REST's: at most RestServer::kMaxConnections.
  uint64_t max_connections = 1024;
  TlsFiles tls;  // HTTPS and gRPC over TLS when tls.cert is given
  // --model-repository's models: version, graph config and config.pbtxt's inputs and outputs by
  // name (add_repository_models).
  std::map<std::string, RepositoryEntry> repository;
  // Pipelines (pipeline.h) served as models, by name.
  std::map<std::string, std::shared_ptr<Pipeline>> pipelines;
  // Dynamic batching by model name: a repository's config.json, then --dynamic-batching.
  std::map<std::string, BatchingOptions> batching;

  // `workers`, or the CPUs this process may use when it is 0.
  size_t effective_workers() const { return workers ? workers : available_cpus(); }
};

// Registers DIR/NAME/VERSION/model.* (model_repository.h) in env's registry, their versions
// and configs in *repository, and the dynamic batching their config.json or config.pbtxt asks for
// in *batching (a config.pbtxt's fields wasinn ignores: one warning per file, naming them);
// the pipeline components (model.wasm) go to *pipelines instead, for the caller to open. A flat
// DIR's one model is named flat_name ("": by its file); a DIR in Triton's layout names its models
// by their directories, and says so at info when a flat_name was given.
Status add_repository_models(NnEnvironment& env, const std::filesystem::path& dir, const std::string& flat_name,
                             std::map<std::string, RepositoryEntry>& repository,
                             std::map<std::string, std::filesystem::path>& pipelines,
                             std::map<std::string, BatchingOptions>* batching = nullptr);

class OipServer {
 public:
  // Loads every model (one that fails is the error; a remote one a warning), then listens.
  static Result<std::unique_ptr<OipServer>> start(std::shared_ptr<NnEnvironment> env, OipServerOptions options);
  ~OipServer();

  const std::string& http_address() const;  // "" without REST
  const std::string& grpc_address() const;  // "" without gRPC
  size_t model_count() const { return models_->all().size(); }

  // Stops accepting: readiness answers 503/not ready, the listeners close, and the requests in
  // progress finish for up to grace_ms. Returns how many were still running then (0: all
  // finished; else the caller should end the process, as `wasinn serve` does).
  uint64_t stop_and_wait(uint64_t grace_ms);

  // The request metrics of both transports, as Prometheus text (RequestMetrics).
  std::string metrics_text() const;

 private:
  OipServer() = default;
  std::shared_ptr<NnEnvironment> env_;
  std::unique_ptr<ModelSet> models_;
  RequestMetrics metrics_;
  std::unique_ptr<ServerContext> context_;
  // --max-connections, REST's and gRPC's (here: a scrape reads them while the transports stop).
  std::unique_ptr<ConnectionLimit> rest_connections_, grpc_connections_;
  std::unique_ptr<RestServer> rest_;
  std::unique_ptr<GrpcServer> grpc_;
  std::string no_address_;
  std::thread stopper_;
};

}  // namespace wasinn::oip_server
