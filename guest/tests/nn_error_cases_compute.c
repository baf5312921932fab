// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/* nn_error_paths cases for set_input, compute, get_output, the streaming extensions and
   handle lifetimes. Run after the load cases; within the table, order matters. */
#include <stdio.h>
#include <string.h>

#include "nn_error_paths.h"

/* ---- set_input ---- */
static int32_t set_input_bad_context(void) {
  wasi_nn_tensor t = row_tensor();
  return wasi_nn_set_input(NO_HANDLE, 0, &t);
}
static int32_t set_input_tensor_oob(void) { return wasi_nn_set_input(g_ctx, 0, BAD(const wasi_nn_tensor*)); }
static int32_t set_input_tensor_straddles_end(void) {
  /* The 20-byte record would start 8 bytes before the end of memory. */
  return wasi_nn_set_input(g_ctx, 0, (const wasi_nn_tensor*)(uintptr_t)(memory_end() - 8));
}
static int32_t set_input_dims_oob(void) {
  wasi_nn_tensor t = row_tensor();
  t.dims = BAD(const uint32_t*);
  return wasi_nn_set_input(g_ctx, 0, &t);
}
static int32_t set_input_data_oob(void) {
  wasi_nn_tensor t = row_tensor();
  t.data = BAD(const uint8_t*);
  return wasi_nn_set_input(g_ctx, 0, &t);
}
static int32_t set_input_data_too_short(void) { return set_tensor(2, g_dims, WASI_NN_TYPE_F32, 63 * 4); }
static int32_t set_input_data_too_long(void) {
  static float longer[65];
  wasi_nn_tensor t = {g_dims, 2, WASI_NN_TYPE_F32, {0, 0, 0}, (const uint8_t*)longer, sizeof longer};
  return wasi_nn_set_input(g_ctx, 0, &t);
}
static int32_t set_input_dims_overflow_u64(void) {
  static const uint32_t dims[3] = {0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu};
  return set_tensor(3, dims, WASI_NN_TYPE_F32, sizeof g_row);
}
static int32_t set_input_dims_overflow_u32(void) {
  /* 65536 x 65536 x 4 bytes wraps to 0 in 32 bits: a host must not do this sum in u32. */
  static const uint32_t dims[2] = {65536, 65536};
  return set_tensor(2, dims, WASI_NN_TYPE_F32, 0);
}
static int32_t set_input_wrong_type(void) {
  /* i32 has f32's size, so only the type check can catch it. */
  return set_tensor(2, g_dims, WASI_NN_TYPE_I32, sizeof g_row);
}
static int32_t set_input_wrong_shape(void) {
  static const uint32_t dims[2] = {1, 32};
  return set_tensor(2, dims, WASI_NN_TYPE_F32, 32 * 4);
}
static int32_t set_input_wrong_rank(void) {
  static const uint32_t dims[1] = {64};
  return set_tensor(1, dims, WASI_NN_TYPE_F32, sizeof g_row);
}
static int32_t set_input_bad_type_code(void) { return set_tensor(2, g_dims, 9, sizeof g_row); }
static int32_t set_input_rank_over_limit(void) {
  static uint32_t dims[65];
  for (int i = 0; i < 65; ++i) dims[i] = 1;
  return set_tensor(65, dims, WASI_NN_TYPE_F32, 4);
}
static int32_t set_input_bad_index(void) {
  wasi_nn_tensor t = row_tensor();
  return wasi_nn_set_input(g_ctx, 5, &t);
}
static int32_t set_input_garbage_padding(void) {
  /* Rust guests leave the 3 bytes after the type byte uninitialised; the host reads one byte. */
  wasi_nn_tensor t = row_tensor();
  memset(t.pad_, 0xEE, sizeof t.pad_);
  return wasi_nn_set_input(g_ctx, 0, &t);
}

/* ---- compute / get_output ordering ---- */
static int32_t compute_before_set_input(void) {
  wasi_nn_context ctx;
  if (wasi_nn_init_execution_context(g_graph, &ctx) != 0) return -1;
  int32_t err = wasi_nn_compute(ctx);
  wasi_nn_finalize_execution_context(ctx);
  return err;
}
static int32_t get_output_before_compute(void) {
  wasi_nn_context ctx = ready_context();
  uint8_t buf[64];
  uint32_t written = 0;
  int32_t err = wasi_nn_get_output(ctx, 0, buf, sizeof buf, &written);
  wasi_nn_finalize_execution_context(ctx);
  return err;
}
static int32_t compute_bad_context(void) { return wasi_nn_compute(NO_HANDLE); }
int32_t compute_valid(void) {
  int32_t err = set_row(g_ctx);
  return err ? err : wasi_nn_compute(g_ctx);
}

