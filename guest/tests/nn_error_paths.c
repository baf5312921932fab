// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * nn_error_paths: drives every wasi-nn error path a guest can reach and checks each errno.
 *
 *   nn_error_paths FIXTURES_DIR
 *
 * FIXTURES_DIR is the guest path of the fixture tree (digits/, tiny/, corrupt/). The host must
 * register the digits model with --nn-preload digits:ONNX:AUTO:<digits/model.onnx>.
 * Prints "ok NAME errno N" or "FAIL NAME: ..." per case, then one checked inference, then a
 * summary; exits 0 only if every case passed. Out-of-range pointers are passed on purpose: a
 * host must answer invalid_argument (1) instead of trapping.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wasinn_guest_file.h"
#include "nn_error_paths.h"

blob g_digits, g_tiny, g_garbage, g_truncated, g_empty;
float g_row[64];
const uint32_t g_dims[2] = {1, 64};
wasi_nn_graph g_graph;
wasi_nn_context g_ctx;

static uint8_t g_label;
static char g_note[160];
static int cases, failures;

void note(const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  vsnprintf(g_note, sizeof g_note, fmt, args);
  va_end(args);
}

uint32_t memory_end(void) { return (uint32_t)(__builtin_wasm_memory_size(0) * 65536u); }

wasi_nn_tensor row_tensor(void) {
  wasi_nn_tensor t = {g_dims, 2, WASI_NN_TYPE_F32, {0, 0, 0}, (const uint8_t*)g_row, sizeof g_row};
  return t;
}

int32_t load_model(blob b, uint32_t encoding, uint32_t target, wasi_nn_graph* g) {
  wasi_nn_graph_builder builder = {b.bytes, b.len};
  return wasi_nn_load(&builder, 1, encoding, target, g);
}

int32_t set_row(wasi_nn_context ctx) {
  wasi_nn_tensor t = row_tensor();
  return wasi_nn_set_input(ctx, 0, &t);
}

int32_t set_tensor(uint32_t rank, const uint32_t* dims, uint8_t type, uint32_t data_len) {
  wasi_nn_tensor t = {dims, rank, type, {0, 0, 0}, (const uint8_t*)g_row, data_len};
  return wasi_nn_set_input(g_ctx, 0, &t);
}

/* A fresh context on the digits graph with its input set, or exit: the cases rely on it. */
wasi_nn_context ready_context(void) {
  wasi_nn_context ctx;
  if (wasi_nn_init_execution_context(g_graph, &ctx) != 0 || set_row(ctx) != 0) {
    fprintf(stderr, "nn_error_paths: cannot set up a context\n");
    exit(2);
  }
  return ctx;
}

int buffer_untouched(const uint8_t* buf, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (buf[i] != CANARY) return 0;
  return 1;
}

static blob read_blob(const char* root, const char* rel) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", root, rel);
  blob b = {NULL, 0};
  b.bytes = guest_read_file(path, &b.len);
  return b;
}

static void run_cases(const error_case* table, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    const error_case* c = &table[i];
    g_note[0] = '\0';
    const int32_t got = c->run();
    ++cases;
    if (got != c->expected) {
      ++failures;
      printf("FAIL %s: got %d expected %d\n", c->name, got, c->expected);
    } else if (g_note[0]) {
      ++failures;
      printf("FAIL %s: %s\n", c->name, g_note);
    } else {
      printf("ok %s errno %d\n", c->name, got);
    }
  }
}

/* After every error, the host must still compute correctly: tiny's y = x + [1, 2, 3, 4] exactly,
   and the digits model must classify a held-out row as its label. */
static int final_inference(void) {
  wasi_nn_graph g;
  wasi_nn_context c;
  const float x[4] = {0.5f, -1.0f, 2.25f, 100.0f};
  const float want[4] = {1.5f, 1.0f, 5.25f, 104.0f};
  float y[4] = {0, 0, 0, 0};
  const uint32_t dims[2] = {1, 4};
  wasi_nn_tensor t = {dims, 2, WASI_NN_TYPE_F32, {0, 0, 0}, (const uint8_t*)x, sizeof x};
  uint32_t written = 0;
  int32_t err = load_model(g_tiny, WASI_NN_ENCODING_ONNX, WASI_NN_TARGET_CPU, &g);
  if (!err) err = wasi_nn_init_execution_context(g, &c);
  if (!err) err = wasi_nn_set_input(c, 0, &t);
  if (!err) err = wasi_nn_compute(c);
  if (!err) err = wasi_nn_get_output(c, 0, (uint8_t*)y, sizeof y, &written);
  if (err || written != sizeof y || memcmp(y, want, sizeof y) != 0) {
    printf("FAIL final_inference: errno %d, %u bytes, y = %g %g %g %g\n", err, written, y[0], y[1], y[2], y[3]);
    return 0;
  }
  float logits[10];
  err = compute_valid();
  if (!err) err = wasi_nn_get_output(g_ctx, 0, (uint8_t*)logits, sizeof logits, &written);
  int best = 0;
  for (int k = 1; k < 10; ++k)
    if (logits[k] > logits[best]) best = k;
  if (err || best != g_label) {
    printf("FAIL final_inference: digits errno %d, predicted %d, label %d\n", err, best, g_label);
    return 0;
  }
  printf("final inference: tiny y = %g %g %g %g, digit predicted %d label %d\n", y[0], y[1], y[2], y[3], best, g_label);
  return wasi_nn_finalize_execution_context(c) == 0 && wasi_nn_unload(g) == 0;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: nn_error_paths FIXTURES_DIR\n");
    return 2;
  }
  g_digits = read_blob(argv[1], "digits/model.onnx");
  g_tiny = read_blob(argv[1], "tiny/model.onnx");
  g_garbage = read_blob(argv[1], "corrupt/garbage.onnx");
  g_truncated = read_blob(argv[1], "corrupt/truncated.onnx");
  g_empty = read_blob(argv[1], "corrupt/empty.onnx");
  blob x = read_blob(argv[1], "digits/test_x.f32");
  blob y = read_blob(argv[1], "digits/test_y.u8");
  if (x.len < sizeof g_row || y.len < 1) return 2;
  memcpy(g_row, x.bytes, sizeof g_row);
  g_label = y.bytes[0];

  if (load_model(g_digits, WASI_NN_ENCODING_ONNX, WASI_NN_TARGET_CPU, &g_graph) != 0 ||
      wasi_nn_init_execution_context(g_graph, &g_ctx) != 0) {
    fprintf(stderr, "nn_error_paths: cannot load digits/model.onnx\n");
    return 2;
  }
  run_cases(kLoadCases, kLoadCaseCount);
  run_cases(kComputeCases, kComputeCaseCount);
  const int final_ok = final_inference();
  printf("%d cases, %d failed\n", cases, failures);
  return failures == 0 && final_ok ? 0 : 1;
}
