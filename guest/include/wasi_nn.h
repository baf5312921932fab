// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * wasi_nn.h: C declarations of the wasi-nn witx imports (module "wasi_ephemeral_nn") with the
 * current witx numbering (tensor types f16 0, f32 1, f64 2, u8 3, i32 4, i64 5), plus the
 * WasmEdge extensions that wasinn also serves. For guests compiled with
 *   clang --target=wasm32-wasi -I<wasinn>/guest/include
 * Every function returns a wasi_nn_errno (0 = success).
 */
#ifndef WASI_NN_H_
#define WASI_NN_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef uint32_t wasi_nn_graph;
typedef uint32_t wasi_nn_context;

typedef enum {
  WASI_NN_SUCCESS = 0,
  WASI_NN_INVALID_ARGUMENT = 1,
  WASI_NN_INVALID_ENCODING = 2,
  WASI_NN_MISSING_MEMORY = 3,
  WASI_NN_BUSY = 4,
  WASI_NN_RUNTIME_ERROR = 5,
  WASI_NN_UNSUPPORTED_OPERATION = 6,
  WASI_NN_TOO_LARGE = 7,
  WASI_NN_NOT_FOUND = 8,
  WASI_NN_END_OF_SEQUENCE = 100,
  WASI_NN_CONTEXT_FULL = 101,
  WASI_NN_PROMPT_TOO_LONG = 102,
  WASI_NN_MODEL_NOT_FOUND = 103
} wasi_nn_errno;

typedef enum {
  WASI_NN_ENCODING_OPENVINO = 0,
  WASI_NN_ENCODING_ONNX = 1,
  WASI_NN_ENCODING_TENSORFLOW = 2,
  WASI_NN_ENCODING_PYTORCH = 3,
  WASI_NN_ENCODING_TENSORFLOWLITE = 4,
  WASI_NN_ENCODING_AUTODETECT = 5,
  WASI_NN_ENCODING_GGML = 6,    /* WasmEdge's number */
  WASI_NN_ENCODING_WHISPER = 9, /* WasmEdge's number: whisper.cpp speech models */
  WASI_NN_ENCODING_PIPER = 11,  /* WasmEdge's number: Piper text to speech (ONNX voices) */
  WASI_NN_ENCODING_CHATTTS = 12 /* WasmEdge's number: ChatTTS, which wasinn does not serve */
} wasi_nn_encoding;

typedef enum {
  WASI_NN_TARGET_CPU = 0,
  WASI_NN_TARGET_GPU = 1,
  WASI_NN_TARGET_TPU = 2,
  WASI_NN_TARGET_AUTO = 3
} wasi_nn_target;

typedef enum {
  WASI_NN_TYPE_F16 = 0,
  WASI_NN_TYPE_F32 = 1,
  WASI_NN_TYPE_F64 = 2,
  WASI_NN_TYPE_U8 = 3,
  WASI_NN_TYPE_I32 = 4,
  WASI_NN_TYPE_I64 = 5
} wasi_nn_tensor_type;

typedef struct {
  const uint8_t* buf;
  uint32_t size;
} wasi_nn_graph_builder;

/* The 20-byte witx tensor record. */
typedef struct {
  const uint32_t* dims;
  uint32_t rank;
  uint8_t type; /* wasi_nn_tensor_type */
  uint8_t pad_[3];
  const uint8_t* data;
  uint32_t data_len; /* bytes */
} wasi_nn_tensor;

#define WASI_NN_IMPORT(name) __attribute__((import_module("wasi_ephemeral_nn"), import_name(name)))

WASI_NN_IMPORT("load")
int32_t wasi_nn_load(const wasi_nn_graph_builder* builders, uint32_t count, uint32_t encoding, uint32_t target,
                     wasi_nn_graph* graph);
WASI_NN_IMPORT("load_by_name")
int32_t wasi_nn_load_by_name(const char* name, uint32_t name_len, wasi_nn_graph* graph);
WASI_NN_IMPORT("load_by_name_with_config")
int32_t wasi_nn_load_by_name_with_config(const char* name, uint32_t name_len, const char* config, uint32_t config_len,
                                         wasi_nn_graph* graph);
WASI_NN_IMPORT("init_execution_context")
int32_t wasi_nn_init_execution_context(wasi_nn_graph graph, wasi_nn_context* ctx);
WASI_NN_IMPORT("set_input")
int32_t wasi_nn_set_input(wasi_nn_context ctx, uint32_t index, const wasi_nn_tensor* tensor);
WASI_NN_IMPORT("compute")
int32_t wasi_nn_compute(wasi_nn_context ctx);
WASI_NN_IMPORT("get_output")
int32_t wasi_nn_get_output(wasi_nn_context ctx, uint32_t index, uint8_t* out, uint32_t out_max,
                           uint32_t* bytes_written);
WASI_NN_IMPORT("compute_single")
int32_t wasi_nn_compute_single(wasi_nn_context ctx);
WASI_NN_IMPORT("get_output_single")
int32_t wasi_nn_get_output_single(wasi_nn_context ctx, uint32_t index, uint8_t* out, uint32_t out_max,
                                  uint32_t* bytes_written);
WASI_NN_IMPORT("fini_single")
int32_t wasi_nn_fini_single(wasi_nn_context ctx);
WASI_NN_IMPORT("unload")
int32_t wasi_nn_unload(wasi_nn_graph graph);
WASI_NN_IMPORT("finalize_execution_context")
int32_t wasi_nn_finalize_execution_context(wasi_nn_context ctx);

#undef WASI_NN_IMPORT

#ifdef __cplusplus
}
#endif

#endif /* WASI_NN_H_ */
