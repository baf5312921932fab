// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * A C guest for WAMR's legacy "wasi_nn" module (include/wamr_legacy_nn.h), written like WAMR's
 * own tests (core/iwasm/libraries/wasi-nn/test/utils.c): load through a graph_builder_array,
 * 12-byte tensors with the dims behind a pointer and no data length, and get_output whose size
 * is counted in f32 elements. Classifies the digits (digits_data.h), f32 or, with --u8, up8
 * (type 2), then asks for the output with room for 5 elements only and prints the errno.
 * On a wasi-nn error it prints "errno N in STEP" and exits with N.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "digits_data.h"
#include "wamr_legacy_nn.h"

static int fail(int32_t err, const char* step) {
  printf("errno %d in %s\n", (int)err, step);
  exit(err);
}

static wamr_legacy_graph load_graph(const compat_args* a) {
  wamr_legacy_graph g = 0;
  if (a->name) {
    int32_t err = wamr_legacy_load_by_name(a->name, (uint32_t)strlen(a->name), &g);
    if (err) fail(err, "load_by_name");
    return g;
  }
  size_t size = 0;
  uint8_t* model = compat_read_file(a->model, &size);
  if (!model) exit(1);
  wamr_legacy_graph_builder builder = {model, (uint32_t)size};
  wamr_legacy_graph_builder_array array = {&builder, 1};
  int32_t err = wamr_legacy_load(&array, a->encoding, WAMR_LEGACY_TARGET_CPU, &g);
  if (err) fail(err, "load");
  free(model);
  return g;
}

int main(int argc, char** argv) {
  compat_args args;
  digits d;
  report r;
  if (compat_parse_args(argc, argv, &args)) return 2;
  if (digits_load(&args, &d) || report_init(&r, d.rows)) return 1;

  wamr_legacy_graph g = load_graph(&args);
  wamr_legacy_context ctx = 0;
  int32_t err = wamr_legacy_init_execution_context(g, &ctx);
  if (err) fail(err, "init_execution_context");

  uint32_t dim_values[2] = {1, DIGITS_FEATURES};
  wamr_legacy_tensor_dimensions dims = {dim_values, 2};
  wamr_legacy_tensor t;
  memset(&t, 0, sizeof t);
  t.dimensions = &dims;
  t.type = args.input_u8 ? WAMR_LEGACY_TYPE_UP8 : WAMR_LEGACY_TYPE_FP32;
  printf("library: WAMR wasi_nn.h (legacy) layout\n");
  printf("tensor type sent: %u\n", t.type);

  float logits[DIGITS_CLASSES];
  for (size_t row = 0; row < d.rows; ++row) {
    t.data = (uint8_t*)digits_row(&d, row);
    if ((err = wamr_legacy_set_input(ctx, 0, &t))) fail(err, "set_input");
    if ((err = wamr_legacy_compute(ctx))) fail(err, "compute");
    uint32_t size = DIGITS_CLASSES; /* capacity in f32 elements */
    if ((err = wamr_legacy_get_output(ctx, 0, (uint8_t*)logits, &size))) fail(err, "get_output");
    if (size != DIGITS_CLASSES) {
      printf("get_output reported %u, expected %d f32 elements\n", size, DIGITS_CLASSES);
      return 1;
    }
    report_add(&r, row, logits, d.labels[row]);
  }
  report_print(&r, "");

  uint32_t small = 5;
  err = wamr_legacy_get_output(ctx, 0, (uint8_t*)logits, &small);
  printf("small capacity: errno %d\n", (int)err);
  return 0;
}
