// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * wit_library: a library component (no WASI) for host tests of wasi:nn@0.2.0-rc-2024-10-28.
 * Exports run() -> s32: load-by-name("digits"), one execution context, compute on the input named
 * "input" with row 0 of the digits fixture (test_x.f32; its label in test_y.u8 is 2), and returns
 * the argmax of the first output (expected 2), or -1000 - error-code on a WIT error
 * (-1006 = not-found when the host registered no "digits"), or -2000 when there is no output or
 * the first is not 10 floats.
 * Built freestanding of WASI: libc's malloc/memcpy only (see guest/components/README.md).
 */
#include <stdint.h>
#include <stdlib.h>

#include "wasi_nn_wit.h"
#include "wit_digits.h"

/* Row 0 of ~/.cache/wasinn/fixtures/digits/test_x.f32 (pixel / 16); its label is 2. */
static const float kDigitRow0[64] = {
    0.0f,    0.0f, 0.4375f, 1.0f,    0.875f,  0.1875f, 0.0f,    0.0f,    0.0f,    0.0f,    0.5625f, 0.875f,  0.6875f,
    0.9375f, 0.0f, 0.0f,    0.0f,    0.0f,    0.0625f, 0.3125f, 0.0f,    0.9375f, 0.3125f, 0.0f,    0.0f,    0.0f,
    0.0f,    0.0f, 0.0f,    1.0f,    0.3125f, 0.0f,    0.0f,    0.0f,    0.0f,    0.0f,    0.1875f, 1.0f,    0.25f,
    0.0f,    0.0f, 0.0f,    0.0f,    0.0625f, 0.75f,   0.875f,  0.0625f, 0.0f,    0.0f,    0.0f,    0.3125f, 0.75f,
    1.0f,    1.0f, 0.875f,  0.0625f, 0.0f,    0.0f,    0.5f,    1.0f,    0.875f,  0.625f,  0.8125f, 0.1875f,
};
#define WIT_LIBRARY_LABEL 2

static int32_t fail(wnn_error err) {
  int32_t code = (int32_t)wnn_error_get_code(err);
  wnn_error_drop(err);
  return -1000 - code;
}

__attribute__((export_name("run"))) int32_t run(void) {
  wnn_graph graph;
  wnn_context ctx;
  wnn_error err;
  if (wnn_load_by_name("digits", 6, &graph, &err)) return fail(err);
  if (wnn_init_execution_context(graph, &ctx, &err)) {
    wnn_graph_drop(graph);
    return fail(err);
  }
  wnn_named_tensor input = wg_digits_input(kDigitRow0);
  wnn_named_tensor_list outputs;
  int32_t result;
  if (wnn_compute(ctx, &input, 1, &outputs, &err)) {
    result = fail(err);
  } else {
    result = wg_digits_first_class(&outputs);
    if (result < 0) result = -2000;
    wnn_named_tensor_list_free(&outputs);
  }
  wnn_context_drop(ctx);
  wnn_graph_drop(graph);
  return result;
}
