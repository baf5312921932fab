// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * pipeline_faults: a pipeline component (wit/wasinn-pipeline) that misbehaves on request, for
 * the server's error paths (tests/oip/pipeline_test.py). Input "mode": INT32 [1]; output "echo":
 * INT32 [1], the mode, when it answers at all.
 *   0 answers       1 invalid-input    2 failed        3 traps (unreachable)
 *   4 spins until the deadline stops it                 5 an output whose bytes do not fit its dims
 *   6 loads a model that is not registered (a wasi:nn error, as failed)
 * A reactor with no WASI imports.
 */
#include <string.h>

#include "wasi_nn_wit.h"
#include "wasinn_pipeline.h"

static const int64_t kOne[] = {1};
static const wp_tensor_spec kInputs[] = {{{"mode", 4}, WP_I32, kOne, 1}};
static const wp_tensor_spec kOutputs[] = {{{"echo", 4}, WP_I32, kOne, 1}};

WP_EXPORT_DESCRIBE wp_description* describe(void) {
  static wp_description d = {kInputs, 1, kOutputs, 1};
  return &d;
}

/* None: mode 6's load-by-name of "no-such-model" is a wasi:nn error this guest reports itself. */
WP_EXPORT_MODELS wp_string_list* models(void) {
  static wp_string_list none = {0, 0};
  return &none;
}

static wp_result result;

static wp_result* error(uint8_t code, const char* text) {
  result.is_err = 1;
  result.val.err.code = code;
  result.val.err.message.ptr = (char*)text;
  result.val.err.message.len = (uint32_t)strlen(text);
  return &result;
}

static volatile int spin = 1;

WP_EXPORT_INFER wp_result* infer(wp_tensor* ptr, uint32_t len) {
  wp_tensor_list inputs = {ptr, len};
  int32_t mode = -1;
  if (len == 1 && ptr[0].data_len == 4) memcpy(&mode, ptr[0].data, 4);
  wp_tensors_free(&inputs);
  switch (mode) {
    case 0:
    case 5: {
      wp_tensor* out = malloc(sizeof(wp_tensor));
      out->name.len = 4;
      out->name.ptr = malloc(4);
      memcpy(out->name.ptr, "echo", 4);
      out->dims = malloc(sizeof(uint32_t));
      out->dims[0] = 1;
      out->rank = 1;
      out->type = WP_I32;
      out->data_len = mode == 5 ? 3 : 4;
      out->data = malloc(4);
      memcpy(out->data, &mode, 4);
      result.is_err = 0;
      result.val.ok.ptr = out;
      result.val.ok.len = 1;
      return &result;
    }
    case 1: return error(WP_INVALID_INPUT, "mode 1 is refused as invalid input");
    case 2: return error(WP_FAILED, "mode 2 fails");
    case 3: __builtin_trap();
    case 4:
      while (spin) {
      }
      return error(WP_FAILED, "unreachable");
    case 6: {
      wnn_graph g;
      wnn_error err;
      if (wnn_load_by_name("no-such-model", 13, &g, &err)) {
        wnn_error_drop(err);
        return error(WP_FAILED, "load-by-name no-such-model failed");
      }
      wnn_graph_drop(g);
      return error(WP_FAILED, "load-by-name no-such-model succeeded");
    }
    default: return error(WP_INVALID_INPUT, "mode must be 0 to 6");
  }
}

WP_EXPORT_POST_INFER void post_infer(wp_result* r) {
  if (!r->is_err) wp_tensors_free(&r->val.ok);
}
