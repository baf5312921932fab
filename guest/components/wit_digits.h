// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * wit_digits.h: the digits model's input and output for the wasi:nn@0.2.0-rc-2024-10-28 guests
 * (one FP32 input "input" [1, 64], one output of 10 FP32 logits). Freestanding of stdio, so the
 * library guest uses it too. Include after wasi_nn_wit.h.
 */
#ifndef WIT_DIGITS_H_
#define WIT_DIGITS_H_

#include <stdlib.h>

static const uint32_t wg_digits_dims[2] = {1, 64};

/* A new own tensor ("input", FP32 [1, 64]) holding the 64 floats of ROW. */
static inline wnn_named_tensor wg_digits_input(const float* row) {
  return wnn_named("input", wnn_tensor_new(wg_digits_dims, 2, WNN_TYPE_FP32, row, 64 * sizeof(float)));
}

/* The argmax of a tensor holding 10 floats, or -1 when it holds another number of bytes. */
static inline int wg_digits_class(wnn_tensor t) {
  wnn_bytes data = wnn_tensor_data(t);
  int best = -1;
  if (data.len == 10 * sizeof(float)) {
    float logits[10];
    __builtin_memcpy(logits, data.ptr, sizeof logits);
    best = 0;
    for (int k = 1; k < 10; ++k)
      if (logits[k] > logits[best]) best = k;
  }
  free(data.ptr);
  return best;
}

/* The class read from the first output of a compute (whatever its name), or -1 (no outputs, or
 * not 10 floats). */
static inline int wg_digits_first_class(const wnn_named_tensor_list* outputs) {
  return outputs->len > 0 ? wg_digits_class(outputs->ptr[0].tensor) : -1;
}

#endif /* WIT_DIGITS_H_ */
