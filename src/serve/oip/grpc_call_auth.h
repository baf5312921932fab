// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The gRPC port's credentials (plaintext, or TLS with tls.cert), which check the API key
// (--api-key) as a call starts: gRPC's auth filter hands the check a call's metadata when its
// headers arrive, before the server takes the call and reads its message, so a call without a
// key the server takes is refused there (UNAUTHENTICATED) whatever its message's size, having
// cost its headers and what of its message was already on the way (HTTP/2's flow-control
// window). The refusal is logged and counted as the service's own answers are (a 401).
//
// Both kinds are gRPC core's credentials (grpc_insecure_server_credentials_create,
// grpc_ssl_server_credentials_create_ex) under a grpc::ServerCredentials of this file: gRPC
// 1.51's C++ InsecureServerCredentials() takes no auth metadata processor (it asserts), while
// core's insecure credentials run the auth filter as its TLS ones do.
#pragma once

#include <grpcpp/security/server_credentials.h>

#include <memory>
#include <string_view>

#include "serve/oip/server_context.h"

namespace wasinn::oip_server {

// Whether a method of inference.GRPCInferenceService ("ServerLive") is answered without a key:
// the probes, ServerLive and ServerReady, so that a load balancer needs none.
bool grpc_method_is_probe(std::string_view method);

// The UNAUTHENTICATED message for a call that sent no `authorization` metadata, or one with no
// key this server takes.
const char* grpc_unauthenticated_message(bool sent_authorization);

// The gRPC port's credentials: TLS with tls's files (checked at start: cli's check_tls_options),
// else plaintext; with context.keys, every call but a probe's needs a key. `context` outlives
// every server the credentials are given to.
std::shared_ptr<grpc::ServerCredentials> grpc_port_credentials(ServerContext& context, const TlsFiles& tls);

}  // namespace wasinn::oip_server
