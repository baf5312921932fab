// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/* guest_read_file: a whole file read into memory by an example or test guest; exits 2 (with the path on
 * stderr) if it cannot be read, since a guest without its fixture has nothing to test. */
#ifndef WASINN_GUEST_FILE_H_
#define WASINN_GUEST_FILE_H_

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* guest_say_cannot_open: PATH did not open, with the usual cause in a wasm guest: it sees only the
 * directories the host preopened, and a forgotten --dir looks like a missing file. (No strerror:
 * errno is thread-local, which clang-14 cannot compile for the wasi-threads guests.) */
static inline void guest_say_cannot_open(const char* who, const char* path) {
  fprintf(stderr,
          "%s: cannot open %s (missing, or its directory not preopened: a wasm guest sees only the "
          "directories given with wasinn run --dir HOST_DIR::GUEST_DIR)\n",
          who, path);
}

static inline unsigned char* guest_read_file(const char* path, uint32_t* len) {
  FILE* f = fopen(path, "rb");
  if (!f) {
    guest_say_cannot_open("guest", path);
    exit(2);
  }
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char* buf = malloc(n > 0 ? (size_t)n : 1);
  if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) exit(2);
  fclose(f);
  *len = (uint32_t)n;
  return buf;
}

#endif
