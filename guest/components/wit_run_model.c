// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * wit_run_model: a generic named-I/O driver for wasi:nn@0.2.0-rc-2024-10-28 (command component),
 * the WIT counterpart of guest/examples/run_model.c.
 *
 *   wit_run_model (--model FILE[,FILE...] [--encoding E] [--target T] | --name NAME)
 *                 [--input NAME:TYPE:DIMS:FILE]... [--output-dir DIR] [--repeat N]
 *
 *   --model FILE[,FILE...]       the model's files, one graph builder each, loaded with `load`
 *   --encoding E                 openvino onnx tensorflow pytorch tensorflowlite ggml autodetect
 *                                (default onnx)
 *   --target T                   cpu gpu tpu (default cpu)
 *   --name NAME                  load-by-name
 *   --input NAME:TYPE:DIMS:FILE  one named input tensor: TYPE fp16 fp32 fp64 bf16 u8 i32 i64
 *                                (or f16 f32 f64, as `wasinn models inspect` prints them),
 *                                DIMS like 1x3x224x224, empty for a scalar (NAME:i64::FILE); the
 *                                tensor's data is FILE's bytes. Split at the last three colons,
 *                                so NAME may contain colons ("x:0:fp32:1x2:in.bin"). No size
 *                                check here: mismatches are the host's to find.
 *   --output-dir DIR             write each output's data to DIR/<name>.bin ('/' in a name
 *                                becomes '_')
 *   --repeat N                   compute N times, each with fresh input tensors (default 1)
 *   --fetch each|last            read every output's data after every compute, or (default) only
 *                                after the last (benchmarks: each times a whole inference)
 *
 * stdout: after the last compute, one line per output in the order the host returned them:
 *   output NAME TYPE DIMS BYTES       (TYPE as above, DIMS like 1x10 or "-" for a scalar)
 * On a wasi:nn error: "error CODE-NAME: DATA" on stdout and exit 3 (a component's non-zero
 * exit reaches the host as 1; read the line). Own errors (bad arguments, unreadable or
 * unwritable files): one "wit_run_model: ..." line on stderr and exit 2.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wasi_nn_wit.h"
#include "wit_guest_util.h"

#define MAX_INPUTS 64
#define MAX_RANK 16

static const char* const kTypeNames[WNN_TYPE_COUNT] = {"fp16", "fp32", "fp64", "bf16", "u8", "i32", "i64"};
/* The same types as `wasinn models inspect` and run_model write them: accepted too. */
static const char* const kShortTypeNames[WNN_TYPE_COUNT] = {"f16", "f32", "f64", "bf16", "u8", "i32", "i64"};

