// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/* nn_error_paths cases for load, load_by_name and init_execution_context. */
#include <stdio.h>
#include <string.h>

#include "nn_error_paths.h"

/* ---- load ---- */
static int32_t load_builders_ptr_oob(void) {
  wasi_nn_graph g;
  return wasi_nn_load(BAD(const wasi_nn_graph_builder*), 1, WASI_NN_ENCODING_ONNX, WASI_NN_TARGET_CPU, &g);
}
static int32_t load_builder_buf_oob(void) {
  wasi_nn_graph g;
  wasi_nn_graph_builder b = {BAD(const uint8_t*), 64};
  return wasi_nn_load(&b, 1, WASI_NN_ENCODING_ONNX, WASI_NN_TARGET_CPU, &g);
}
static int32_t load_builder_len_past_end(void) {
  wasi_nn_graph g;
  wasi_nn_graph_builder b = {g_digits.bytes, 0x7FFFFFFFu};
  return wasi_nn_load(&b, 1, WASI_NN_ENCODING_ONNX, WASI_NN_TARGET_CPU, &g);
}
static int32_t load_graph_out_oob(void) {
  wasi_nn_graph_builder b = {g_digits.bytes, g_digits.len};
  return wasi_nn_load(&b, 1, WASI_NN_ENCODING_ONNX, WASI_NN_TARGET_CPU, BAD(wasi_nn_graph*));
}
static int32_t load_zero_builders(void) {
  wasi_nn_graph g;
  wasi_nn_graph_builder b = {g_digits.bytes, g_digits.len};
  return wasi_nn_load(&b, 0, WASI_NN_ENCODING_ONNX, WASI_NN_TARGET_CPU, &g);
}
static int32_t load_two_builders_onnx(void) {
  wasi_nn_graph g;
  wasi_nn_graph_builder b[2] = {{g_digits.bytes, g_digits.len}, {g_digits.bytes, g_digits.len}};
  return wasi_nn_load(b, 2, WASI_NN_ENCODING_ONNX, WASI_NN_TARGET_CPU, &g);
}
static int32_t load_bad_encoding(void) {
  wasi_nn_graph g;
  return load_model(g_digits, 99, WASI_NN_TARGET_CPU, &g);
}
static int32_t load_autodetect_unknown_bytes(void) {
  static uint8_t text[] = "plain text is no model format";
  wasi_nn_graph g;
  blob b = {text, sizeof text - 1};
  return load_model(b, WASI_NN_ENCODING_AUTODETECT, WASI_NN_TARGET_CPU, &g);
}
static int32_t load_autodetect_onnx(void) {
  wasi_nn_graph g;
  int32_t err = load_model(g_digits, WASI_NN_ENCODING_AUTODETECT, WASI_NN_TARGET_CPU, &g);
  if (err == 0 && wasi_nn_unload(g) != 0) note("unload of the autodetected graph failed");
  return err;
}
static int32_t load_bad_target(void) {
  wasi_nn_graph g;
  return load_model(g_digits, WASI_NN_ENCODING_ONNX, 7, &g);
}
static int32_t load_gpu_target(void) {
  wasi_nn_graph g;
  return load_model(g_digits, WASI_NN_ENCODING_ONNX, WASI_NN_TARGET_GPU, &g);
}
static int32_t load_tpu_target(void) {
  wasi_nn_graph g;
  return load_model(g_digits, WASI_NN_ENCODING_ONNX, WASI_NN_TARGET_TPU, &g);
}
static int32_t load_corrupt_garbage(void) {
  wasi_nn_graph g;
  return load_model(g_garbage, WASI_NN_ENCODING_ONNX, WASI_NN_TARGET_CPU, &g);
}
static int32_t load_corrupt_truncated(void) {
  wasi_nn_graph g;
  return load_model(g_truncated, WASI_NN_ENCODING_ONNX, WASI_NN_TARGET_CPU, &g);
}
static int32_t load_corrupt_empty(void) {
  wasi_nn_graph g;
  return load_model(g_empty, WASI_NN_ENCODING_ONNX, WASI_NN_TARGET_CPU, &g);
}

