// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * classify_samples: runs a wasi-nn model on N samples one compute at a time and writes output
 * 0 of every sample back to back, so a test can compare a guest's answers with a native run.
 *
 *   classify_samples MODEL ENCODING TYPE DIMS X.bin OUT.bin [CONFIG]
 *
 * MODEL is a file (loaded with `load` and ENCODING) or name:NAME (`load_by_name`, or
 * `load_by_name_with_config` with the JSON text CONFIG when it is given). TYPE is a
 * witx tensor type number (1 f32, 3 u8, ...), DIMS the shape of one sample (1x28x28x1); X holds
 * N samples back to back. On a wasi-nn error prints "errno N in STEP" and exits with N.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wasi_nn.h"

static unsigned char* read_all(const char* path, size_t* len) {
  FILE* f = fopen(path, "rb");
  if (!f) return NULL;
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

static void check(int32_t err, const char* step) {
  if (err != WASI_NN_SUCCESS) {
    printf("errno %d in %s\n", err, step);
    exit(err);
  }
}

static const uint32_t kElementSize[] = {2, 4, 8, 1, 4, 8}; /* f16 f32 f64 u8 i32 i64 */

int main(int argc, char** argv) {
  if (argc != 7 && argc != 8) {
    fprintf(stderr, "usage: classify_samples MODEL|name:NAME ENCODING TYPE DIMS X.bin OUT.bin [CONFIG]\n");
    return 2;
  }
  const uint32_t encoding = (uint32_t)atoi(argv[2]);
  const uint32_t type = (uint32_t)atoi(argv[3]);
  if (type > 5) return 2;
  uint32_t dims[8], rank = 0;
  size_t sample_bytes = kElementSize[type];
  for (char* d = strtok(argv[4], "x"); d && rank < 8; d = strtok(NULL, "x")) {
    dims[rank] = (uint32_t)atoi(d);
    sample_bytes *= dims[rank++];
  }
  size_t x_len = 0;
  unsigned char* x = read_all(argv[5], &x_len);
  if (!x || sample_bytes == 0 || x_len % sample_bytes != 0) {
    fprintf(stderr, "classify_samples: %s is not a whole number of %zu-byte samples\n", argv[5], sample_bytes);
    return 2;
  }
  const size_t n = x_len / sample_bytes;

  wasi_nn_graph graph;
  if (strncmp(argv[1], "name:", 5) == 0 && argc == 8) {
    check(wasi_nn_load_by_name_with_config(argv[1] + 5, (uint32_t)strlen(argv[1] + 5), argv[7],
                                           (uint32_t)strlen(argv[7]), &graph),
          "load_by_name_with_config");
  } else if (strncmp(argv[1], "name:", 5) == 0) {
    check(wasi_nn_load_by_name(argv[1] + 5, (uint32_t)strlen(argv[1] + 5), &graph), "load_by_name");
  } else {
    size_t model_len = 0;
    unsigned char* model = read_all(argv[1], &model_len);
    if (!model) return 2;
    wasi_nn_graph_builder builder = {model, (uint32_t)model_len};
    check(wasi_nn_load(&builder, 1, encoding, WASI_NN_TARGET_CPU, &graph), "load");
    free(model);
  }
  wasi_nn_context ctx;
  check(wasi_nn_init_execution_context(graph, &ctx), "init_execution_context");

  FILE* out = fopen(argv[6], "wb");
  if (!out) return 2;
  static uint8_t buf[1 << 20];
  uint32_t first = 0;
  for (size_t i = 0; i < n; ++i) {
    wasi_nn_tensor t = {dims, rank, (uint8_t)type, {0, 0, 0}, x + i * sample_bytes, (uint32_t)sample_bytes};
    check(wasi_nn_set_input(ctx, 0, &t), "set_input");
    check(wasi_nn_compute(ctx), "compute");
    uint32_t written = 0;
    check(wasi_nn_get_output(ctx, 0, buf, sizeof buf, &written), "get_output");
    if (i == 0) first = written;
    if (written != first || fwrite(buf, 1, written, out) != written) return 2;
  }
  if (fclose(out) != 0) return 2;
  printf("classified %zu samples, %u output bytes each\n", n, first);
  check(wasi_nn_finalize_execution_context(ctx), "finalize_execution_context");
  check(wasi_nn_unload(graph), "unload");
  return 0;
}
