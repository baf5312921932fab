// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * wit_errors: provokes the wasi:nn@0.2.0-rc-2024-10-28 errors a guest can cause on the digits
 * model, each followed by a correct inference that shows the host recovered (command component).
 *
 *   wit_errors MODEL X.f32 [--limits TENSOR_BYTES MODEL_BYTES]
 *
 * MODEL is the digits ONNX model (loaded with `load`, encoding onnx; or name:NAME with
 * load-by-name); X its input rows (row 0 is used). First one correct inference:
 *   baseline: class C
 * then, in this order, each case and a recovery on the same execution context:
 *   case unknown-input: CODE-NAME: DATA      compute([("no-such-input", row)])
 *   case duplicate-input: ...                compute([("input", row), ("input", row)])
 *   case no-inputs: ...                      compute([]) (the required input is missing)
 *   case wrong-type: ...                     ("input", U8 [1, 64], 64 bytes) for an FP32 input
 *   case bad-length: ...                     ("input", FP32 [1, 64], 10 bytes): the constructor
 *                                            cannot fail in WIT, so compute must
 *   case garbage-load: ...                   load([64 bytes of garbage], onnx, cpu)
 *   case unknown-name: ...                   load-by-name("wit-errors-no-such-model")
 *   case too-large-tensor: ...               (with --limits, the host's --max-tensor-bytes and
 *                                            --max-model-bytes) a tensor of more bytes than
 *                                            TENSOR_BYTES: made, then refused by compute
 *   case too-large-model: ...                load of MODEL_BYTES + 1 bytes
 *   recover NAME: class C                    after each case
 * A case that got no error prints "case NAME: no error" (and a new graph or context it got is
 * dropped). Finally "errors: E/N cases failed as they should, R/N recoveries right" (N: 7, or 9
 * with --limits).
 * Exit 0 when every case got an error and every recovery gave the baseline class; 1 otherwise;
 * 2 for bad arguments. (An encoding whose backend is not installed is not tested: which one
 * that is depends on the host's build.)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wasi_nn_wit.h"
#include "wit_digits.h"
#include "wit_guest_util.h"

#define N_CASES 9

static wnn_context ctx;
static const float* row;

/* One inference on row 0; the class, or -1 (reported) on an error or a strange output. */
static int classify(const char* what) {
  wnn_named_tensor in = wg_digits_input(row);
  wnn_named_tensor_list outputs;
  wnn_error err;
  if (wnn_compute(ctx, &in, 1, &outputs, &err)) {
    char text[1024];
    wg_error_text(err, text, sizeof text);
    printf("%s: compute failed: %s\n", what, text);
    return -1;
  }
  int best = wg_digits_first_class(&outputs);
  if (best < 0) printf("%s: %u outputs, the first not 10 floats\n", what, outputs.len);
  wnn_named_tensor_list_free(&outputs);
  return best;
}

/* Prints the case's line; 1 if it failed as it should. */
static int expect_error(const char* name, int failed, wnn_error err) {
  if (!failed) {
    printf("case %s: no error\n", name);
    return 0;
  }
  char text[1024];
  wg_error_text(err, text, sizeof text);
  printf("case %s: %s\n", name, text);
  return 1;
}

/* compute with these inputs; an unexpected success's outputs are dropped. */
static int compute_case(const char* name, wnn_named_tensor* inputs, uint32_t n) {
  wnn_named_tensor_list outputs;
  wnn_error err = 0;
  int failed = wnn_compute(ctx, inputs, n, &outputs, &err);
  if (!failed) wnn_named_tensor_list_free(&outputs);
  return expect_error(name, failed, err);
}

int main(int argc, char** argv) {
  size_t tensor_limit = 0, model_limit = 0;
  if (argc == 6 && strcmp(argv[3], "--limits") == 0) {
    tensor_limit = strtoul(argv[4], NULL, 10);
    model_limit = strtoul(argv[5], NULL, 10);
  } else if (argc != 3) {
    fprintf(stderr, "usage: wit_errors MODEL|name:NAME X.f32 [--limits TENSOR_BYTES MODEL_BYTES]\n");
    return 2;
  }
  const int n_cases = tensor_limit ? N_CASES : N_CASES - 2;
  float* x;
  size_t rows;
  wnn_graph graph;
  wnn_error err;
  int r = wg_open_digits("wit_errors", argv[1], argv[2], &x, &rows, &graph, &ctx);
  if (r) return r;
  row = x;
  const int baseline = classify("baseline");
  if (baseline < 0) return 1;
  printf("baseline: class %d\n", baseline);

  static const char* const names[N_CASES] = {"unknown-input", "duplicate-input",  "no-inputs",
                                             "wrong-type",    "bad-length",       "garbage-load",
                                             "unknown-name",  "too-large-tensor", "too-large-model"};
  int errors = 0, recoveries = 0;
  for (int c = 0; c < n_cases; ++c) {
    const char* name = names[c];
    wnn_named_tensor in[2];
    switch (c) {
      case 0:
        in[0] = wg_digits_input(row);
        in[0].name = "no-such-input";
        in[0].name_len = 13;
        errors += compute_case(name, in, 1);
        break;
      case 1:
        in[0] = wg_digits_input(row);
        in[1] = wg_digits_input(row);
        errors += compute_case(name, in, 2);
        break;
      case 2: errors += compute_case(name, in, 0); break;
      case 3: {
        unsigned char bytes[64];
        for (int i = 0; i < 64; ++i) bytes[i] = (unsigned char)(row[i] * 16.0f);
        in[0] = wnn_named("input", wnn_tensor_new(wg_digits_dims, 2, WNN_TYPE_U8, bytes, sizeof bytes));
        errors += compute_case(name, in, 1);
        break;
      }
      case 4:
        in[0] = wnn_named("input", wnn_tensor_new(wg_digits_dims, 2, WNN_TYPE_FP32, row, 10));
        errors += compute_case(name, in, 1);
        break;
      case 5: {
        unsigned char garbage[64];
        for (int i = 0; i < 64; ++i) garbage[i] = (unsigned char)(0xA5 ^ (i * 37));
        wnn_bytes builder = {garbage, sizeof garbage};
        wnn_graph g;
        int failed = wnn_load(&builder, 1, WNN_ENCODING_ONNX, WNN_TARGET_CPU, &g, &err);
        if (!failed) wnn_graph_drop(g);
        errors += expect_error(name, failed, err);
        break;
      }
      case 6: {
        static const char kName[] = "wit-errors-no-such-model";
        wnn_graph g;
        int failed = wnn_load_by_name(kName, sizeof kName - 1, &g, &err);
        if (!failed) wnn_graph_drop(g);
        errors += expect_error(name, failed, err);
        break;
      }
      case 7: {
        /* Whole rows of 64 floats, one row more than the limit holds. */
        const uint32_t rows_over = (uint32_t)(tensor_limit / 256 + 1);
        float* big = calloc((size_t)rows_over * 64, sizeof(float));
        if (!big) return 2;
        const uint32_t dims[2] = {rows_over, 64};
        in[0] = wnn_named("input", wnn_tensor_new(dims, 2, WNN_TYPE_FP32, big, (size_t)rows_over * 256));
        free(big);
        errors += compute_case(name, in, 1);
        break;
      }
      case 8: {
        unsigned char* bytes = calloc(model_limit + 1, 1);
        if (!bytes) return 2;
        wnn_bytes builder = {bytes, model_limit + 1};
        wnn_graph g;
        int failed = wnn_load(&builder, 1, WNN_ENCODING_ONNX, WNN_TARGET_CPU, &g, &err);
        if (!failed) wnn_graph_drop(g);
        free(bytes);
        errors += expect_error(name, failed, err);
        break;
      }
    }
    char what[64];
    snprintf(what, sizeof what, "recover %s", name);
    int cls = classify(what);
    if (cls >= 0) printf("recover %s: class %d\n", name, cls);
    recoveries += cls == baseline;
  }
  printf("errors: %d/%d cases failed as they should, %d/%d recoveries right\n", errors, n_cases, recoveries, n_cases);
  wnn_context_drop(ctx);
  wnn_graph_drop(graph);
  free(x);
  return errors == n_cases && recoveries == n_cases ? 0 : 1;
}