static void die(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("wit_run_model: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  exit(2);
}

static void wit_error(wnn_error err) {
  char text[4096];
  wg_error_text(err, text, sizeof text);
  printf("error %s\n", text);
  fflush(stdout);
  exit(3);
}

typedef struct {
  char* name;
  wnn_tensor_type ty;
  uint32_t dims[MAX_RANK];
  uint32_t rank;
  unsigned char* data;
  uint32_t len;
} input_spec;

static void parse_input(const char* arg, input_spec* in) {
  char* s = strdup(arg);
  char* c3 = strrchr(s, ':');
  if (!c3) die("--input %s: expected NAME:TYPE:DIMS:FILE", arg);
  *c3 = '\0';
  char* c2 = strrchr(s, ':');
  if (!c2) die("--input %s: expected NAME:TYPE:DIMS:FILE", arg);
  *c2 = '\0';
  char* c1 = strrchr(s, ':');
  if (!c1) die("--input %s: expected NAME:TYPE:DIMS:FILE", arg);
  *c1 = '\0';
  const char *type = c1 + 1, *dims = c2 + 1, *file = c3 + 1;
  in->name = s;
  int ty = -1;
  for (int t = 0; t < WNN_TYPE_COUNT; ++t)
    if (!strcmp(type, kTypeNames[t]) || !strcmp(type, kShortTypeNames[t])) ty = t;
  if (ty < 0) die("--input %s: unknown type %s (fp16 fp32 fp64 bf16 u8 i32 i64, or f16 f32 f64)", arg, type);
  in->ty = (wnn_tensor_type)ty;
  in->rank = 0;
  for (const char* p = dims; *p;) {
    char* end;
    unsigned long d = strtoul(p, &end, 10);
    if (end == p || (*end && *end != 'x') || in->rank == MAX_RANK || d > 0xffffffffUL)
      die("--input %s: bad dimensions %s (like 1x3x224x224, or empty for a scalar)", arg, dims);
    in->dims[in->rank++] = (uint32_t)d;
    p = *end ? end + 1 : end;
  }
  size_t len = 0;
  in->data = wg_read_all(file, &len);
  if (!in->data) die("cannot read %s", file);
  in->len = (uint32_t)len;
}

int main(int argc, char** argv) {
  const char *models = NULL, *name = NULL, *out_dir = NULL;
  int encoding = WNN_ENCODING_ONNX, target = WNN_TARGET_CPU;
  long repeat = 1;
  int fetch_each = 0;
  input_spec inputs[MAX_INPUTS];
  int n_inputs = 0;
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    if (!strcmp(a, "--help")) {
      fputs(
          "usage: wit_run_model (--model FILE[,FILE...] [--encoding E] [--target T] | --name NAME)\n"
          "                     [--input NAME:TYPE:DIMS:FILE]... [--output-dir DIR] [--repeat N] [--fetch each|last]\n",
          stdout);
      return 0;
    }
    if (i + 1 >= argc) die("%s needs a value (try --help)", a);
    const char* v = argv[++i];
    if (!strcmp(a, "--model")) {
      models = v;
    } else if (!strcmp(a, "--name")) {
      name = v;
    } else if (!strcmp(a, "--encoding")) {
      encoding = wg_encoding_arg("wit_run_model", v);
    } else if (!strcmp(a, "--target")) {
      target = wg_target_arg("wit_run_model", v);
    } else if (!strcmp(a, "--input")) {
      if (n_inputs == MAX_INPUTS) die("more than %d inputs", MAX_INPUTS);
      parse_input(v, &inputs[n_inputs++]);
    } else if (!strcmp(a, "--output-dir")) {
      out_dir = v;
    } else if (!strcmp(a, "--fetch")) {
      if (strcmp(v, "each") && strcmp(v, "last")) die("--fetch %s: expected each or last", v);
      fetch_each = !strcmp(v, "each");
    } else if (!strcmp(a, "--repeat")) {
      char* end;
      repeat = strtol(v, &end, 10);
      if (*end || repeat < 1) die("--repeat %s: expected a positive number", v);
    } else {
      die("unknown argument %s (try --help)", a);
    }
  }
  if (!models == !name) die("give --model FILE[,FILE...] or --name NAME");

  wnn_graph graph;
  wnn_context ctx;
  wnn_error err;
  if (wg_load_graph("wit_run_model", models, name, encoding, target, &graph, &err)) wit_error(err);
  if (wnn_init_execution_context(graph, &ctx, &err)) wit_error(err);

  wnn_named_tensor named[MAX_INPUTS];
  wnn_named_tensor_list outputs = {0, 0};
  for (long r = 0; r < repeat; ++r) {
    wnn_named_tensor_list_free(&outputs);
    for (int k = 0; k < n_inputs; ++k) {
      const input_spec* in = &inputs[k];
      named[k] = wnn_named(in->name, wnn_tensor_new(in->dims, in->rank, in->ty, in->data, in->len));
    }
    if (wnn_compute(ctx, named, (uint32_t)n_inputs, &outputs, &err)) wit_error(err);
    for (uint32_t k = 0; fetch_each && r + 1 < repeat && k < outputs.len; ++k)
      free(wnn_tensor_data(outputs.ptr[k].tensor).ptr);
  }

  for (uint32_t k = 0; k < outputs.len; ++k) {
    const wnn_named_tensor* o = &outputs.ptr[k];
    wnn_u32_list dims = wnn_tensor_dimensions(o->tensor);
    wnn_tensor_type ty = wnn_tensor_ty(o->tensor);
    wnn_bytes data = wnn_tensor_data(o->tensor);
    printf("output %.*s %s ", (int)o->name_len, o->name, ty < WNN_TYPE_COUNT ? kTypeNames[ty] : "?");
    if (dims.len == 0) fputs("-", stdout);
    for (uint32_t d = 0; d < dims.len; ++d) printf("%s%u", d ? "x" : "", dims.ptr[d]);
    printf(" %u\n", data.len);
    if (out_dir) {
      size_t n = strlen(out_dir) + o->name_len + 6;
      char* path = malloc(n);
      snprintf(path, n, "%s/%.*s.bin", out_dir, (int)o->name_len, o->name);
      for (char* p = path + strlen(out_dir) + 1; *p; ++p)
        if (*p == '/') *p = '_';
      FILE* f = fopen(path, "wb");
      if (!f || (data.len && fwrite(data.ptr, 1, data.len, f) != data.len) || fclose(f) != 0)
        die("cannot write %s", path);
      free(path);
    }
    free(data.ptr);
    free(dims.ptr);
  }
  wnn_named_tensor_list_free(&outputs);
  wnn_context_drop(ctx);
  wnn_graph_drop(graph);
  for (int k = 0; k < n_inputs; ++k) {
    free(inputs[k].name);
    free(inputs[k].data);
  }
  return 0;
}
