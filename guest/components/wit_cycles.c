// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * wit_cycles: a resource-lifecycle soak for wasi:nn@0.2.0-rc-2024-10-28 (command component).
 *
 *   wit_cycles [--rss-every K] MODEL|name:NAME X.f32 N
 *
 * Loads MODEL once (onnx), then N times: init-execution-context, a tensor ("input", FP32
 * [1, 64], row i mod rows of X), compute, read and drop the outputs, drop the context. Any
 * growth the host shows over the cycles is a leak: with --rss-every K the guest writes "at I"
 * to stderr after every K cycles, where the host's soak harness samples its memory. A row's
 * class must be the same every time it comes round. On stdout at the end:
 *   cycles N class C       (C: the class of row 0, the first cycle's)
 * Exit 0; 1 for a wasi:nn error (stderr "wit_cycles: WHAT failed at cycle I: CODE-NAME: DATA")
 * or an output that is not 10 floats; 2 for bad arguments.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wasi_nn_wit.h"
#include "wit_digits.h"
#include "wit_guest_util.h"

static int fail_at(const char* what, long i, wnn_error err) {
  char text[1024];
  wg_error_text(err, text, sizeof text);
  fprintf(stderr, "wit_cycles: %s failed at cycle %ld: %s\n", what, i, text);
  return 1;
}

int main(int argc, char** argv) {
  int a = 1;
  long every = 0;
  if (argc > 2 && !strcmp(argv[1], "--rss-every")) {
    a = 3;
    every = strtol(argv[2], NULL, 10);
  }
  if (argc - a != 3) {
    fprintf(stderr, "usage: wit_cycles [--rss-every K] MODEL|name:NAME X.f32 N\n");
    return 2;
  }
  char* end;
  long n = strtol(argv[a + 2], &end, 10);
  if (*end || n < 1) {
    fprintf(stderr, "wit_cycles: N must be a positive number, not %s\n", argv[a + 2]);
    return 2;
  }
  float* x;
  size_t rows;
  wnn_graph graph;
  wnn_error err;
  int r = wg_open_digits("wit_cycles", argv[a], argv[a + 1], &x, &rows, &graph, NULL);
  if (r) return r;
  int first_class = -1;
  int* classes = calloc(rows, sizeof *classes);
  if (!classes) return 1;
  for (long i = 0; i < n; ++i) {
    wnn_context ctx;
    if (wnn_init_execution_context(graph, &ctx, &err)) return fail_at("init-execution-context", i, err);
    const float* row = x + (size_t)(i % (long)rows) * 64;
    wnn_named_tensor in = wg_digits_input(row);
    wnn_named_tensor_list outputs;
    if (wnn_compute(ctx, &in, 1, &outputs, &err)) return fail_at("compute", i, err);
    const int cls = wg_digits_first_class(&outputs);
    wnn_named_tensor_list_free(&outputs);
    if (cls < 0) {
      fprintf(stderr, "wit_cycles: at cycle %ld the first output is missing or not 10 floats\n", i);
      return 1;
    }
    if (i == 0) first_class = cls;
    const size_t at = (size_t)(i % (long)rows);
    if (i >= (long)rows && classes[at] != cls) {
      fprintf(stderr, "wit_cycles: at cycle %ld row %zu is class %d, earlier %d\n", i, at, cls, classes[at]);
      return 1;
    }
    classes[at] = cls;
    wnn_context_drop(ctx);
    if (every > 0 && (i + 1) % every == 0) {
      fprintf(stderr, "at %ld\n", i + 1);
      fflush(stderr);
    }
  }
  free(classes);
  printf("cycles %ld class %d\n", n, first_class);
  wnn_graph_drop(graph);
  free(x);
  return 0;
}
