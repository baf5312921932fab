// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * wit_classify_digits: guest/examples/classify_digits.c through the WIT interface wasi:nn, as a
 * command component. The same source builds three guests:
 *   wit_classify_digits  wasi:nn@0.2.0-rc-2024-10-28: compute([(INPUT, tensor)]) -> outputs
 *   wit_digits_0819      wasi:nn@0.2.0-rc-2024-08-19: set-input(INPUT), compute(), get-output(OUTPUT)
 *   wit_digits_0625      wasi:nn@0.2.0-rc-2024-06-25: the same as 08-19
 *
 *   GUEST [--encoding E] [--input NAME] [--output NAME] MODEL|name:NAME X.f32 Y.u8 [LOGITS_OUT.f32]
 *
 * MODEL is a model file loaded with `load` (with --encoding E, one of openvino onnx tensorflow
 * pytorch tensorflowlite ggml autodetect; default onnx, or openvino for a MODEL ending in .xml,
 * which is loaded as two builders: the .xml and the .bin beside it), or name:NAME loaded with
 * `load-by-name`. X holds N rows of 64 floats (pixel / 16), Y the N labels. Each row is one
 * inference on a [1, 64] FP32 tensor named INPUT (--input, default "input"). The logits are read
 * from the output named OUTPUT (--output; default: 10-28 takes the first output of the list
 * whatever its name, 08-19/06-25 ask for "logits"). LOGITS_OUT, if given, receives all N x 10
 * output floats.
 *
 * stdout is classify_digits.c's, byte for byte:
 *   digit  I: predicted P, label L[  <- wrong]     (the first 10 rows)
 *   accuracy: C/N = PP.PP%
 * stderr, once at the end: "output: NAME dims [D0, D1] type T" (T a WIT tensor-type name).
 * Exit 0; 2 for bad arguments or unreadable files; 1 for a wasi:nn error (reported on stderr as
 * "GUEST: WHAT failed: CODE-NAME: DATA") or an unexpected output.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(WASI_NN_WIT_2024_08_19) || defined(WASI_NN_WIT_2024_06_25)
#include "wasi_nn_wit_legacy.h"
#define WIT_LEGACY 1
#else
#include "wasi_nn_wit.h"
#define WIT_LEGACY 0
#endif
#include "wit_guest_util.h"

#ifndef GUEST_NAME
#define GUEST_NAME "wit_classify_digits"
#endif

static void usage(void) {
  fprintf(stderr, "usage: " GUEST_NAME
                  " [--encoding E] [--input NAME] [--output NAME] MODEL|name:NAME X.f32 Y.u8 "
                  "[LOGITS_OUT.f32]\n");
}

/* "output: NAME dims [..] type T" for the tensor T named NAME. */
static void describe_output(const char* name, uint32_t name_len, wnn_tensor t) {
  wnn_u32_list dims = wnn_tensor_dimensions(t);
  const char* ty = wnn_tensor_type_name(wnn_tensor_ty(t));
  fprintf(stderr, "output: %.*s dims [", (int)name_len, name);
  for (uint32_t i = 0; i < dims.len; ++i) fprintf(stderr, "%s%u", i ? ", " : "", dims.ptr[i]);
  fprintf(stderr, "] type %s\n", ty ? ty : "?");
  free(dims.ptr);
}

