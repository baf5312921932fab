// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * wasi_nn_wit_common.h: the part of the wasi:nn WIT canonical-ABI imports that is the same in
 * 0.2.0-rc-2024-06-25, -08-19 and -10-28 (tensor, graph, errors). Not included directly: include
 * wasi_nn_wit.h (10-28) or wasi_nn_wit_legacy.h (08-19, 06-25), which set WASI_NN_WIT_VERSION.
 *
 * Canonical ABI (wasm32): handles are i32 (own and borrow alike; 0 is never a handle), enums
 * i32, strings and lists (ptr, len). Results that flatten to more than one value come back
 * through a return pointer. Lists and strings the host returns are allocated with the guest's
 * exported cabi_realloc (guest/components/cabi_realloc.c: realloc, so free() releases them).
 * The wrappers below hide the return pointers: each returns 0 on success and 1 on a WIT error,
 * with the error handle in *err (drop it with wnn_error_drop).
 */
#ifndef WASI_NN_WIT_COMMON_H_
#define WASI_NN_WIT_COMMON_H_

#ifndef WASI_NN_WIT_VERSION
#error "include wasi_nn_wit.h or wasi_nn_wit_legacy.h, not wasi_nn_wit_common.h"
#endif

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define WNN_IMPORT(iface, name) \
  __attribute__((import_module("wasi:nn/" iface "@" WASI_NN_WIT_VERSION), import_name(name)))

typedef int32_t wnn_tensor;  /* own<tensor> */
typedef int32_t wnn_graph;   /* own<graph> */
typedef int32_t wnn_context; /* own<graph-execution-context> */
typedef int32_t wnn_error;   /* own<error> */

/* Enumerations, numbered in WIT declaration order (the same in all three versions). */
typedef enum {
  WNN_TYPE_FP16 = 0,
  WNN_TYPE_FP32 = 1,
  WNN_TYPE_FP64 = 2,
  WNN_TYPE_BF16 = 3,
  WNN_TYPE_U8 = 4,
  WNN_TYPE_I32 = 5,
  WNN_TYPE_I64 = 6
} wnn_tensor_type;
#define WNN_TYPE_COUNT 7

typedef enum {
  WNN_ENCODING_OPENVINO = 0,
  WNN_ENCODING_ONNX = 1,
  WNN_ENCODING_TENSORFLOW = 2,
  WNN_ENCODING_PYTORCH = 3,
  WNN_ENCODING_TENSORFLOWLITE = 4,
  WNN_ENCODING_GGML = 5,
  WNN_ENCODING_AUTODETECT = 6
} wnn_graph_encoding;
#define WNN_ENCODING_COUNT 7

typedef enum { WNN_TARGET_CPU = 0, WNN_TARGET_GPU = 1, WNN_TARGET_TPU = 2 } wnn_execution_target;

typedef enum {
  WNN_ERROR_INVALID_ARGUMENT = 0,
  WNN_ERROR_INVALID_ENCODING = 1,
  WNN_ERROR_TIMEOUT = 2,
  WNN_ERROR_RUNTIME_ERROR = 3,
  WNN_ERROR_UNSUPPORTED_OPERATION = 4,
  WNN_ERROR_TOO_LARGE = 5,
  WNN_ERROR_NOT_FOUND = 6,
  WNN_ERROR_SECURITY = 7,
  WNN_ERROR_UNKNOWN = 8
} wnn_error_code;
#define WNN_ERROR_CODE_COUNT 9

/* list<u8> (graph-builder, tensor-data), list<u32> (tensor-dimensions) and string. */
typedef struct {
  uint8_t* ptr;
  uint32_t len;
} wnn_bytes;
typedef struct {
  uint32_t* ptr;
  uint32_t len;
} wnn_u32_list;
typedef struct {
  char* ptr;
  uint32_t len;
} wnn_string;

/* result<own<T>, own<error>>: 8 bytes, discriminant at 0, handle at 4. */
typedef struct {
  uint8_t is_err;
  int32_t handle;
} wnn_result_handle_;
/* result<_, own<error>>: 8 bytes, discriminant at 0, error handle at 4. */
typedef wnn_result_handle_ wnn_result_unit_;

_Static_assert(sizeof(wnn_bytes) == 8, "graph-builder list element is 8 bytes");
_Static_assert(sizeof(wnn_result_handle_) == 8, "result<own, own> is 8 bytes");

/* --- raw imports ------------------------------------------------------------------------- */

WNN_IMPORT("tensor", "[constructor]tensor")
wnn_tensor wnn_import_tensor_new_(const uint32_t* dims, size_t rank, int32_t ty, const void* data, size_t len);
WNN_IMPORT("tensor", "[method]tensor.dimensions")
void wnn_import_tensor_dimensions_(wnn_tensor self, wnn_u32_list* ret);
WNN_IMPORT("tensor", "[method]tensor.ty")
int32_t wnn_import_tensor_ty_(wnn_tensor self);
WNN_IMPORT("tensor", "[method]tensor.data")
void wnn_import_tensor_data_(wnn_tensor self, wnn_bytes* ret);
WNN_IMPORT("tensor", "[resource-drop]tensor")
void wnn_import_tensor_drop_(wnn_tensor self);

WNN_IMPORT("errors", "[method]error.code")
int32_t wnn_import_error_code_(wnn_error self);
WNN_IMPORT("errors", "[method]error.data")
void wnn_import_error_data_(wnn_error self, wnn_string* ret);
WNN_IMPORT("errors", "[resource-drop]error")
void wnn_import_error_drop_(wnn_error self);

