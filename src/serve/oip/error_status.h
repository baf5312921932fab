// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A wasinn error as the protocol's statuses: HTTP for REST, a gRPC status code for gRPC, so both
// transports answer the same failure alike; core/errc.def's columns (docs/oip-server.md's table).
#pragma once

#include "core/error.h"

namespace wasinn::oip_server {

// 400 a request that does not fit the model, 404 an unknown model or version, 413 too large,
// 503 not ready or busy, 504 past the compute budget, 500 the backend failed.
int http_status(Errc code);

// grpc::StatusCode's numbering (INVALID_ARGUMENT 3, NOT_FOUND 5, ...), without grpc's headers.
int grpc_code(Errc code);

}  // namespace wasinn::oip_server
