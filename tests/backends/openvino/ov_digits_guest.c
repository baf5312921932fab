// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * ov_digits_guest: classifies every held-out digit, one wasi-nn inference each, with an
 * OpenVINO model, and writes all logits for comparison with a native OpenVINO run.
 *
 *   ov_digits_guest (XML BIN | name:NAME -) X.f32 Y.u8 LOGITS_OUT.f32 [TARGET]
 *
 * XML and BIN are loaded as the two graph builders (encoding openvino); name:NAME uses
 * load_by_name. Prints "accuracy C/N"; on a wasi-nn error prints "errno E in STEP" and exits E.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wasi_nn.h"
#include "wasinn_guest_file.h"

static void check(int32_t err, const char* step) {
  if (err != WASI_NN_SUCCESS) {
    printf("errno %d in %s\n", err, step);
    exit(err);
  }
}

int main(int argc, char** argv) {
  if (argc < 6) {
    fprintf(stderr, "usage: ov_digits_guest (XML BIN | name:NAME -) X.f32 Y.u8 LOGITS_OUT.f32 [TARGET]\n");
    return 2;
  }
  uint32_t x_len = 0, y_len = 0;
  const float* x = (const float*)guest_read_file(argv[3], &x_len);
  const unsigned char* y = guest_read_file(argv[4], &y_len);
  if (x_len != y_len * 64 * sizeof(float)) {
    fprintf(stderr, "ov_digits_guest: %s is not %u rows of 64 floats\n", argv[3], y_len);
    return 2;
  }
  const uint32_t n = y_len;
  const uint32_t target = argc > 6 ? (uint32_t)atoi(argv[6]) : WASI_NN_TARGET_CPU;

  wasi_nn_graph graph;
  if (strncmp(argv[1], "name:", 5) == 0) {
    const char* name = argv[1] + 5;
    check(wasi_nn_load_by_name(name, (uint32_t)strlen(name), &graph), "load_by_name");
  } else {
    wasi_nn_graph_builder builders[2];
    builders[0].buf = guest_read_file(argv[1], &builders[0].size);
    builders[1].buf = guest_read_file(argv[2], &builders[1].size);
    check(wasi_nn_load(builders, 2, WASI_NN_ENCODING_OPENVINO, target, &graph), "load");
    /* The host copied what it keeps: the builders can go (and their memory be reused). */
    free((void*)builders[0].buf);
    free((void*)builders[1].buf);
  }
  wasi_nn_context ctx;
  check(wasi_nn_init_execution_context(graph, &ctx), "init_execution_context");

  float* logits = malloc((size_t)n * 10 * sizeof(float));
  /* One input buffer reused for every row: if the host kept pointing into guest memory after
     set_input, overwriting it before compute would change the answers. */
  float* row_in = malloc(64 * sizeof(float));
  const uint32_t dims[2] = {1, 64};
  uint32_t correct = 0;
  for (uint32_t i = 0; i < n; ++i) {
    memcpy(row_in, x + (size_t)i * 64, 64 * sizeof(float));
    wasi_nn_tensor t = {dims, 2, WASI_NN_TYPE_F32, {0, 0, 0}, (const uint8_t*)row_in, 64 * sizeof(float)};
    check(wasi_nn_set_input(ctx, 0, &t), "set_input");
    memset(row_in, 0xff, 64 * sizeof(float)); /* NaNs: must not reach the model */
    check(wasi_nn_compute(ctx), "compute");
    uint32_t written = 0;
    float* row = logits + (size_t)i * 10;
    check(wasi_nn_get_output(ctx, 0, (uint8_t*)row, 10 * sizeof(float), &written), "get_output");
    if (written != 10 * sizeof(float)) {
      fprintf(stderr, "ov_digits_guest: output has %u bytes, expected 40\n", written);
      return 2;
    }
    uint32_t best = 0;
    for (uint32_t k = 1; k < 10; ++k)
      if (row[k] > row[best]) best = k;
    correct += best == y[i];
  }
  FILE* f = fopen(argv[5], "wb");
  if (!f || fwrite(logits, sizeof(float), (size_t)n * 10, f) != (size_t)n * 10 || fclose(f) != 0) {
    fprintf(stderr, "ov_digits_guest: cannot write %s\n", argv[5]);
    return 2;
  }
  printf("accuracy %u/%u\n", correct, n);
  check(wasi_nn_finalize_execution_context(ctx), "finalize_execution_context");
  check(wasi_nn_unload(graph), "unload");
  return 0;
}