WNN_IMPORT("graph", "[method]graph.init-execution-context")
void wnn_import_graph_init_execution_context_(wnn_graph self, wnn_result_handle_* ret);
WNN_IMPORT("graph", "load")
void wnn_import_load_(const wnn_bytes* builders, size_t count, int32_t encoding, int32_t target,
                      wnn_result_handle_* ret);
WNN_IMPORT("graph", "load-by-name")
void wnn_import_load_by_name_(const char* name, size_t len, wnn_result_handle_* ret);
WNN_IMPORT("graph", "[resource-drop]graph")
void wnn_import_graph_drop_(wnn_graph self);

WNN_IMPORT("inference", "[resource-drop]graph-execution-context")
void wnn_import_context_drop_(wnn_context self);

/* --- typed wrappers ---------------------------------------------------------------------- */

static inline int wnn_handle_result_(const wnn_result_handle_* r, int32_t* out, wnn_error* err) {
  if (r->is_err) {
    if (err) *err = r->handle;
    return 1;
  }
  if (out) *out = r->handle;
  return 0;
}

/* tensor: the constructor cannot fail in WIT (a bad tensor surfaces when it is used). */
static inline wnn_tensor wnn_tensor_new(const uint32_t* dims, uint32_t rank, wnn_tensor_type ty, const void* data,
                                        uint32_t len) {
  return wnn_import_tensor_new_(dims, rank, (int32_t)ty, data, len);
}
/* The returned lists are the guest's to free(). */
static inline wnn_u32_list wnn_tensor_dimensions(wnn_tensor t) {
  wnn_u32_list l = {0, 0};
  wnn_import_tensor_dimensions_(t, &l);
  return l;
}
static inline wnn_tensor_type wnn_tensor_ty(wnn_tensor t) { return (wnn_tensor_type)wnn_import_tensor_ty_(t); }
static inline wnn_bytes wnn_tensor_data(wnn_tensor t) {
  wnn_bytes b = {0, 0};
  wnn_import_tensor_data_(t, &b);
  return b;
}
static inline void wnn_tensor_drop(wnn_tensor t) { wnn_import_tensor_drop_(t); }

/* errors */
static inline wnn_error_code wnn_error_get_code(wnn_error e) { return (wnn_error_code)wnn_import_error_code_(e); }
/* Not NUL-terminated; free(s.ptr) when done. */
static inline wnn_string wnn_error_get_data(wnn_error e) {
  wnn_string s = {0, 0};
  wnn_import_error_data_(e, &s);
  return s;
}
static inline void wnn_error_drop(wnn_error e) { wnn_import_error_drop_(e); }

/* graph */
static inline int wnn_load(const wnn_bytes* builders, uint32_t count, wnn_graph_encoding encoding,
                           wnn_execution_target target, wnn_graph* graph, wnn_error* err) {
  wnn_result_handle_ r = {0, 0};
  wnn_import_load_(builders, count, (int32_t)encoding, (int32_t)target, &r);
  return wnn_handle_result_(&r, graph, err);
}
static inline int wnn_load_by_name(const char* name, uint32_t len, wnn_graph* graph, wnn_error* err) {
  wnn_result_handle_ r = {0, 0};
  wnn_import_load_by_name_(name, len, &r);
  return wnn_handle_result_(&r, graph, err);
}
static inline int wnn_init_execution_context(wnn_graph g, wnn_context* ctx, wnn_error* err) {
  wnn_result_handle_ r = {0, 0};
  wnn_import_graph_init_execution_context_(g, &r);
  return wnn_handle_result_(&r, ctx, err);
}
static inline void wnn_graph_drop(wnn_graph g) { wnn_import_graph_drop_(g); }
static inline void wnn_context_drop(wnn_context c) { wnn_import_context_drop_(c); }

/* --- names ------------------------------------------------------------------------------- */

/* WIT spellings: "invalid-argument", "FP32", "onnx". NULL when out of range. */
static inline const char* wnn_error_code_name(int32_t code) {
  static const char* const names[WNN_ERROR_CODE_COUNT] = {
      "invalid-argument", "invalid-encoding", "timeout",  "runtime-error", "unsupported-operation",
      "too-large",        "not-found",        "security", "unknown"};
  return code >= 0 && code < WNN_ERROR_CODE_COUNT ? names[code] : 0;
}
static inline const char* wnn_tensor_type_name(int32_t ty) {
  static const char* const names[WNN_TYPE_COUNT] = {"FP16", "FP32", "FP64", "BF16", "U8", "I32", "I64"};
  return ty >= 0 && ty < WNN_TYPE_COUNT ? names[ty] : 0;
}
static inline const char* wnn_encoding_name(int32_t enc) {
  static const char* const names[WNN_ENCODING_COUNT] = {"openvino",       "onnx", "tensorflow", "pytorch",
                                                        "tensorflowlite", "ggml", "autodetect"};
  return enc >= 0 && enc < WNN_ENCODING_COUNT ? names[enc] : 0;
}
/* The encoding called NAME (WIT spelling), or -1. */
static inline int wnn_encoding_from_name(const char* name) {
  for (int e = 0; e < WNN_ENCODING_COUNT; ++e) {
    const char *a = wnn_encoding_name(e), *b = name;
    while (*a && *a == *b) ++a, ++b;
    if (!*a && !*b) return e;
  }
  return -1;
}

/* Every component guest exports this (guest/components/cabi_realloc.c, or its own). */
void* cabi_realloc(void* old_ptr, size_t old_size, size_t align, size_t new_size);

#ifdef __cplusplus
}
#endif

#endif /* WASI_NN_WIT_COMMON_H_ */