int main(int argc, char** argv) {
  int encoding = -1;
  const char* input_name = "input";
  const char* output_name = WIT_LEGACY ? "logits" : NULL;
  int a = 1;
#ifdef WASI_NN_WIT_2024_06_25
  /* 06-25's error constructor, round-tripped through the host: "error constructor: not-found: probe". */
  {
    char text[256];
    wg_error_text(wnn_error_new(WNN_ERROR_NOT_FOUND, "probe", 5), text, sizeof text);
    fprintf(stderr, "error constructor: %s\n", text);
  }
#endif
  for (; a < argc && strncmp(argv[a], "--", 2) == 0; a += 2) {
    if (a + 1 >= argc) {
      usage();
      return 2;
    }
    if (strcmp(argv[a], "--encoding") == 0) {
      encoding = wnn_encoding_from_name(argv[a + 1]);
      if (encoding < 0) {
        fprintf(stderr, GUEST_NAME ": unknown encoding %s\n", argv[a + 1]);
        return 2;
      }
    } else if (strcmp(argv[a], "--input") == 0) {
      input_name = argv[a + 1];
    } else if (strcmp(argv[a], "--output") == 0) {
      output_name = argv[a + 1];
    } else {
      usage();
      return 2;
    }
  }
  if (argc - a < 3) {
    usage();
    return 2;
  }
  const char *model = argv[a], *x_path = argv[a + 1], *y_path = argv[a + 2];
  const char* logits_path = argc - a > 3 ? argv[a + 3] : NULL;
  if (encoding < 0) encoding = wg_ends_with(model, ".xml") ? WNN_ENCODING_OPENVINO : WNN_ENCODING_ONNX;

  size_t x_len = 0, y_len = 0;
  float* x = (float*)wg_read_all(x_path, &x_len);
  unsigned char* y = wg_read_all(y_path, &y_len);
  if (!x || !y || x_len != y_len * 64 * sizeof(float)) {
    fprintf(stderr, GUEST_NAME ": cannot read %s and %s as N x 64 floats and N labels\n", x_path, y_path);
    return 2;
  }
  const size_t n = y_len;

  wnn_graph graph;
  wnn_context ctx;
  wnn_error err;
  int r = wg_load_model(GUEST_NAME, model, (wnn_graph_encoding)encoding, &graph, &err);
  if (r == 2) return 2;
  if (r) {
    wg_report(GUEST_NAME, strncmp(model, "name:", 5) == 0 ? "load-by-name" : "load", err);
    return 1;
  }
  if (wnn_init_execution_context(graph, &ctx, &err)) {
    wg_report(GUEST_NAME, "init-execution-context", err);
    return 1;
  }

  float* logits = malloc(n * 10 * sizeof(float));
  const uint32_t dims[2] = {1, 64};
  size_t correct = 0;
  for (size_t i = 0; i < n; ++i) {
    wnn_tensor in = wnn_tensor_new(dims, 2, WNN_TYPE_FP32, x + i * 64, 64 * sizeof(float));
    wnn_tensor out;
#if WIT_LEGACY
    if (wnn_set_input(ctx, input_name, (uint32_t)strlen(input_name), in, &err)) {
      wg_report(GUEST_NAME, "set-input", err);
      return 1;
    }
    if (wnn_compute(ctx, &err)) {
      wg_report(GUEST_NAME, "compute", err);
      return 1;
    }
    if (wnn_get_output(ctx, output_name, (uint32_t)strlen(output_name), &out, &err)) {
      wg_report(GUEST_NAME, "get-output", err);
      return 1;
    }
    if (i == n - 1) describe_output(output_name, (uint32_t)strlen(output_name), out);
#else
    wnn_named_tensor input = wnn_named(input_name, in);
    wnn_named_tensor_list outputs;
    if (wnn_compute(ctx, &input, 1, &outputs, &err)) {
      wg_report(GUEST_NAME, "compute", err);
      return 1;
    }
    int k = output_name ? wnn_find_output(&outputs, output_name) : (outputs.len ? 0 : -1);
    if (k < 0) {
      fprintf(stderr, GUEST_NAME ": compute returned %u outputs, none %s%s\n", outputs.len,
              output_name ? "named " : "at all", output_name ? output_name : "");
      return 1;
    }
    out = outputs.ptr[k].tensor;
    outputs.ptr[k].tensor = 0; /* taken: dropped below */
    if (i == n - 1) describe_output(outputs.ptr[k].name, outputs.ptr[k].name_len, out);
    wnn_named_tensor_list_free(&outputs);
#endif
    wnn_bytes data = wnn_tensor_data(out);
    wnn_tensor_drop(out);
    if (data.len != 10 * sizeof(float)) {
      fprintf(stderr, GUEST_NAME ": expected 40 output bytes, got %u\n", data.len);
      return 1;
    }
    float* row = logits + i * 10;
    memcpy(row, data.ptr, 10 * sizeof(float));
    free(data.ptr);
    int best = 0;
    for (int c = 1; c < 10; ++c)
      if (row[c] > row[best]) best = c;
    correct += best == y[i];
    if (i < 10) printf("digit %2zu: predicted %d, label %d%s\n", i, best, y[i], best == y[i] ? "" : "  <- wrong");
  }
  printf("accuracy: %zu/%zu = %.2f%%\n", correct, n, 100.0 * (double)correct / (double)n);

  if (logits_path) {
    FILE* f = fopen(logits_path, "wb");
    if (!f || fwrite(logits, sizeof(float), n * 10, f) != n * 10 || fclose(f) != 0) {
      fprintf(stderr, GUEST_NAME ": cannot write %s\n", logits_path);
      return 1;
    }
  }
  wnn_context_drop(ctx);
  wnn_graph_drop(graph);
  free(logits);
  free(x);
  free(y);
  return 0;
}
