// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * wasi_probe: exercises the WASI preview1 surface `wasinn run` gives a guest, without any
 * wasi-nn import (so it must run even when no backend can load).
 *
 *   wasi_probe args ARGS...     prints argc and each argv[i]
 *   wasi_probe env NAME...      prints NAME=value, or "NAME is unset"
 *   wasi_probe stdio            copies stdin to stdout, writes a marker line to stderr
 *   wasi_probe cat PATH         prints the file's bytes; exit 3 if it cannot be opened
 *   wasi_probe write PATH TEXT  writes TEXT to the file; exit 3 if it cannot be created
 *   wasi_probe exit N           exits with status N
 *   wasi_probe spin             prints a line, then loops forever (for `wasinn run --timeout`)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cat(const char* path) {
  FILE* f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "wasi_probe: cannot open %s\n", path);
    return 3;
  }
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) fwrite(buf, 1, n, stdout);
  fclose(f);
  return 0;
}

static int write_text(const char* path, const char* text) {
  FILE* f = fopen(path, "wb");
  if (!f) {
    fprintf(stderr, "wasi_probe: cannot create %s\n", path);
    return 3;
  }
  const size_t n = strlen(text);
  const int ok = fwrite(text, 1, n, f) == n;
  return fclose(f) == 0 && ok ? 0 : 3;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: wasi_probe args|env|stdio|cat|write|exit|spin ...\n");
    return 2;
  }
  const char* cmd = argv[1];
  if (!strcmp(cmd, "args")) {
    printf("argc=%d\n", argc);
    for (int i = 0; i < argc; ++i) printf("argv[%d]=%s\n", i, argv[i]);
    return 0;
  }
  if (!strcmp(cmd, "env")) {
    for (int i = 2; i < argc; ++i) {
      const char* v = getenv(argv[i]);
      if (v)
        printf("%s=%s\n", argv[i], v);
      else
        printf("%s is unset\n", argv[i]);
    }
    return 0;
  }
  if (!strcmp(cmd, "stdio")) {
    int c;
    while ((c = getchar()) != EOF) putchar(c);
    fprintf(stderr, "wasi_probe: this line goes to stderr\n");
    return 0;
  }
  if (!strcmp(cmd, "cat") && argc == 3) return cat(argv[2]);
  if (!strcmp(cmd, "write") && argc == 4) return write_text(argv[2], argv[3]);
  if (!strcmp(cmd, "exit") && argc == 3) {
    fflush(stdout);
    exit(atoi(argv[2]));
  }
  if (!strcmp(cmd, "spin")) {
    printf("spinning\n");
    fflush(stdout);
    volatile unsigned long n = 0;
    for (;;) ++n; /* volatile: the loop must really run, not be folded away */
  }
  fprintf(stderr, "wasi_probe: unknown command %s\n", cmd);
  return 2;
}
