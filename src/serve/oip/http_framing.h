// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Strict HTTP/1.1 framing for the OIP server's REST requests (civetweb): what a proxy in front and
// civetweb could read differently, so that the tail of one request would run as another (request
// smuggling), is refused before the body is read, as the component server's hyper refuses it:
// Content-Length with Transfer-Encoding, two Content-Lengths, a length that is not digits, a
// Transfer-Encoding other than chunked (or on HTTP/1.0), whitespace between a header's name and
// its colon, a header line civetweb did not read (folded, or past its 64: 431, as headers over
// 8 KiB), a name that is not an RFC 9110 token; and, for the key and the host, two Authorization
// or Host headers, or an HTTP/1.1 request without Host.
#pragma once

#include <optional>
#include <string>

struct mg_request_info;

namespace wasinn::oip_server {

struct FramingError {
  int status;  // 400, or 431 for too many header lines
  std::string message;
};

// Why `request` (as civetweb parsed it, before its body is read) must be refused; nullopt when
// its framing is sound.
std::optional<FramingError> framing_error(const mg_request_info& request);

}  // namespace wasinn::oip_server
