// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * deadline_guest: a compute past the host's --max-compute-ms budget fails with errno 5, and the
 * host stays usable: the same context accepts input and computes again (and is stopped again),
 * its graph and context are released, and a quick model then classifies a digit (retrying a
 * compute that timed out, as a guest would).
 *
 *   deadline_guest SLOW_MODEL.onnx SLOW_INPUT.f32 DIGITS_MODEL.onnx DIGITS_X.f32 DIGITS_Y.u8
 *
 * SLOW_* is mobilenet_v2 (1x3x224x224 f32). Prints one line per step; exits 0 when every step
 * went as described, else the step's number.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wasinn_guest_file.h"
#include "wasi_nn.h"

static void expect(int32_t got, int32_t want, int step, const char* what) {
  printf("%s: errno %d\n", what, got);
  if (got != want) {
    printf("step %d: expected errno %d\n", step, want);
    exit(step);
  }
}

int main(int argc, char** argv) {
  if (argc != 6) {
    fprintf(stderr, "usage: deadline_guest SLOW_MODEL SLOW_INPUT DIGITS_MODEL DIGITS_X DIGITS_Y\n");
    return 2;
  }
  uint32_t model_len, input_len, digits_len, x_len, y_len;
  unsigned char* model = guest_read_file(argv[1], &model_len);
  unsigned char* input = guest_read_file(argv[2], &input_len);
  unsigned char* digits = guest_read_file(argv[3], &digits_len);
  unsigned char* x = guest_read_file(argv[4], &x_len);
  unsigned char* y = guest_read_file(argv[5], &y_len);

  wasi_nn_graph slow;
  wasi_nn_context ctx;
  wasi_nn_graph_builder b = {model, model_len};
  expect(wasi_nn_load(&b, 1, WASI_NN_ENCODING_ONNX, WASI_NN_TARGET_CPU, &slow), 0, 10, "load slow");
  expect(wasi_nn_init_execution_context(slow, &ctx), 0, 11, "init slow");
  const uint32_t dims[4] = {1, 3, 224, 224};
  wasi_nn_tensor t = {dims, 4, WASI_NN_TYPE_F32, {0, 0, 0}, input, input_len};
  expect(wasi_nn_set_input(ctx, 0, &t), 0, 12, "set_input slow");
  expect(wasi_nn_compute(ctx), WASI_NN_RUNTIME_ERROR, 13, "compute slow");
  /* The stopped context is neither busy nor broken. */
  expect(wasi_nn_set_input(ctx, 0, &t), 0, 14, "set_input slow again");
  expect(wasi_nn_compute(ctx), WASI_NN_RUNTIME_ERROR, 15, "compute slow again");
  expect(wasi_nn_finalize_execution_context(ctx), 0, 16, "finalize slow");
  expect(wasi_nn_unload(slow), 0, 17, "unload slow");

  wasi_nn_graph quick;
  wasi_nn_graph_builder db = {digits, digits_len};
  expect(wasi_nn_load(&db, 1, WASI_NN_ENCODING_ONNX, WASI_NN_TARGET_CPU, &quick), 0, 20, "load digits");
  expect(wasi_nn_init_execution_context(quick, &ctx), 0, 21, "init digits");
  const uint32_t ddims[2] = {1, 64};
  if (x_len < 64 * sizeof(float) || y_len < 1) return 2;
  wasi_nn_tensor dt = {ddims, 2, WASI_NN_TYPE_F32, {0, 0, 0}, x, 64 * sizeof(float)};
  expect(wasi_nn_set_input(ctx, 0, &dt), 0, 22, "set_input digits");
  /* A session's first run may itself pass a small budget (arena and thread-pool set-up on a busy
   * machine); a guest retries a timed-out compute, and a later one must succeed. */
  int32_t err = WASI_NN_RUNTIME_ERROR;
  for (int attempt = 0; attempt < 5 && err == WASI_NN_RUNTIME_ERROR; ++attempt) err = wasi_nn_compute(ctx);
  expect(err, 0, 23, "compute digits");
  float logits[10];
  uint32_t written = 0;
  expect(wasi_nn_get_output(ctx, 0, (uint8_t*)logits, sizeof logits, &written), 0, 24, "get_output digits");
  int best = 0;
  for (int i = 1; i < 10; ++i)
    if (logits[i] > logits[best]) best = i;
  printf("digit: %d (label %d)\n", best, y[0]);
  return written == sizeof logits && best == y[0] ? 0 : 25;
}
