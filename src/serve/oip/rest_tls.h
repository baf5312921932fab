// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What REST over HTTPS sets on civetweb's TLS (OpenSSL 3, through civetweb_openssl_shim.c): the
// certificate files, the protocol and cipher policy of the component server's rustls (TLS 1.2
// with forward secrecy and AEAD, and TLS 1.3), and --max-connections counted from the start of a
// connection's handshake, which --header-timeout bounds: a connection that never sends its
// ClientHello is counted, and one past the limit is closed at once, before any handshake.
#pragma once

#include <cstdint>
#include <string>

#include "serve/oip/connection_limit.h"
#include "serve/oip/read_deadlines.h"
#include "serve/oip/server_context.h"

namespace wasinn::oip_server {

// TLS 1.2's suites: ECDHE key exchange and an AEAD cipher only, rustls's list (its ring provider);
// TLS 1.3's suites are all of that kind and stay OpenSSL's.
inline constexpr const char* kTls12Ciphers =
    "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:"
    "ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305";

// What the handshakes of one server share; it must outlive civetweb's SSL_CTX.
struct TlsHandshakes {
  ConnectionLimit* connections = nullptr;  // --max-connections; nullptr: none counted
  ReadDeadlines* deadlines = nullptr;      // bounds each handshake; nullptr: civetweb's bound only
  uint64_t timeout_ms = 0;                 // --header-timeout; 0: civetweb's bound only
};

// Sets `tls`'s files, the policy and the handshake callback on civetweb's SSL_CTX (`ssl_ctx`, as
// its init_ssl callback gets it); "" when done, else what is wrong, naming the flag and the file.
std::string configure_tls_context(void* ssl_ctx, const TlsFiles& tls, TlsHandshakes* handshakes);

// Loads the stand-ins for libssl.so and libcrypto.so (civetweb_openssl_shim.c) before civetweb
// looks for OpenSSL, once per process; "" or why they cannot be loaded.
std::string load_openssl_shims();

}  // namespace wasinn::oip_server
