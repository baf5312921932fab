// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "serve/oip/error_status.h"

namespace wasinn::oip_server {

namespace {

// grpc::StatusCode's numbers, by its names, for core/errc.def's gRPC column.
enum class Grpc : int {
  INVALID_ARGUMENT = 3,
  DEADLINE_EXCEEDED = 4,
  NOT_FOUND = 5,
  RESOURCE_EXHAUSTED = 8,
  INTERNAL = 13,
  UNAVAILABLE = 14,
};

}  // namespace

int http_status(Errc code) {
  switch (code) {  // core/errc.def's HTTP status
#define WASINN_ERRC(name, plugin_status, witx_errno, wit_case, http, grpc) \
  case Errc::name:                                                         \
    return http;
#include "core/errc.def"
#undef WASINN_ERRC
  }
  return 500;  // not an Errc at all (a cast of a stray number)
}

int grpc_code(Errc code) {
  switch (code) {  // core/errc.def's gRPC code
#define WASINN_ERRC(name, plugin_status, witx_errno, wit_case, http, grpc) \
  case Errc::name:                                                         \
    return static_cast<int>(Grpc::grpc);
#include "core/errc.def"
#undef WASINN_ERRC
  }
  return static_cast<int>(Grpc::INTERNAL);  // not an Errc at all (a cast of a stray number)
}

}  // namespace wasinn::oip_server
