// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * wamr_ephemeral_nn.h: the "wasi_ephemeral_nn" imports with the memory layouts and numbering of
 * WAMR's own guest header (wasi_ephemeral_nn.h, WAMR >= 2.4.0), written here from that header's
 * documented layout so that tests can build guests exactly as WAMR users do. Differences from
 * wasinn's guest/include/wasi_nn.h that matter: the tensor type is a uint8_t followed by three
 * padding bytes WAMR guests may leave as garbage, and encodings follow WAMR's order
 * (ggml 5, autodetect 6: the reverse of the witx crates').
 */
#ifndef WAMR_EPHEMERAL_NN_H_
#define WAMR_EPHEMERAL_NN_H_

#include <stdint.h>

typedef uint32_t wamr_eph_graph;
typedef uint32_t wamr_eph_context;

/* errno: witx numbering 0-8 (WAMR 2.4.0 went back to it), plus WasmEdge's 100-103. */
enum { WAMR_EPH_SUCCESS = 0, WAMR_EPH_INVALID_ARGUMENT = 1, WAMR_EPH_TOO_LARGE = 7, WAMR_EPH_NOT_FOUND = 8 };

enum {
  WAMR_EPH_TYPE_FP16 = 0,
  WAMR_EPH_TYPE_FP32 = 1,
  WAMR_EPH_TYPE_FP64 = 2,
  WAMR_EPH_TYPE_U8 = 3,
  WAMR_EPH_TYPE_I32 = 4,
  WAMR_EPH_TYPE_I64 = 5
};

enum {
  WAMR_EPH_ENCODING_OPENVINO = 0,
  WAMR_EPH_ENCODING_ONNX = 1,
  WAMR_EPH_ENCODING_TENSORFLOW = 2,
  WAMR_EPH_ENCODING_PYTORCH = 3,
  WAMR_EPH_ENCODING_TENSORFLOWLITE = 4,
  WAMR_EPH_ENCODING_GGML = 5,
  WAMR_EPH_ENCODING_AUTODETECT = 6
};

enum { WAMR_EPH_TARGET_CPU = 0, WAMR_EPH_TARGET_GPU = 1, WAMR_EPH_TARGET_TPU = 2 };

typedef struct {
  uint8_t* buf;
  uint32_t size;
} wamr_eph_graph_builder;

typedef struct {
  uint32_t* buf;
  uint32_t size;
} wamr_eph_tensor_dimensions;

typedef struct {
  uint8_t* buf;
  uint32_t size; /* bytes */
} wamr_eph_tensor_data;

typedef struct {
  wamr_eph_tensor_dimensions dimensions;
  uint8_t type;
  uint8_t _pad[3];
  wamr_eph_tensor_data data;
} wamr_eph_tensor;

_Static_assert(sizeof(wamr_eph_tensor) == 20, "the witx tensor record is 20 bytes");

#define WAMR_EPH_IMPORT(name) __attribute__((import_module("wasi_ephemeral_nn"), import_name(name)))

WAMR_EPH_IMPORT("load")
int32_t wamr_eph_load(wamr_eph_graph_builder* builder, uint32_t builder_len, uint32_t encoding, uint32_t target,
                      wamr_eph_graph* g);
WAMR_EPH_IMPORT("load_by_name")
int32_t wamr_eph_load_by_name(const char* name, uint32_t name_len, wamr_eph_graph* g);
WAMR_EPH_IMPORT("init_execution_context")
int32_t wamr_eph_init_execution_context(wamr_eph_graph g, wamr_eph_context* ctx);
WAMR_EPH_IMPORT("set_input")
int32_t wamr_eph_set_input(wamr_eph_context ctx, uint32_t index, wamr_eph_tensor* tensor);
WAMR_EPH_IMPORT("compute")
int32_t wamr_eph_compute(wamr_eph_context ctx);
WAMR_EPH_IMPORT("get_output")
int32_t wamr_eph_get_output(wamr_eph_context ctx, uint32_t index, uint8_t* out, uint32_t out_max_bytes,
                            uint32_t* out_bytes);

#undef WAMR_EPH_IMPORT

#endif /* WAMR_EPHEMERAL_NN_H_ */
