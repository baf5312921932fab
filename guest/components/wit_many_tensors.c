// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * wit_many_tensors: creates tensors without dropping them until the host's constructor traps
 * (a resource-table or memory limit) or N are made, then drops them all and does one correct
 * inference (wasi:nn@0.2.0-rc-2024-10-28, command component).
 *
 *   wit_many_tensors MODEL|name:NAME X.f32 N
 *
 * Each tensor is FP32 [1, 64] holding row 0 of X (256 bytes). On stderr every 10000 tensors:
 * "made K" (so a trap's last count shows). On stdout:
 *   count: N                 (all N were made)
 *   recover: class C         (the inference after dropping them all)
 * Exit 0; 1 for a wasi:nn error (reported on stderr); 2 for bad arguments. A trap in the
 * constructor ends the guest there (the host reports it).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wasi_nn_wit.h"
#include "wit_digits.h"
#include "wit_guest_util.h"

int main(int argc, char** argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: wit_many_tensors MODEL|name:NAME X.f32 N\n");
    return 2;
  }
  char* end;
  long n = strtol(argv[3], &end, 10);
  if (*end || n < 0) {
    fprintf(stderr, "wit_many_tensors: N must be a number >= 0, not %s\n", argv[3]);
    return 2;
  }
  float* x;
  size_t rows;
  wnn_graph graph;
  wnn_context ctx;
  wnn_error err;
  int r = wg_open_digits("wit_many_tensors", argv[1], argv[2], &x, &rows, &graph, &ctx);
  if (r) return r;

  wnn_tensor* kept = malloc((size_t)(n > 0 ? n : 1) * sizeof *kept);
  if (!kept) {
    fprintf(stderr, "wit_many_tensors: no memory for %ld handles\n", n);
    return 2;
  }
  for (long i = 0; i < n; ++i) {
    kept[i] = wg_digits_input(x).tensor;
    if ((i + 1) % 10000 == 0) fprintf(stderr, "made %ld\n", i + 1);
  }
  printf("count: %ld\n", n);
  fflush(stdout);
  for (long i = 0; i < n; ++i) wnn_tensor_drop(kept[i]);
  free(kept);

  wnn_named_tensor in = wg_digits_input(x);
  wnn_named_tensor_list outputs;
  if (wnn_compute(ctx, &in, 1, &outputs, &err)) {
    wg_report("wit_many_tensors", "compute", err);
    return 1;
  }
  int best = wg_digits_first_class(&outputs);
  wnn_named_tensor_list_free(&outputs);
  if (best < 0) {
    fprintf(stderr, "wit_many_tensors: the output is not 10 floats\n");
    return 1;
  }
  printf("recover: class %d\n", best);
  wnn_context_drop(ctx);
  wnn_graph_drop(graph);
  free(x);
  return 0;
}
