// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * One module importing both "wasi_nn" (WAMR legacy) and "wasi_ephemeral_nn" (witx layout, as
 * WAMR >= 2.4 writes it), which no single WAMR build can serve: WAMR registers one of the two.
 * Loads the model through each module, classifies every digit through both, and prints one
 * report per module ("legacy " and "ephemeral " prefixes). Exits with the errno on an error.
 */
#include <stdio.h>
#include <stdlib.h>

#include "digits_data.h"
#include "wamr_ephemeral_nn.h"
#include "wamr_legacy_nn.h"

static int fail(int32_t err, const char* step) {
  printf("errno %d in %s\n", (int)err, step);
  exit(err);
}

int main(int argc, char** argv) {
  compat_args args;
  digits d;
  report legacy_report, eph_report;
  if (compat_parse_args(argc, argv, &args)) return 2;
  if (!args.model || args.input_u8) {
    fprintf(stderr, "the mixed guest takes --model FILE and f32 features\n");
    return 2;
  }
  if (digits_load(&args, &d) || report_init(&legacy_report, d.rows) || report_init(&eph_report, d.rows)) return 1;
  size_t size = 0;
  uint8_t* model = compat_read_file(args.model, &size);
  if (!model) return 1;

  wamr_legacy_graph_builder lb = {model, (uint32_t)size};
  wamr_legacy_graph_builder_array array = {&lb, 1};
  wamr_legacy_graph lg = 0;
  wamr_legacy_context lctx = 0;
  int32_t err = wamr_legacy_load(&array, WAMR_LEGACY_ENCODING_ONNX, WAMR_LEGACY_TARGET_CPU, &lg);
  if (err) fail(err, "legacy load");
  if ((err = wamr_legacy_init_execution_context(lg, &lctx))) fail(err, "legacy init_execution_context");

  wamr_eph_graph_builder eb = {model, (uint32_t)size};
  wamr_eph_graph eg = 0;
  wamr_eph_context ectx = 0;
  if ((err = wamr_eph_load(&eb, 1, WAMR_EPH_ENCODING_ONNX, WAMR_EPH_TARGET_CPU, &eg))) fail(err, "ephemeral load");
  if ((err = wamr_eph_init_execution_context(eg, &ectx))) fail(err, "ephemeral init_execution_context");

  uint32_t dim_values[2] = {1, DIGITS_FEATURES};
  wamr_legacy_tensor_dimensions ldims = {dim_values, 2};
  wamr_legacy_tensor lt = {&ldims, WAMR_LEGACY_TYPE_FP32, {0, 0, 0}, NULL};
  wamr_eph_tensor et = {{dim_values, 2}, WAMR_EPH_TYPE_FP32, {0, 0, 0}, {NULL, 0}};
  float logits[DIGITS_CLASSES];
  for (size_t row = 0; row < d.rows; ++row) {
    uint8_t* x = (uint8_t*)digits_row(&d, row);
    lt.data = x;
    uint32_t count = DIGITS_CLASSES;
    if ((err = wamr_legacy_set_input(lctx, 0, &lt))) fail(err, "legacy set_input");
    if ((err = wamr_legacy_compute(lctx))) fail(err, "legacy compute");
    if ((err = wamr_legacy_get_output(lctx, 0, (uint8_t*)logits, &count))) fail(err, "legacy get_output");
    report_add(&legacy_report, row, logits, d.labels[row]);

    et.data.buf = x;
    et.data.size = (uint32_t)digits_row_bytes(&d);
    uint32_t written = 0;
    if ((err = wamr_eph_set_input(ectx, 0, &et))) fail(err, "ephemeral set_input");
    if ((err = wamr_eph_compute(ectx))) fail(err, "ephemeral compute");
    if ((err = wamr_eph_get_output(ectx, 0, (uint8_t*)logits, sizeof logits, &written)))
      fail(err, "ephemeral get_output");
    report_add(&eph_report, row, logits, d.labels[row]);
  }
  report_print(&legacy_report, "legacy ");
  report_print(&eph_report, "ephemeral ");
  free(model);
  return 0;
}
