// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * wasi_nn_wit_legacy.h: hand-written C bindings of wasi:nn@0.2.0-rc-2024-08-19 or
 * 0.2.0-rc-2024-06-25, the versions with name-based set-input, compute() and get-output
 * (Wasmtime 24 speaks 06-25, 25 to 34 speak 08-19). Define one of
 *   WASI_NN_WIT_2024_08_19   or   WASI_NN_WIT_2024_06_25
 * before including it (the CMake function passes -D for the guest's WIT version). 06-25 also
 * has the error constructor. Tensor, graph and errors are in wasi_nn_wit_common.h.
 */
#ifndef WASI_NN_WIT_LEGACY_H_
#define WASI_NN_WIT_LEGACY_H_

#ifdef WASI_NN_WIT_H_
#error "wasi_nn_wit.h and wasi_nn_wit_legacy.h declare different versions; include one"
#endif
#if defined(WASI_NN_WIT_2024_08_19) && defined(WASI_NN_WIT_2024_06_25)
#error "define only one of WASI_NN_WIT_2024_08_19 and WASI_NN_WIT_2024_06_25"
#elif defined(WASI_NN_WIT_2024_08_19)
#define WASI_NN_WIT_VERSION "0.2.0-rc-2024-08-19"
#elif defined(WASI_NN_WIT_2024_06_25)
#define WASI_NN_WIT_VERSION "0.2.0-rc-2024-06-25"
#else
#error "define WASI_NN_WIT_2024_08_19 or WASI_NN_WIT_2024_06_25 before including wasi_nn_wit_legacy.h"
#endif
#include "wasi_nn_wit_common.h"

#ifdef __cplusplus
extern "C" {
#endif

WNN_IMPORT("inference", "[method]graph-execution-context.set-input")
void wnn_import_context_set_input_(wnn_context self, const char* name, size_t name_len, wnn_tensor tensor,
                                   wnn_result_unit_* ret);
WNN_IMPORT("inference", "[method]graph-execution-context.compute")
void wnn_import_context_compute_(wnn_context self, wnn_result_unit_* ret);
WNN_IMPORT("inference", "[method]graph-execution-context.get-output")
void wnn_import_context_get_output_(wnn_context self, const char* name, size_t name_len, wnn_result_handle_* ret);

/* set-input takes the tensor (an own handle): it is gone from the guest's table afterwards. */
static inline int wnn_set_input(wnn_context ctx, const char* name, uint32_t name_len, wnn_tensor t, wnn_error* err) {
  wnn_result_unit_ r = {0, 0};
  wnn_import_context_set_input_(ctx, name, name_len, t, &r);
  return wnn_handle_result_(&r, 0, err);
}
static inline int wnn_compute(wnn_context ctx, wnn_error* err) {
  wnn_result_unit_ r = {0, 0};
  wnn_import_context_compute_(ctx, &r);
  return wnn_handle_result_(&r, 0, err);
}
static inline int wnn_get_output(wnn_context ctx, const char* name, uint32_t name_len, wnn_tensor* out,
                                 wnn_error* err) {
  wnn_result_handle_ r = {0, 0};
  wnn_import_context_get_output_(ctx, name, name_len, &r);
  return wnn_handle_result_(&r, out, err);
}

#ifdef WASI_NN_WIT_2024_06_25
WNN_IMPORT("errors", "[constructor]error")
wnn_error wnn_import_error_new_(int32_t code, const char* data, size_t len);
/* 06-25 only: a guest-made error resource. */
static inline wnn_error wnn_error_new(wnn_error_code code, const char* data, uint32_t len) {
  return wnn_import_error_new_((int32_t)code, data, len);
}
#endif

#ifdef __cplusplus
}
#endif

#endif /* WASI_NN_WIT_LEGACY_H_ */
