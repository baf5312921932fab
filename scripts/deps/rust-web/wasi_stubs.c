// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/* Symbols Rust 1.96's std links that Debian 12's wasi-libc (2022) lacks. Each answers "not
 * supported", as wasi-libc's own later versions do where WASI has no such call. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct sockaddr;
struct addrinfo;

int socket(int domain, int type, int protocol) {
  errno = ENOTSUP;
  return -1;
}
int bind(int fd, const struct sockaddr* a, unsigned len) {
  errno = ENOTSUP;
  return -1;
}
int connect(int fd, const struct sockaddr* a, unsigned len) {
  errno = ENOTSUP;
  return -1;
}
int listen(int fd, int backlog) {
  errno = ENOTSUP;
  return -1;
}
int getpeername(int fd, struct sockaddr* a, unsigned* len) {
  errno = ENOTSUP;
  return -1;
}
int getsockname(int fd, struct sockaddr* a, unsigned* len) {
  errno = ENOTSUP;
  return -1;
}
int setsockopt(int fd, int level, int name, const void* v, unsigned len) {
  errno = ENOTSUP;
  return -1;
}
ssize_t recvfrom(int fd, void* buf, size_t len, int flags, struct sockaddr* a, unsigned* alen) {
  errno = ENOTSUP;
  return -1;
}
ssize_t sendto(int fd, const void* buf, size_t len, int flags, const struct sockaddr* a, unsigned alen) {
  errno = ENOTSUP;
  return -1;
}
/* EAI_SYSTEM (musl's value), with errno saying why. */
int getaddrinfo(const char* node, const char* service, const struct addrinfo* hints, struct addrinfo** res) {
  errno = ENOTSUP;
  return -11;
}
void freeaddrinfo(struct addrinfo* ai) {}
const char* gai_strerror(int code) { return "name resolution is not supported"; }
int chmod(const char* path, mode_t mode) {
  errno = ENOTSUP;
  return -1;
}
int fchmod(int fd, mode_t mode) {
  errno = ENOTSUP;
  return -1;
}
char* realpath(const char* path, char* resolved) {
  errno = ENOTSUP;
  return NULL;
}
/* Threads: attributes succeed (std asserts on them), creating a thread fails. */
int pthread_attr_init(void* attr) { return 0; }
int pthread_attr_destroy(void* attr) { return 0; }
int pthread_attr_setstacksize(void* attr, size_t size) { return 0; }
int pthread_create(void* thread, const void* attr, void* (*start)(void*), void* arg) { return ENOTSUP; }
int pthread_join(unsigned long thread, void** ret) { return ESRCH; }
int pthread_detach(unsigned long thread) { return ESRCH; }
