// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * A C guest written as WAMR users write them for the "wasi_ephemeral_nn" module (WAMR >= 2.4.0
 * layout, include/wamr_ephemeral_nn.h). It sets the tensor's three padding bytes to garbage on
 * purpose, since WAMR guests may leave them so, and passes WAMR's encoding numbers (--encoding 6
 * is autodetect for WAMR, ggml for the witx crates). Classifies the digits (digits_data.h) and
 * then asks for the output with a buffer too small, printing the errno and the size reported.
 * On a wasi-nn error it prints "errno N in STEP" and exits with N.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "digits_data.h"
#include "wamr_ephemeral_nn.h"

static int fail(int32_t err, const char* step) {
  printf("errno %d in %s\n", (int)err, step);
  exit(err);
}

static wamr_eph_graph load_graph(const compat_args* a) {
  wamr_eph_graph g = 0;
  if (a->name) {
    int32_t err = wamr_eph_load_by_name(a->name, (uint32_t)strlen(a->name), &g);
    if (err) fail(err, "load_by_name");
    return g;
  }
  size_t size = 0;
  uint8_t* model = compat_read_file(a->model, &size);
  if (!model) exit(1);
  wamr_eph_graph_builder builder = {model, (uint32_t)size};
  int32_t err = wamr_eph_load(&builder, 1, a->encoding, WAMR_EPH_TARGET_CPU, &g);
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

  wamr_eph_graph g = load_graph(&args);
  wamr_eph_context ctx = 0;
  int32_t err = wamr_eph_init_execution_context(g, &ctx);
  if (err) fail(err, "init_execution_context");

  uint32_t dims[2] = {1, DIGITS_FEATURES};
  wamr_eph_tensor t;
  t.dimensions.buf = dims;
  t.dimensions.size = 2;
  t.type = args.input_u8 ? WAMR_EPH_TYPE_U8 : WAMR_EPH_TYPE_FP32;
  t._pad[0] = 0xA5;
  t._pad[1] = 0x5A;
  t._pad[2] = 0xC3;
  printf("library: WAMR wasi_ephemeral_nn.h layout\n");
  printf("tensor type sent: %u (padding a5 5a c3)\n", t.type);

  float logits[DIGITS_CLASSES];
  for (size_t row = 0; row < d.rows; ++row) {
    t.data.buf = (uint8_t*)digits_row(&d, row);
    t.data.size = (uint32_t)digits_row_bytes(&d);
    if ((err = wamr_eph_set_input(ctx, 0, &t))) fail(err, "set_input");
    if ((err = wamr_eph_compute(ctx))) fail(err, "compute");
    uint32_t written = 0;
    err = wamr_eph_get_output(ctx, 0, (uint8_t*)logits, sizeof logits, &written);
    if (err) fail(err, "get_output");
    if (written != sizeof logits) {
      printf("get_output wrote %u bytes, expected %zu\n", written, sizeof logits);
      return 1;
    }
    report_add(&r, row, logits, d.labels[row]);
  }
  report_print(&r, "");

  uint32_t required = 0;
  err = wamr_eph_get_output(ctx, 0, (uint8_t*)logits, 8, &required);
  printf("small buffer: errno %d, size reported %u\n", (int)err, required);
  return 0;
}
