// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * wit_guest_util.h: small helpers shared by the command component guests of guest/components
 * (files, WIT error reporting, loading a model file). Include after wasi_nn_wit.h or
 * wasi_nn_wit_legacy.h.
 */
#ifndef WIT_GUEST_UTIL_H_
#define WIT_GUEST_UTIL_H_

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The whole file, or NULL; *len receives its size. */
static inline unsigned char* wg_read_all(const char* path, size_t* len) {
  FILE* f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char* buf = malloc(n > 0 ? (size_t)n : 1);
  if (buf && n > 0 && fread(buf, 1, (size_t)n, f) != (size_t)n) {
    free(buf);
    buf = NULL;
  }
  fclose(f);
  *len = n > 0 ? (size_t)n : 0;
  return buf;
}

static inline int wg_ends_with(const char* s, const char* suffix) {
  size_t a = strlen(s), b = strlen(suffix);
  return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* "CODE-NAME: DATA" of a WIT error into buf (the error is dropped); returns the code. */
static inline int wg_error_text(wnn_error err, char* buf, size_t size) {
  int code = (int)wnn_error_get_code(err);
  wnn_string data = wnn_error_get_data(err);
  const char* name = wnn_error_code_name(code);
  if (name)
    snprintf(buf, size, "%s: %.*s", name, (int)data.len, data.ptr ? data.ptr : "");
  else
    snprintf(buf, size, "error-code-%d: %.*s", code, (int)data.len, data.ptr ? data.ptr : "");
  free(data.ptr);
  wnn_error_drop(err);
  return code;
}

/* Prints "PROG: WHAT failed: CODE-NAME: DATA" on stderr and drops the error. */
static inline void wg_report(const char* prog, const char* what, wnn_error err) {
  char text[1024];
  wg_error_text(err, text, sizeof text);
  fprintf(stderr, "%s: %s failed: %s\n", prog, what, text);
}

/* Loads a graph: "name:NAME" with load-by-name, else the file MODEL with load (for a MODEL
 * ending in .xml two builders, the .xml and the .bin beside it, as OpenVINO wants).
 * Returns 0, 1 on a WIT error (*err set), or 2 when a file cannot be read (reported). */
static inline int wg_load_model(const char* prog, const char* model, wnn_graph_encoding encoding, wnn_graph* graph,
                                wnn_error* err) {
  if (strncmp(model, "name:", 5) == 0) {
    const char* name = model + 5;
    return wnn_load_by_name(name, (uint32_t)strlen(name), graph, err);
  }
  wnn_bytes builders[2];
  uint32_t count = 1;
  size_t len = 0;
  builders[0].ptr = wg_read_all(model, &len);
  builders[0].len = (uint32_t)len;
  if (!builders[0].ptr) {
    fprintf(stderr, "%s: cannot read %s\n", prog, model);
    return 2;
  }
  if (wg_ends_with(model, ".xml")) {
    size_t n = strlen(model);
    char* bin = malloc(n + 1);
    memcpy(bin, model, n - 4);
    strcpy(bin + n - 4, ".bin");
    builders[1].ptr = wg_read_all(bin, &len);
    builders[1].len = (uint32_t)len;
    if (!builders[1].ptr) {
      fprintf(stderr, "%s: cannot read %s (the weights beside %s)\n", prog, bin, model);
      return 2;
    }
    free(bin);
    count = 2;
  }
  int r = wnn_load(builders, count, encoding, WNN_TARGET_CPU, graph, err);
  for (uint32_t i = 0; i < count; ++i) free(builders[i].ptr);
  return r;
}

/* --encoding E and --target T of the command guests, in WIT's numbering: an unknown name ends
 * the guest ("PROG: unknown encoding E", "PROG: unknown target T (cpu gpu tpu)"; exit 2). */
static inline int wg_encoding_arg(const char* prog, const char* v) {
  const int encoding = wnn_encoding_from_name(v);
  if (encoding >= 0) return encoding;
  fprintf(stderr, "%s: unknown encoding %s\n", prog, v);
  exit(2);
}
static inline int wg_target_arg(const char* prog, const char* v) {
  if (!strcmp(v, "cpu")) return WNN_TARGET_CPU;
  if (!strcmp(v, "gpu")) return WNN_TARGET_GPU;
  if (!strcmp(v, "tpu")) return WNN_TARGET_TPU;
  fprintf(stderr, "%s: unknown target %s (cpu gpu tpu)\n", prog, v);
  exit(2);
}

#define WG_MAX_BUILDERS 16

/* Loads NAME with load-by-name or, when NAME is NULL, FILES (comma-separated, one graph builder
 * each) with load. Returns 0, or 1 on a WIT error (*err set); a file it cannot read, or more than
 * WG_MAX_BUILDERS, ends the guest ("PROG: cannot read F"; exit 2). */
static inline int wg_load_graph(const char* prog, const char* files, const char* name, int encoding, int target,
                                wnn_graph* graph, wnn_error* err) {
  if (name) return wnn_load_by_name(name, (uint32_t)strlen(name), graph, err);
  wnn_bytes builders[WG_MAX_BUILDERS];
  uint32_t count = 0;
  char* list = strdup(files);
  for (char* f = strtok(list, ","); f; f = strtok(NULL, ",")) {
    if (count == WG_MAX_BUILDERS) {
      fprintf(stderr, "%s: more than %d model files\n", prog, WG_MAX_BUILDERS);
      exit(2);
    }
    size_t len = 0;
    builders[count].ptr = wg_read_all(f, &len);
    if (!builders[count].ptr) {
      fprintf(stderr, "%s: cannot read %s\n", prog, f);
      exit(2);
    }
    builders[count++].len = (uint32_t)len;
  }
  const int r = wnn_load(builders, count, (wnn_graph_encoding)encoding, (wnn_execution_target)target, graph, err);
  for (uint32_t b = 0; b < count; ++b) free(builders[b].ptr);
  free(list);
  return r;
}

/* For the digits guests: reads X.f32 (N rows of 64 floats, at least one; *rows = N), loads MODEL
 * (onnx, or name:NAME) and, when ctx is not NULL, makes an execution context. Returns 0, 1 on a
 * wasi:nn error, or 2 when a file cannot be read; both reported on stderr as PROG's. */
static inline int wg_open_digits(const char* prog, const char* model, const char* x_path, float** x, size_t* rows,
                                 wnn_graph* graph, wnn_context* ctx) {
  size_t x_len = 0;
  *x = (float*)wg_read_all(x_path, &x_len);
  *rows = *x ? x_len / (64 * sizeof(float)) : 0;
  if (*rows == 0) {
    fprintf(stderr, "%s: cannot read rows of 64 floats from %s\n", prog, x_path);
    return 2;
  }
  wnn_error err;
  int r = wg_load_model(prog, model, WNN_ENCODING_ONNX, graph, &err);
  if (r == 1) wg_report(prog, strncmp(model, "name:", 5) == 0 ? "load-by-name" : "load", err);
  if (r) return r;
  if (ctx && wnn_init_execution_context(*graph, ctx, &err)) {
    wg_report(prog, "init-execution-context", err);
    return 1;
  }
  return 0;
}

#endif /* WIT_GUEST_UTIL_H_ */
