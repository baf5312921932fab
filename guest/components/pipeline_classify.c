// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * pipeline_classify: a pipeline component (wit/wasinn-pipeline) in front of mobilenet_v2, served
 * by `wasinn serve --oip-* --pipeline NAME=pipeline_classify.component.wasm` with the model
 * registered as "mobilenet_v2" (e.g. --nn-preload mobilenet_v2:onnx:cpu:model.onnx).
 *   input  "image":   UINT8 [224, 224, 3], an RGB image's bytes, row by row (HWC)
 *   output "classes": INT64 [5], the five most likely ImageNet classes, best first
 *   output "scores":  FP32 [5], their softmax probabilities
 * Steps, the same as torchvision's: x / 255, minus the mean, over the standard deviation, per
 * channel, into NCHW FP32 [1, 3, 224, 224]; mobilenet_v2 through wasi:nn (load-by-name, once per
 * instance; the graph and context are kept between requests); softmax of the 1000 logits; top 5.
 * Errors: a wrong input is invalid-input; a wasi:nn error is failed with its code and data.
 * No stdio: a reactor with no WASI imports at all (the messages are built with say()).
 */
#include <math.h>
#include <string.h>

#include "wasi_nn_wit.h"
#include "wasinn_pipeline.h"

#define SIDE 224
#define CLASSES 1000
#define TOP 5
static const char kModel[] = "mobilenet_v2";

static const int64_t kImageDims[] = {SIDE, SIDE, 3};
static const int64_t kTopDims[] = {TOP};
static const wp_tensor_spec kInputs[] = {{{"image", 5}, WP_U8, kImageDims, 3}};
static const wp_tensor_spec kOutputs[] = {{{"classes", 7}, WP_I64, kTopDims, 1}, {{"scores", 6}, WP_FP32, kTopDims, 1}};

WP_EXPORT_DESCRIBE wp_description* describe(void) {
  static wp_description d = {kInputs, 1, kOutputs, 2};
  return &d;
}

/* The model infer loads by name: the server refuses to start without it. */
WP_EXPORT_MODELS wp_string_list* models(void) {
  static const wp_string names[] = {{(char*)kModel, sizeof kModel - 1}};
  static wp_string_list list = {names, 1};
  return &list;
}

static wp_result result;
static char message[512];
static wnn_graph graph;
static wnn_context context;
static int ready;

/* Appends NUL-terminated parts to the message, as far as it holds; the list ends with NULL. */
static void say(const char* first, ...) {
  __builtin_va_list ap;
  __builtin_va_start(ap, first);
  size_t n = 0;
  for (const char* part = first; part; part = __builtin_va_arg(ap, const char*))
    for (; *part && n + 1 < sizeof message; ++part) message[n++] = *part;
  message[n] = 0;
  __builtin_va_end(ap);
}

static const char* decimal(uint32_t v, char buf[12]) {
  char* p = buf + 11;
  *p = 0;
  do *--p = (char)('0' + v % 10);
  while (v /= 10);
  return p;
}

static wp_result* fail(uint8_t code, wp_tensor_list* inputs) {
  wp_tensors_free(inputs);
  result.is_err = 1;
  result.val.err.code = code;
  result.val.err.message.ptr = message;
  result.val.err.message.len = (uint32_t)strlen(message);
  return &result;
}

static wp_result* nn_failed(const char* what, wnn_error err, wp_tensor_list* inputs) {
  int code = (int)wnn_error_get_code(err);
  wnn_string data = wnn_error_get_data(err);
  const char* name = wnn_error_code_name(code);
  char* detail = malloc(data.len + 1);
  memcpy(detail, data.ptr ? data.ptr : "", data.len);
  detail[data.len] = 0;
  say(what, " failed: ", name ? name : "?", ": ", detail, (const char*)0);
  free(detail);
  free(data.ptr);
  wnn_error_drop(err);
  return fail(WP_FAILED, inputs);
}