/* ---- get_output after a compute on g_ctx ---- */
static int32_t output_buffer_too_small(void) {
  uint8_t buf[64];
  uint32_t written = SENTINEL;
  memset(buf, CANARY, sizeof buf);
  int32_t err = wasi_nn_get_output(g_ctx, 0, buf, 39, &written);
  if (written != 40)
    note("bytes_written is %u, expected the required 40", written);
  else if (!buffer_untouched(buf, sizeof buf))
    note("the too-small buffer was written to");
  return err;
}
static int32_t output_buffer_zero(void) {
  uint8_t buf[8];
  uint32_t written = SENTINEL;
  memset(buf, CANARY, sizeof buf);
  int32_t err = wasi_nn_get_output(g_ctx, 0, buf, 0, &written);
  if (written != 40)
    note("bytes_written is %u, expected the required 40", written);
  else if (!buffer_untouched(buf, sizeof buf))
    note("the zero-size buffer was written to");
  return err;
}
static int32_t output_buffer_oob(void) {
  uint32_t written = SENTINEL;
  int32_t err = wasi_nn_get_output(g_ctx, 0, BAD(uint8_t*), 64, &written);
  if (written != SENTINEL) note("bytes_written changed although the call failed");
  return err;
}
static int32_t output_buffer_straddles_end(void) {
  uint32_t written = SENTINEL;
  int32_t err = wasi_nn_get_output(g_ctx, 0, (uint8_t*)(uintptr_t)(memory_end() - 20), 40, &written);
  if (written != SENTINEL) note("bytes_written changed although the call failed");
  return err;
}
static int32_t output_bytes_written_oob(void) {
  uint8_t buf[64];
  memset(buf, CANARY, sizeof buf);
  int32_t err = wasi_nn_get_output(g_ctx, 0, buf, sizeof buf, BAD(uint32_t*));
  if (!buffer_untouched(buf, sizeof buf)) note("the buffer was written although bytes_written is out of range");
  return err;
}
static int32_t output_bad_index(void) {
  uint8_t buf[64];
  uint32_t written;
  return wasi_nn_get_output(g_ctx, 3, buf, sizeof buf, &written);
}
static int32_t output_bad_context(void) {
  uint8_t buf[64];
  uint32_t written;
  return wasi_nn_get_output(NO_HANDLE, 0, buf, sizeof buf, &written);
}
static int32_t output_exact_size(void) {
  float out[10];
  uint32_t written = 0;
  int32_t err = wasi_nn_get_output(g_ctx, 0, (uint8_t*)out, sizeof out, &written);
  if (err == 0 && written != sizeof out) note("bytes_written is %u, not 40", written);
  return err;
}

/* ---- streaming extensions on a backend without streaming ---- */
static int32_t compute_single_onnx(void) { return wasi_nn_compute_single(g_ctx); }
static int32_t get_output_single_onnx(void) {
  uint8_t buf[64];
  uint32_t written;
  return wasi_nn_get_output_single(g_ctx, 0, buf, sizeof buf, &written);
}
static int32_t fini_single_onnx(void) { return wasi_nn_fini_single(g_ctx); }

/* ---- lifetimes: a context is finalized, a graph unloaded, then used ---- */
static wasi_nn_context g_dead_ctx;
static wasi_nn_graph g_dead_graph;
static wasi_nn_context g_orphan_ctx; /* a context whose graph handle was unloaded */

static int32_t finalize_valid(void) {
  g_dead_ctx = ready_context();
  return wasi_nn_finalize_execution_context(g_dead_ctx);
}
static int32_t set_input_after_finalize(void) { return set_row(g_dead_ctx); }
static int32_t compute_after_finalize(void) { return wasi_nn_compute(g_dead_ctx); }
static int32_t get_output_after_finalize(void) {
  uint8_t buf[64];
  uint32_t written;
  return wasi_nn_get_output(g_dead_ctx, 0, buf, sizeof buf, &written);
}
static int32_t finalize_twice(void) { return wasi_nn_finalize_execution_context(g_dead_ctx); }
static int32_t finalize_bad_handle(void) { return wasi_nn_finalize_execution_context(NO_HANDLE); }

static int32_t unload_valid(void) {
  if (load_model(g_digits, WASI_NN_ENCODING_ONNX, WASI_NN_TARGET_CPU, &g_dead_graph) != 0) return -1;
  if (wasi_nn_init_execution_context(g_dead_graph, &g_orphan_ctx) != 0 || set_row(g_orphan_ctx) != 0) return -1;
  return wasi_nn_unload(g_dead_graph);
}
static int32_t init_after_unload(void) {
  wasi_nn_context c;
  return wasi_nn_init_execution_context(g_dead_graph, &c);
}
static int32_t unload_twice(void) { return wasi_nn_unload(g_dead_graph); }
static int32_t unload_bad_handle(void) { return wasi_nn_unload(NO_HANDLE); }
static int32_t context_outlives_unload(void) {
  /* Unload frees the guest's handle only; a live context keeps its graph usable. */
  float out[10];
  uint32_t written = 0;
  int32_t err = wasi_nn_compute(g_orphan_ctx);
  if (!err) err = wasi_nn_get_output(g_orphan_ctx, 0, (uint8_t*)out, sizeof out, &written);
  if (!err) err = wasi_nn_finalize_execution_context(g_orphan_ctx);
  return err;
}
static int32_t handles_not_reused(void) {
  wasi_nn_graph g;
  int32_t err = load_model(g_digits, WASI_NN_ENCODING_ONNX, WASI_NN_TARGET_CPU, &g);
  if (err) return err;
  if (g == g_dead_graph) note("a new graph got the unloaded graph's handle");
  return wasi_nn_unload(g);
}

