// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * metrics_guest: makes a known set of wasi-nn calls, then waits, so that a test can scrape
 * `wasinn run --metrics-addr` while the guest still runs and check every count.
 *
 *   metrics_guest MODEL.onnx X.f32 N
 *
 * Loads MODEL (ONNX, from its bytes) and runs N inferences on the first N rows of X (each a
 * set_input of f32 [1, 64], a compute and a get_output of 10 floats), printing each predicted
 * digit. Then two deliberate failures: load_by_name of a name nobody registered (not_found),
 * and a compute on a second context that was given no input (invalid_argument). Prints
 * "ready" and waits for a line on stdin before it finalizes, unloads and exits 0; exits 1 at
 * the first call that goes differently, 2 without its files.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wasinn_guest_file.h"
#include "wasi_nn.h"

static int expect(int32_t got, int32_t want, const char* what) {
  if (got == want) return 0;
  fprintf(stderr, "metrics_guest: %s gave wasi-nn errno %d, expected %d\n", what, got, want);
  return 1;
}

int main(int argc, char** argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: metrics_guest MODEL.onnx X.f32 N\n");
    return 2;
  }
  uint32_t model_len = 0, x_len = 0;
  unsigned char* model = guest_read_file(argv[1], &model_len);
  const float* x = (const float*)guest_read_file(argv[2], &x_len);
  const uint32_t n = (uint32_t)strtoul(argv[3], NULL, 10);
  if ((uint64_t)n * 64 * sizeof(float) > x_len) {
    fprintf(stderr, "metrics_guest: %s has fewer than %u rows\n", argv[2], n);
    return 2;
  }

  wasi_nn_graph graph;
  wasi_nn_graph_builder builder = {model, model_len};
  if (expect(wasi_nn_load(&builder, 1, WASI_NN_ENCODING_ONNX, WASI_NN_TARGET_CPU, &graph), WASI_NN_SUCCESS, "load"))
    return 1;
  wasi_nn_context ctx;
  if (expect(wasi_nn_init_execution_context(graph, &ctx), WASI_NN_SUCCESS, "init_execution_context")) return 1;
  const uint32_t dims[2] = {1, 64};
  for (uint32_t i = 0; i < n; ++i) {
    wasi_nn_tensor t = {dims, 2, WASI_NN_TYPE_F32, {0, 0, 0}, (const uint8_t*)(x + i * 64), 64 * sizeof(float)};
    float logits[10];
    uint32_t written = 0;
    if (expect(wasi_nn_set_input(ctx, 0, &t), WASI_NN_SUCCESS, "set_input") ||
        expect(wasi_nn_compute(ctx), WASI_NN_SUCCESS, "compute") ||
        expect(wasi_nn_get_output(ctx, 0, (uint8_t*)logits, sizeof logits, &written), WASI_NN_SUCCESS, "get_output"))
      return 1;
    int best = 0;
    for (int k = 1; k < 10; ++k)
      if (logits[k] > logits[best]) best = k;
    printf("row %u: %d\n", i, best);
  }

  const char* unknown = "no_such_model";
  wasi_nn_graph unused;
  if (expect(wasi_nn_load_by_name(unknown, (uint32_t)strlen(unknown), &unused), WASI_NN_NOT_FOUND, "load_by_name"))
    return 1;
  wasi_nn_context empty;
  if (expect(wasi_nn_init_execution_context(graph, &empty), WASI_NN_SUCCESS, "init_execution_context") ||
      expect(wasi_nn_compute(empty), WASI_NN_INVALID_ARGUMENT, "compute without input"))
    return 1;

  printf("ready\n");
  fflush(stdout);
  char line[16];
  if (!fgets(line, sizeof line, stdin)) fprintf(stderr, "metrics_guest: stdin closed before the go-ahead\n");

  if (expect(wasi_nn_finalize_execution_context(empty), WASI_NN_SUCCESS, "finalize_execution_context") ||
      expect(wasi_nn_finalize_execution_context(ctx), WASI_NN_SUCCESS, "finalize_execution_context") ||
      expect(wasi_nn_unload(graph), WASI_NN_SUCCESS, "unload"))
    return 1;
  free(model);
  return 0;
}
