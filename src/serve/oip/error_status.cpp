// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "serve/oip/error_status.h"

namespace wasinn::oip_server {

int http_status(Errc code) {
  switch (code) {
    case Errc::invalid_argument:
    case Errc::invalid_encoding:
    case Errc::unsupported_operation:
    case Errc::prompt_too_long:
    case Errc::end_of_sequence: return 400;
    case Errc::not_found:
    case Errc::model_not_found: return 404;
    case Errc::too_large: return 413;
    case Errc::busy:
    case Errc::context_full: return 503;
    case Errc::timeout: return 504;
    default: return 500;
  }
}

int grpc_code(Errc code) {
  switch (http_status(code)) {
    case 400: return 3;   // INVALID_ARGUMENT
    case 404: return 5;   // NOT_FOUND
    case 413: return 8;   // RESOURCE_EXHAUSTED
    case 503: return 14;  // UNAVAILABLE
    case 504: return 4;   // DEADLINE_EXCEEDED
    default: return 13;   // INTERNAL
  }
}

}  // namespace wasinn::oip_server