const error_case kComputeCases[] = {
    {"set_input_bad_context", set_input_bad_context, WASI_NN_INVALID_ARGUMENT},
    {"set_input_tensor_oob", set_input_tensor_oob, WASI_NN_INVALID_ARGUMENT},
    {"set_input_tensor_straddles_end", set_input_tensor_straddles_end, WASI_NN_INVALID_ARGUMENT},
    {"set_input_dims_oob", set_input_dims_oob, WASI_NN_INVALID_ARGUMENT},
    {"set_input_data_oob", set_input_data_oob, WASI_NN_INVALID_ARGUMENT},
    {"set_input_data_too_short", set_input_data_too_short, WASI_NN_INVALID_ARGUMENT},
    {"set_input_data_too_long", set_input_data_too_long, WASI_NN_INVALID_ARGUMENT},
    {"set_input_dims_overflow_u64", set_input_dims_overflow_u64, WASI_NN_INVALID_ARGUMENT},
    {"set_input_dims_overflow_u32", set_input_dims_overflow_u32, WASI_NN_INVALID_ARGUMENT},
    {"set_input_wrong_type", set_input_wrong_type, WASI_NN_INVALID_ARGUMENT},
    {"set_input_wrong_shape", set_input_wrong_shape, WASI_NN_INVALID_ARGUMENT},
    {"set_input_wrong_rank", set_input_wrong_rank, WASI_NN_INVALID_ARGUMENT},
    {"set_input_bad_type_code", set_input_bad_type_code, WASI_NN_INVALID_ARGUMENT},
    {"set_input_rank_over_limit", set_input_rank_over_limit, WASI_NN_INVALID_ARGUMENT},
    {"set_input_bad_index", set_input_bad_index, WASI_NN_INVALID_ARGUMENT},
    {"set_input_garbage_padding", set_input_garbage_padding, WASI_NN_SUCCESS},
    {"compute_before_set_input", compute_before_set_input, WASI_NN_INVALID_ARGUMENT},
    {"get_output_before_compute", get_output_before_compute, WASI_NN_INVALID_ARGUMENT},
    {"compute_bad_context", compute_bad_context, WASI_NN_INVALID_ARGUMENT},
    {"compute_valid", compute_valid, WASI_NN_SUCCESS},
    {"output_buffer_too_small", output_buffer_too_small, WASI_NN_TOO_LARGE},
    {"output_buffer_zero", output_buffer_zero, WASI_NN_TOO_LARGE},
    {"output_buffer_oob", output_buffer_oob, WASI_NN_INVALID_ARGUMENT},
    {"output_buffer_straddles_end", output_buffer_straddles_end, WASI_NN_INVALID_ARGUMENT},
    {"output_bytes_written_oob", output_bytes_written_oob, WASI_NN_INVALID_ARGUMENT},
    {"output_bad_index", output_bad_index, WASI_NN_INVALID_ARGUMENT},
    {"output_bad_context", output_bad_context, WASI_NN_INVALID_ARGUMENT},
    {"output_exact_size", output_exact_size, WASI_NN_SUCCESS},
    {"compute_single_onnx", compute_single_onnx, WASI_NN_UNSUPPORTED_OPERATION},
    {"get_output_single_onnx", get_output_single_onnx, WASI_NN_UNSUPPORTED_OPERATION},
    {"fini_single_onnx", fini_single_onnx, WASI_NN_UNSUPPORTED_OPERATION},
    {"finalize_valid", finalize_valid, WASI_NN_SUCCESS},
    {"set_input_after_finalize", set_input_after_finalize, WASI_NN_INVALID_ARGUMENT},
    {"compute_after_finalize", compute_after_finalize, WASI_NN_INVALID_ARGUMENT},
    {"get_output_after_finalize", get_output_after_finalize, WASI_NN_INVALID_ARGUMENT},
    {"finalize_twice", finalize_twice, WASI_NN_INVALID_ARGUMENT},
    {"finalize_bad_handle", finalize_bad_handle, WASI_NN_INVALID_ARGUMENT},
    {"unload_valid", unload_valid, WASI_NN_SUCCESS},
    {"init_after_unload", init_after_unload, WASI_NN_INVALID_ARGUMENT},
    {"unload_twice", unload_twice, WASI_NN_INVALID_ARGUMENT},
    {"unload_bad_handle", unload_bad_handle, WASI_NN_INVALID_ARGUMENT},
    {"context_outlives_unload", context_outlives_unload, WASI_NN_SUCCESS},
    {"handles_not_reused", handles_not_reused, WASI_NN_SUCCESS},
};
const size_t kComputeCaseCount = sizeof kComputeCases / sizeof kComputeCases[0];
