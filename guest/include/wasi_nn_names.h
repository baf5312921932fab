// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * wasi_nn_names.h: the names of wasi_nn.h's encodings, targets and tensor types (witx
 * numbering), as the core-module guests' flags spell them (--encoding onnx, --target cpu, f32).
 * Include after wasi_nn.h.
 */
#ifndef WASI_NN_NAMES_H_
#define WASI_NN_NAMES_H_

#ifndef WASI_NN_H_
#error "include wasi_nn.h before wasi_nn_names.h"
#endif

#include <stdint.h>
#include <string.h>

struct wasi_nn_named_value {
  const char* name;
  uint32_t value;
};

/* Each table ends with {NULL, 0}. */
static const struct wasi_nn_named_value WASI_NN_ENCODING_NAMES[] = {{"openvino", WASI_NN_ENCODING_OPENVINO},
                                                                    {"onnx", WASI_NN_ENCODING_ONNX},
                                                                    {"tensorflow", WASI_NN_ENCODING_TENSORFLOW},
                                                                    {"pytorch", WASI_NN_ENCODING_PYTORCH},
                                                                    {"tensorflowlite", WASI_NN_ENCODING_TENSORFLOWLITE},
                                                                    {"autodetect", WASI_NN_ENCODING_AUTODETECT},
                                                                    {"ggml", WASI_NN_ENCODING_GGML},
                                                                    {NULL, 0}};
static const struct wasi_nn_named_value WASI_NN_TARGET_NAMES[] = {{"cpu", WASI_NN_TARGET_CPU},
                                                                  {"gpu", WASI_NN_TARGET_GPU},
                                                                  {"tpu", WASI_NN_TARGET_TPU},
                                                                  {"auto", WASI_NN_TARGET_AUTO},
                                                                  {NULL, 0}};

/* 1 with *value set when TABLE names NAME, else 0. */
static inline int wasi_nn_value_by_name(const struct wasi_nn_named_value* table, const char* name, uint32_t* value) {
  for (const struct wasi_nn_named_value* t = table; t->name; ++t)
    if (strcmp(t->name, name) == 0) {
      *value = t->value;
      return 1;
    }
  return 0;
}

/* By wasi_nn_tensor_type. */
static const char* const WASI_NN_TYPE_NAMES[] = {"f16", "f32", "f64", "u8", "i32", "i64"};
#define WASI_NN_TYPE_COUNT 6u

#endif /* WASI_NN_NAMES_H_ */