static wp_tensor make_output(const char* name, uint8_t type, const void* data, uint32_t bytes) {
  wp_tensor t;
  t.name.len = (uint32_t)strlen(name);
  t.name.ptr = malloc(t.name.len);
  memcpy(t.name.ptr, name, t.name.len);
  t.dims = malloc(sizeof(uint32_t));
  t.dims[0] = TOP;
  t.rank = 1;
  t.type = type;
  t.data = malloc(bytes);
  memcpy(t.data, data, bytes);
  t.data_len = bytes;
  return t;
}

WP_EXPORT_INFER wp_result* infer(wp_tensor* ptr, uint32_t len) {
  wp_tensor_list inputs = {ptr, len};
  const wp_tensor* image = 0;
  for (uint32_t i = 0; i < len; ++i)
    if (wp_name_is(ptr[i].name, "image")) image = &ptr[i];
  if (!image || image->type != WP_U8 || image->rank != 3 || image->dims[0] != SIDE || image->dims[1] != SIDE ||
      image->dims[2] != 3 || image->data_len != SIDE * SIDE * 3) {
    say("expected an input \"image\": UINT8 [224, 224, 3] (150528 bytes)", (const char*)0);
    return fail(WP_INVALID_INPUT, &inputs);
  }
  wnn_error err;
  if (!ready) {
    if (wnn_load_by_name(kModel, (uint32_t)strlen(kModel), &graph, &err))
      return nn_failed("load-by-name", err, &inputs);
    if (wnn_init_execution_context(graph, &context, &err)) return nn_failed("init-execution-context", err, &inputs);
    ready = 1;
  }
  static const float mean[3] = {0.485f, 0.456f, 0.406f}, stddev[3] = {0.229f, 0.224f, 0.225f};
  static float chw[3 * SIDE * SIDE];
  for (uint32_t p = 0; p < SIDE * SIDE; ++p)
    for (uint32_t c = 0; c < 3; ++c)
      chw[c * SIDE * SIDE + p] = ((float)image->data[p * 3 + c] / 255.0f - mean[c]) / stddev[c];
  wp_tensors_free(&inputs);

  const uint32_t dims[4] = {1, 3, SIDE, SIDE};
  wnn_named_tensor in = wnn_named("input", wnn_tensor_new(dims, 4, WNN_TYPE_FP32, chw, sizeof chw));
  wnn_named_tensor_list outs;
  if (wnn_compute(context, &in, 1, &outs, &err)) return nn_failed("compute", err, &inputs);
  if (outs.len == 0) {
    say(kModel, " gave no output", (const char*)0);
    return fail(WP_FAILED, &inputs);
  }
  wnn_bytes logits = wnn_tensor_data(outs.ptr[0].tensor);
  wnn_named_tensor_list_free(&outs);
  if (logits.len != CLASSES * sizeof(float)) {
    char n[12];
    say(kModel, " gave ", decimal(logits.len, n), " bytes, not 1000 FP32 logits", (const char*)0);
    free(logits.ptr);
    return fail(WP_FAILED, &inputs);
  }
  const float* x = (const float*)logits.ptr;
  float max = x[0];
  for (int i = 1; i < CLASSES; ++i)
    if (x[i] > max) max = x[i];
  double sum = 0;
  for (int i = 0; i < CLASSES; ++i) sum += exp((double)(x[i] - max));
  int64_t classes[TOP];
  float scores[TOP];
  for (int k = 0; k < TOP; ++k) {
    int best = -1;
    for (int i = 0; i < CLASSES; ++i) {
      int taken = 0;
      for (int j = 0; j < k; ++j) taken |= classes[j] == i;
      if (!taken && (best < 0 || x[i] > x[best])) best = i;
    }
    classes[k] = best;
    scores[k] = (float)(exp((double)(x[best] - max)) / sum);
  }
  free(logits.ptr);

  wp_tensor* out = malloc(2 * sizeof(wp_tensor));
  out[0] = make_output("classes", WP_I64, classes, sizeof classes);
  out[1] = make_output("scores", WP_FP32, scores, sizeof scores);
  result.is_err = 0;
  result.val.ok.ptr = out;
  result.val.ok.len = 2;
  return &result;
}

/* After the host has read infer's answer: the outputs are the guest's to free. */
WP_EXPORT_POST_INFER void post_infer(wp_result* r) {
  if (!r->is_err) wp_tensors_free(&r->val.ok);
}
