// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * wasi_nn_wit.h: hand-written C bindings of the WIT interface wasi:nn@0.2.0-rc-2024-10-28 for
 * component guests (guest/components; built by cmake/WasmComponentGuest.cmake). The tensor,
 * graph and errors parts are in wasi_nn_wit_common.h; this adds the 10-28 inference interface:
 *   compute(list<named-tensor>) -> result<list<named-tensor>, error>
 * For 0.2.0-rc-2024-08-19 and -06-25 (set-input, compute, get-output) use wasi_nn_wit_legacy.h.
 */
#ifndef WASI_NN_WIT_H_
#define WASI_NN_WIT_H_

#ifdef WASI_NN_WIT_LEGACY_H_
#error "wasi_nn_wit.h and wasi_nn_wit_legacy.h declare different versions; include one"
#endif
#define WASI_NN_WIT_VERSION "0.2.0-rc-2024-10-28"
#include "wasi_nn_wit_common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* named-tensor = tuple<string, tensor>: 12 bytes, name ptr at 0, name len at 4, handle at 8.
 * Inputs are own handles: compute takes them (they are gone from the guest's table whether it
 * succeeds or not). Outputs are new own handles, their names allocated with cabi_realloc. */
typedef struct {
  const char* name;
  uint32_t name_len;
  wnn_tensor tensor;
} wnn_named_tensor;
typedef struct {
  wnn_named_tensor* ptr;
  uint32_t len;
} wnn_named_tensor_list;
_Static_assert(sizeof(wnn_named_tensor) == 12, "named-tensor is 12 bytes");

/* result<list<named-tensor>, own<error>>: 12 bytes; discriminant at 0, then ptr, len (ok) or
 * the error handle at 4. */
typedef struct {
  uint8_t is_err;
  union {
    wnn_named_tensor_list ok;
    wnn_error err;
  } val;
} wnn_result_named_tensors_;
_Static_assert(sizeof(wnn_result_named_tensors_) == 12, "result<list<named-tensor>, error> is 12 bytes");

WNN_IMPORT("inference", "[method]graph-execution-context.compute")
void wnn_import_context_compute_(wnn_context self, const wnn_named_tensor* inputs, size_t count,
                                 wnn_result_named_tensors_* ret);

/* Returns 0 and the outputs (free them with wnn_named_tensor_list_free), or 1 and *err. */
static inline int wnn_compute(wnn_context ctx, const wnn_named_tensor* inputs, uint32_t count,
                              wnn_named_tensor_list* outputs, wnn_error* err) {
  wnn_result_named_tensors_ r;
  r.is_err = 0;
  r.val.ok.ptr = 0;
  r.val.ok.len = 0;
  wnn_import_context_compute_(ctx, inputs, count, &r);
  if (r.is_err) {
    if (err) *err = r.val.err;
    return 1;
  }
  if (outputs) *outputs = r.val.ok;
  return 0;
}

/* A named tensor from a NUL-terminated name. */
static inline wnn_named_tensor wnn_named(const char* name, wnn_tensor t) {
  uint32_t n = 0;
  while (name[n]) ++n;
  wnn_named_tensor nt = {name, n, t};
  return nt;
}

/* The index of the output called NAME (NUL-terminated), or -1. */
static inline int wnn_find_output(const wnn_named_tensor_list* l, const char* name) {
  for (uint32_t i = 0; i < l->len; ++i) {
    const wnn_named_tensor* nt = &l->ptr[i];
    uint32_t k = 0;
    while (k < nt->name_len && name[k] && name[k] == nt->name[k]) ++k;
    if (k == nt->name_len && !name[k]) return (int)i;
  }
  return -1;
}

/* Drops every output tensor still held (a handle set to 0 counts as taken) and frees the names
 * and the list, all of which the host allocated with cabi_realloc. */
void free(void*);
static inline void wnn_named_tensor_list_free(wnn_named_tensor_list* l) {
  for (uint32_t i = 0; i < l->len; ++i) {
    if (l->ptr[i].tensor) wnn_tensor_drop(l->ptr[i].tensor);
    free((void*)l->ptr[i].name);
  }
  free(l->ptr);
  l->ptr = 0;
  l->len = 0;
}

#ifdef __cplusplus
}
#endif

#endif /* WASI_NN_WIT_H_ */
