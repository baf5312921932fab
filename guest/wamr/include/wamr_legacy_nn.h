// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * wamr_legacy_nn.h: the imports of WAMR's legacy "wasi_nn" module (WAMR's wasi_nn.h built
 * without WASM_ENABLE_WASI_EPHEMERAL_NN, deprecated since 2.4.0), with its memory layouts,
 * written here from that header's documented layout. What differs from the witx module:
 *  - load takes one pointer to {graph_builder *buf, uint32_t size}: 4 parameters, not 5;
 *  - the tensor is 12 bytes: a pointer to {uint32_t *buf, uint32_t size} dims, a uint8_t type
 *    plus 3 padding bytes, and a data pointer with no length (the host derives it from the
 *    dims and the type);
 *  - tensor types are fp16 0, fp32 1, up8 2, ip32 3;
 *  - get_output takes no capacity argument: *size is the capacity on input and the count
 *    written on output, both in f32 elements (WAMR's TFLite backend counts that way).
 */
#ifndef WAMR_LEGACY_NN_H_
#define WAMR_LEGACY_NN_H_

#include <stdint.h>

typedef uint32_t wamr_legacy_graph;
typedef uint32_t wamr_legacy_context;

/* errno: WAMR 2.4.0 numbering, which is witx's 0-8. */
enum { WAMR_LEGACY_SUCCESS = 0, WAMR_LEGACY_INVALID_ARGUMENT = 1, WAMR_LEGACY_TOO_LARGE = 7 };

enum { WAMR_LEGACY_TYPE_FP16 = 0, WAMR_LEGACY_TYPE_FP32 = 1, WAMR_LEGACY_TYPE_UP8 = 2, WAMR_LEGACY_TYPE_IP32 = 3 };

enum {
  WAMR_LEGACY_ENCODING_OPENVINO = 0,
  WAMR_LEGACY_ENCODING_ONNX = 1,
  WAMR_LEGACY_ENCODING_TENSORFLOW = 2,
  WAMR_LEGACY_ENCODING_PYTORCH = 3,
  WAMR_LEGACY_ENCODING_TENSORFLOWLITE = 4
};

enum { WAMR_LEGACY_TARGET_CPU = 0 };

typedef struct {
  uint8_t* buf;
  uint32_t size;
} wamr_legacy_graph_builder;

typedef struct {
  wamr_legacy_graph_builder* buf;
  uint32_t size;
} wamr_legacy_graph_builder_array;

typedef struct {
  uint32_t* buf;
  uint32_t size;
} wamr_legacy_tensor_dimensions;

typedef struct {
  wamr_legacy_tensor_dimensions* dimensions;
  uint8_t type;
  uint8_t _pad[3];
  uint8_t* data;
} wamr_legacy_tensor;

_Static_assert(sizeof(wamr_legacy_tensor) == 12, "the legacy tensor record is 12 bytes");

#define WAMR_LEGACY_IMPORT(name) __attribute__((import_module("wasi_nn"), import_name(name)))

WAMR_LEGACY_IMPORT("load")
int32_t wamr_legacy_load(wamr_legacy_graph_builder_array* builder, uint32_t encoding, uint32_t target,
                         wamr_legacy_graph* g);
WAMR_LEGACY_IMPORT("load_by_name")
int32_t wamr_legacy_load_by_name(const char* name, uint32_t name_len, wamr_legacy_graph* g);
WAMR_LEGACY_IMPORT("init_execution_context")
int32_t wamr_legacy_init_execution_context(wamr_legacy_graph g, wamr_legacy_context* ctx);
WAMR_LEGACY_IMPORT("set_input")
int32_t wamr_legacy_set_input(wamr_legacy_context ctx, uint32_t index, wamr_legacy_tensor* tensor);
WAMR_LEGACY_IMPORT("compute")
int32_t wamr_legacy_compute(wamr_legacy_context ctx);
WAMR_LEGACY_IMPORT("get_output")
int32_t wamr_legacy_get_output(wamr_legacy_context ctx, uint32_t index, uint8_t* out, uint32_t* size_in_f32);

#undef WAMR_LEGACY_IMPORT

#endif /* WAMR_LEGACY_NN_H_ */
