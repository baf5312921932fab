// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What Debian 12's civetweb 1.15 needs to serve TLS with OpenSSL 3 (the OIP server's REST over
// HTTPS). That civetweb loads OpenSSL at run time, dlopen("libssl.so") and dlopen("libcrypto.so"),
// and takes every function of its OpenSSL 1.1 list by dlsym: OpenSSL 3 no longer exports
// SSL_get_peer_certificate (a macro for SSL_get1_peer_certificate now), so its TLS never starts
// (mg_init_library leaves MG_FEATURES_TLS unset) and a worker calls a NULL pointer on the first
// HTTPS request. Built twice, as libraries whose SONAMEs are "libssl.so" and "libcrypto.so" and
// that depend on libssl.so.3 and libcrypto.so.3: loaded before civetweb's dlopen, they are what
// its dlopen finds (a loaded library's SONAME matches), and dlsym searches them and then the real
// libraries. This needs no OpenSSL development symlinks at run time either.
#ifdef WASINN_SHIM_LIBSSL
#include <openssl/ssl.h>

#undef SSL_get_peer_certificate
// The same function under its OpenSSL 1.1 name: both return the certificate with a reference the
// caller frees (civetweb does, with X509_free).
__attribute__((visibility("default"))) X509* SSL_get_peer_certificate(const SSL* ssl) {
  return SSL_get1_peer_certificate(ssl);
}
#else
// libcrypto.so's stand-in adds nothing: it only names libcrypto.so.3.
typedef int wasinn_libcrypto_shim_is_empty;
#endif
