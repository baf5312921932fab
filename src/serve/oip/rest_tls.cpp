// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "serve/oip/rest_tls.h"

#include <arpa/inet.h>
#include <dlfcn.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <fmt/format.h>

namespace wasinn::oip_server {

namespace {

// OpenSSL's last error as text, for a TLS file's message.
std::string openssl_error() {
  char text[256] = "unknown error";
  if (const unsigned long e = ERR_get_error()) ERR_error_string_n(e, text, sizeof text);
  ERR_clear_error();
  return text;
}

// A counted connection's SSL holds its ConnectionLimit here: freeing the SSL (civetweb does as the
// connection closes, or as its handshake fails) is the connection's end.
void release_counted(void*, void* limit, CRYPTO_EX_DATA*, int, long, void*) {
  if (limit) static_cast<ConnectionLimit*>(limit)->closed();
}
int counted_index() {
  static const int index = SSL_get_ex_new_index(0, nullptr, nullptr, nullptr, &release_counted);
  return index;
}

// HOST:PORT of a socket's peer, for the refusal's log line ("" when not known).
std::string peer_of(int fd) {
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  if (getpeername(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) return "";
  char host[INET6_ADDRSTRLEN] = "";
  if (addr.ss_family == AF_INET) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(&addr);
    inet_ntop(AF_INET, &in->sin_addr, host, sizeof host);
    return fmt::format("{}:{}", host, ntohs(in->sin_port));
  }
  if (addr.ss_family == AF_INET6) {
    const auto* in6 = reinterpret_cast<const sockaddr_in6*>(&addr);
    inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof host);
    return fmt::format("[{}]:{}", host, ntohs(in6->sin6_port));
  }
  return "";
}

// OpenSSL's info callback: a server's handshake starts as soon as a civetweb thread has taken the
// connection, before it reads the ClientHello. There the connection is counted (past the limit its
// socket is shut, so the handshake fails at once and the thread is free), and its deadline armed.
void on_handshake_event(const SSL* ssl, int where, int) {
  if (!(where & SSL_CB_HANDSHAKE_START)) return;
  auto* handshakes = static_cast<TlsHandshakes*>(SSL_CTX_get_app_data(SSL_get_SSL_CTX(ssl)));
  // TLS 1.2 renegotiation is off (civetweb sets SSL_OP_NO_RENEGOTIATION): a second start is not
  // expected, and would not be counted twice.
  auto* session = const_cast<SSL*>(ssl);
  if (!handshakes || SSL_get_ex_data(session, counted_index())) return;
  if (handshakes->connections) {
    const int fd = SSL_get_fd(ssl);
    if (!handshakes->connections->admit(peer_of(fd))) {
      shutdown(fd, SHUT_RDWR);
      return;
    }
    SSL_set_ex_data(session, counted_index(), handshakes->connections);
  }
  if (handshakes->deadlines && handshakes->timeout_ms)
    handshakes->deadlines->arm(ReadDeadlines::Clock::now() + std::chrono::milliseconds(handshakes->timeout_ms));
}

}  // namespace

std::string configure_tls_context(void* ssl_ctx, const TlsFiles& tls, TlsHandshakes* handshakes) {
  auto* ctx = static_cast<SSL_CTX*>(ssl_ctx);
  auto fail = [&](const std::string& flag, const std::string& file, const char* what) {
    return fmt::format("{} {}: {} ({})", flag, file, what, openssl_error());
  };
  SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
  if (SSL_CTX_set_cipher_list(ctx, kTls12Ciphers) != 1)
    return fmt::format("--tls-cert: OpenSSL offers none of TLS 1.2's suites {} ({})", kTls12Ciphers, openssl_error());
  if (SSL_CTX_use_certificate_chain_file(ctx, tls.cert.c_str()) != 1)
    return fail("--tls-cert", tls.cert, "not a PEM certificate");
  if (SSL_CTX_use_PrivateKey_file(ctx, tls.key.c_str(), SSL_FILETYPE_PEM) != 1)
    return fail("--tls-key", tls.key, "not a PEM private key");
  if (SSL_CTX_check_private_key(ctx) != 1) return fail("--tls-key", tls.key, "does not match --tls-cert");
  if (!tls.client_ca.empty()) {
    if (SSL_CTX_load_verify_locations(ctx, tls.client_ca.c_str(), nullptr) != 1)
      return fail("--tls-client-ca", tls.client_ca, "not a PEM certificate");
    if (STACK_OF(X509_NAME)* names = SSL_load_client_CA_file(tls.client_ca.c_str()))
      SSL_CTX_set_client_CA_list(ctx, names);
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nullptr);
  }
  // civetweb's own info callback does nothing: this one replaces it.
  SSL_CTX_set_app_data(ctx, handshakes);
  SSL_CTX_set_info_callback(ctx, &on_handshake_event);
  return "";
}

std::string load_openssl_shims() {
  static const std::string failed = [] {
    for (const char* lib : {"libwasinn_civetweb_crypto.so", "libwasinn_civetweb_ssl.so"}) {
      if (!dlopen(lib, RTLD_NOW | RTLD_GLOBAL)) return std::string(dlerror());
    }
    return std::string();
  }();
  return failed;
}

}  // namespace wasinn::oip_server
