// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * classify_digits: classifies handwritten 8x8 digits with a wasi-nn model and prints its
 * answers and its accuracy on the labelled set.
 *
 *   classify_digits MODEL X.f32 Y.u8 [LOGITS_OUT.f32]
 *
 * MODEL is an ONNX file path (loaded with `load`) or name:NAME (loaded with `load_by_name`,
 * registered by the host with --nn-preload). X holds N rows of 64 floats (pixel / 16), Y the
 * N labels. LOGITS_OUT, if given, receives all N x 10 output floats, for comparison with a
 * native run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wasi_nn.h"
#include "wasinn_guest_file.h"

static unsigned char* read_all(const char* path, size_t* len) {
  FILE* f = fopen(path, "rb");
  if (!f) {
    guest_say_cannot_open("classify_digits", path);
    return NULL;
  }
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char* buf = malloc(n > 0 ? (size_t)n : 1);
  if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
    free(buf);
    buf = NULL;
  }
  fclose(f);
  *len = (size_t)n;
  return buf;
}

static int check(int32_t err, const char* what) {
  if (err != WASI_NN_SUCCESS) fprintf(stderr, "classify_digits: %s failed with wasi-nn errno %d\n", what, err);
  return err != WASI_NN_SUCCESS;
}

int main(int argc, char** argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: classify_digits MODEL|name:NAME X.f32 Y.u8 [LOGITS_OUT.f32]\n");
    return 2;
  }
  size_t x_len = 0, y_len = 0;
  float* x = (float*)read_all(argv[2], &x_len);
  unsigned char* y = read_all(argv[3], &y_len);
  if (!x || !y || x_len != y_len * 64 * sizeof(float)) {
    fprintf(stderr, "classify_digits: cannot read %s and %s as N x 64 floats and N labels\n", argv[2], argv[3]);
    return 2;
  }
  const size_t n = y_len;

  wasi_nn_graph graph;
  if (strncmp(argv[1], "name:", 5) == 0) {
    const char* name = argv[1] + 5;
    if (check(wasi_nn_load_by_name(name, (uint32_t)strlen(name), &graph), "load_by_name")) return 1;
  } else {
    size_t model_len = 0;
    unsigned char* model = read_all(argv[1], &model_len);
    if (!model) {
      fprintf(stderr, "classify_digits: cannot read %s\n", argv[1]);
      return 2;
    }
    wasi_nn_graph_builder builder = {model, (uint32_t)model_len};
    if (check(wasi_nn_load(&builder, 1, WASI_NN_ENCODING_ONNX, WASI_NN_TARGET_CPU, &graph), "load")) return 1;
    free(model);
  }
  wasi_nn_context ctx;
  if (check(wasi_nn_init_execution_context(graph, &ctx), "init_execution_context")) return 1;

  float* logits = malloc(n * 10 * sizeof(float));
  const uint32_t dims[2] = {1, 64};
  size_t correct = 0;
  for (size_t i = 0; i < n; ++i) {
    wasi_nn_tensor t = {dims, 2, WASI_NN_TYPE_F32, {0, 0, 0}, (const uint8_t*)(x + i * 64), 64 * sizeof(float)};
    if (check(wasi_nn_set_input(ctx, 0, &t), "set_input") || check(wasi_nn_compute(ctx), "compute")) return 1;
    uint32_t written = 0;
    float* row = logits + i * 10;
    if (check(wasi_nn_get_output(ctx, 0, (uint8_t*)row, 10 * sizeof(float), &written), "get_output")) return 1;
    if (written != 10 * sizeof(float)) {
      fprintf(stderr, "classify_digits: expected 40 output bytes, got %u\n", written);
      return 1;
    }
    int best = 0;
    for (int k = 1; k < 10; ++k)
      if (row[k] > row[best]) best = k;
    correct += best == y[i];
    if (i < 10) printf("digit %2zu: predicted %d, label %d%s\n", i, best, y[i], best == y[i] ? "" : "  <- wrong");
  }
  printf("accuracy: %zu/%zu = %.2f%%\n", correct, n, 100.0 * (double)correct / (double)n);

  if (argc > 4) {
    FILE* f = fopen(argv[4], "wb");
    if (!f || fwrite(logits, sizeof(float), n * 10, f) != n * 10 || fclose(f) != 0) {
      fprintf(stderr, "classify_digits: cannot write %s\n", argv[4]);
      return 1;
    }
  }
  if (check(wasi_nn_finalize_execution_context(ctx), "finalize_execution_context") ||
      check(wasi_nn_unload(graph), "unload")) {
    return 1;
  }
  free(logits);
  return 0;
}