/* ---- load_by_name ---- */
static int32_t by_name_unknown(void) {
  wasi_nn_graph g;
  return wasi_nn_load_by_name("no-such-model", 13, &g);
}
static int32_t by_name_with_nul(void) {
  wasi_nn_graph g;
  return wasi_nn_load_by_name("dig\0its", 7, &g);
}
static int32_t by_name_empty(void) {
  wasi_nn_graph g;
  return wasi_nn_load_by_name("", 0, &g);
}
static int32_t by_name_bad_utf8(void) {
  wasi_nn_graph g;
  return wasi_nn_load_by_name("digits\xff", 7, &g);
}
static int32_t by_name_ptr_oob(void) {
  wasi_nn_graph g;
  return wasi_nn_load_by_name(BAD(const char*), 6, &g);
}
static int32_t by_name_graph_out_oob(void) { return wasi_nn_load_by_name("digits", 6, BAD(wasi_nn_graph*)); }
static int32_t by_name_preloaded(void) {
  wasi_nn_graph g;
  int32_t err = wasi_nn_load_by_name("digits", 6, &g);
  if (err == 0 && wasi_nn_unload(g) != 0) note("unload of the named graph failed");
  return err;
}
static int32_t by_name_with_config_unknown(void) {
  wasi_nn_graph g;
  return wasi_nn_load_by_name_with_config("no-such-model", 13, "{}", 2, &g);
}
static int32_t by_name_with_config_ptr_oob(void) {
  wasi_nn_graph g;
  return wasi_nn_load_by_name_with_config("digits", 6, BAD(const char*), 16, &g);
}

/* ---- init_execution_context ---- */
static int32_t init_bad_graph(void) {
  wasi_nn_context c;
  return wasi_nn_init_execution_context(NO_HANDLE, &c);
}
static int32_t init_ctx_out_oob(void) { return wasi_nn_init_execution_context(g_graph, BAD(wasi_nn_context*)); }

const error_case kLoadCases[] = {
    {"load_builders_ptr_oob", load_builders_ptr_oob, WASI_NN_INVALID_ARGUMENT},
    {"load_builder_buf_oob", load_builder_buf_oob, WASI_NN_INVALID_ARGUMENT},
    {"load_builder_len_past_end", load_builder_len_past_end, WASI_NN_INVALID_ARGUMENT},
    {"load_graph_out_oob", load_graph_out_oob, WASI_NN_INVALID_ARGUMENT},
    {"load_zero_builders", load_zero_builders, WASI_NN_INVALID_ARGUMENT},
    {"load_two_builders_onnx", load_two_builders_onnx, WASI_NN_INVALID_ARGUMENT},
    {"load_bad_encoding", load_bad_encoding, WASI_NN_INVALID_ENCODING},
    {"load_autodetect_unknown_bytes", load_autodetect_unknown_bytes, WASI_NN_INVALID_ENCODING},
    {"load_autodetect_onnx", load_autodetect_onnx, WASI_NN_SUCCESS},
    {"load_bad_target", load_bad_target, WASI_NN_INVALID_ARGUMENT},
    {"load_gpu_target", load_gpu_target, WASI_NN_UNSUPPORTED_OPERATION},
    {"load_tpu_target", load_tpu_target, WASI_NN_UNSUPPORTED_OPERATION},
    {"load_corrupt_garbage", load_corrupt_garbage, WASI_NN_INVALID_ARGUMENT},
    {"load_corrupt_truncated", load_corrupt_truncated, WASI_NN_INVALID_ARGUMENT},
    {"load_corrupt_empty", load_corrupt_empty, WASI_NN_INVALID_ARGUMENT},
    {"by_name_unknown", by_name_unknown, WASI_NN_NOT_FOUND},
    {"by_name_with_nul", by_name_with_nul, WASI_NN_INVALID_ARGUMENT},
    {"by_name_empty", by_name_empty, WASI_NN_INVALID_ARGUMENT},
    {"by_name_bad_utf8", by_name_bad_utf8, WASI_NN_INVALID_ARGUMENT},
    {"by_name_ptr_oob", by_name_ptr_oob, WASI_NN_INVALID_ARGUMENT},
    {"by_name_graph_out_oob", by_name_graph_out_oob, WASI_NN_INVALID_ARGUMENT},
    {"by_name_preloaded", by_name_preloaded, WASI_NN_SUCCESS},
    {"by_name_with_config_unknown", by_name_with_config_unknown, WASI_NN_MODEL_NOT_FOUND},
    {"by_name_with_config_ptr_oob", by_name_with_config_ptr_oob, WASI_NN_INVALID_ARGUMENT},
    {"init_bad_graph", init_bad_graph, WASI_NN_INVALID_ARGUMENT},
    {"init_ctx_out_oob", init_ctx_out_oob, WASI_NN_INVALID_ARGUMENT},
};
const size_t kLoadCaseCount = sizeof kLoadCases / sizeof kLoadCases[0];
