// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// GrpcServer: the Open Inference Protocol over gRPC (inference.GRPCInferenceService, grpc++'s
// synchronous server): ServerLive/Ready/Metadata, ModelReady/Metadata/Infer (raw and typed
// contents), and Triton's RepositoryIndex/ModelLoad/ModelUnload, ModelConfig and ModelStatistics.
// Errors carry error_status.h's code. --max-request-bytes is the largest message it receives
// (RESOURCE_EXHAUSTED past it, from grpc itself).
#pragma once

#include <memory>
#include <string>

#include "core/error.h"
#include "serve/oip/connection_limit.h"
#include "serve/oip/server_context.h"

namespace wasinn::oip_server {

class GrpcServer {
 public:
  // handshake_timeout_ms: a connection's HTTP/2 handshake must end within it (0: gRPC's default).
  // tls: TLS when tls.cert is given (grpc_call_auth: the port's credentials). connections: --max-connections
  // (OipServer's, outliving this server): past it a new connection is closed as it is accepted
  // (GrpcListener).
  static Result<std::unique_ptr<GrpcServer>> start(ServerContext& context, const std::string& address,
                                                   uint64_t handshake_timeout_ms = 0, const TlsFiles& tls = {},
                                                   ConnectionLimit* connections = nullptr);
  ~GrpcServer();  // shuts down at once (in-flight calls are cancelled)
  // Stops accepting calls, waits up to grace_ms for those in progress, then cancels the rest.
  void shutdown(uint64_t grace_ms);
  const std::string& address() const { return address_; }

  struct Impl;

 private:
  explicit GrpcServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
  std::string address_;
};

}  // namespace wasinn::oip_server
