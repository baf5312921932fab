// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/* guest_read_file: a whole file read into memory by an example or test guest; exits 2 (with the path on
 * stderr) if it cannot be read, since a guest without its fixture has nothing to test. */
#ifndef WASINN_GUEST_FILE_H_
#define WASINN_GUEST_FILE_H_

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static unsigned char *guest_read_file(const char *path, uint32_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "cannot open %s\n", path);
    exit(2);
  }
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char *buf = malloc(n > 0 ? (size_t)n : 1);
  if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) exit(2);
  fclose(f);
  *len = (uint32_t)n;
  return buf;
}

#endif
