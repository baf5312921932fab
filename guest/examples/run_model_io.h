// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * run_model's --io file reader. It accepts exactly what `wasinn models inspect --json MODEL`
 * prints: one JSON object holding an "inputs" and an "outputs" array, each item an object with
 * "index" (a u32 unique in its list), "name" and "type" (strings) and "shape" (null, or an array of
 * at most MAX_RANK integers, a negative one meaning dynamic). Other keys may hold any JSON value,
 * which is checked and skipped. It is strict JSON (no comments, trailing commas or text after the
 * object), and also rejects a repeated key it reads and "\u0000" in a string.
 *
 * read_io_file returns only on success. Anything else ends run_model as its other errors do, with
 * one "run_model: ..." line on stderr and exit status 2; for a file it does not accept, the line is
 * "run_model: --io PATH: line L, column C: WHAT (...)".
 */
#ifndef RUN_MODEL_IO_H
#define RUN_MODEL_IO_H

#include <stddef.h>
#include <stdint.h>

#define MAX_RANK 64 /* the host's default rank limit */

/* One entry of "inputs" or "outputs". */
struct io_tensor {
  uint32_t index;
  char* name;
  char* type;      /* "f32", ...; also names witx cannot carry ("bf16", "?") */
  int shape_known; /* "shape": null means the model does not declare it */
  uint32_t rank;
  int64_t dims[MAX_RANK]; /* -1: dynamic */
};

struct io_list {
  struct io_tensor* items;
  size_t count;
};

void read_io_file(const char* path, struct io_list* inputs, struct io_list* outputs);

/* ---- defined in run_model.c, shared so the reader reads and fails as the rest of run_model ---- */

/* One "run_model: ..." line on stderr and exit 2. */
__attribute__((noreturn, format(printf, 1, 2))) void fail(const char* fmt, ...);

/* malloc that fails through fail() instead of returning NULL. */
void* xmalloc(size_t n);

struct blob {
  unsigned char* data;
  uint32_t len;
};

/* A whole file; WHAT names it in messages ("input file", "--io file"). */
struct blob read_all(const char* path, const char* what);

#endif
