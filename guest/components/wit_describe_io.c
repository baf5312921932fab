// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * wit_describe_io: runs any model knowing nothing of it but what wasinn:nn-ext/describe says
 * (command component over wasi:nn@0.2.0-rc-2024-10-28); the component twin of
 * guest/tests/describe_io.c, for tests/nn_ext.
 *
 *   wit_describe_io (--model FILE[,FILE...] [--encoding E] [--target T] | --name NAME)
 *                   [--out DIR] [--dims I=DIMS]... [--type I=TYPE]... [--no-compute] [--properties]
 *
 * Flags as describe_io's (--type also takes bf16; --properties goes through
 * wasinn:nn-ext/properties). stdout: one JSON object whose "inputs" and "outputs" are shaped as the
 * arrays of `wasinn models inspect --json MODEL` ("type": f16 f32 f64 bf16 u8 i32 i64, or null for
 * none; "shape": null for none). The inputs are built from the descriptions (dynamic dimensions
 * 1, data from wasinn_io_fill.h), named by their described names (the decimal index for ""), and
 * computed; each output is matched to its description by name (or index) and written to
 * DIR/output_<i>.bin, i its description's index, the input fed as i to DIR/input_<i>.bin. "fed"
 * lists the tensors sent, "outputs_read" what came back ({"index", "name", "type", "dims",
 * "bytes"}), "unmatched" any output name that matched no description; "skipped" says why nothing
 * was computed, "error" holds {"step", "code", "data"} of a failed wasi:nn call.
 *
 * Exit status: 0; 1 after a wasi:nn error (the JSON has "error"; a component's non-zero exit
 * reaches the host as 1 anyway); 2 for bad arguments or files (a line on stderr).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wasi_nn_wit.h"
#include "wasinn_nn_ext_wit.h"
#include "wit_guest_util.h"
#define DIO_PROG "wit_describe_io"
#include "wasinn_describe_io.h"

static const char* const TYPE_NAMES[WNN_TYPE_COUNT] = {"f16", "f32", "f64", "bf16", "u8", "i32", "i64"};
/* By WIT's tensor-type case. */
static const fill_type TYPE_FILL[WNN_TYPE_COUNT] = {FILL_F16, FILL_F32, FILL_F64, FILL_BF16,
                                                    FILL_U8,  FILL_I32, FILL_I64};
static const struct dio_types TYPES = {TYPE_NAMES, TYPE_FILL, WNN_TYPE_COUNT};

static void wit_failed(const char* step, wnn_error err) {
  const int code = (int)wnn_error_get_code(err);
  wnn_string data = wnn_error_get_data(err);
  const char* code_name = wnn_error_code_name(code);
  dio_put(",\n\"error\": {\"step\": \"%s\", \"code\": \"%s\", \"data\": ", step, code_name ? code_name : "?");
  dio_put_string(data.ptr ? data.ptr : "", data.len);
  dio_put("}");
  fprintf(stderr, "wit_describe_io: %s failed: %s: %.*s\n", step, code_name ? code_name : "?", (int)data.len,
          data.ptr ? data.ptr : "");
  free(data.ptr);
  wnn_error_drop(err);
  dio_finish_json();
  exit(1);
}

static void write_all(const char* dir, const char* kind, uint32_t index, const void* data, size_t n) {
  const char* failed = dio_write_bin(dir, kind, index, data, n);
  if (failed) dio_die(2, "cannot write %s", failed);
}

/* A description list as struct dio_desc (malloc'd); checks the option discriminants. */
static struct dio_desc* to_dio(const char* key, const wnx_description_list* l) {
  struct dio_desc* ds = dio_xmalloc(sizeof(struct dio_desc) * l->len);
  for (uint32_t i = 0; i < l->len; ++i) {
    const wnx_tensor_description* d = &l->ptr[i];
    if (d->has_type > 1 || d->has_dims > 1) dio_die(2, "%s %u: an option discriminant is not 0 or 1", key, i);
    if (d->has_type && d->type >= WNN_TYPE_COUNT) dio_die(2, "%s %u: tensor-type case %u", key, i, d->type);
    ds[i] = (struct dio_desc){d->name, d->name_len, d->has_type ? d->type : -1, d->has_dims, d->rank, d->dims};
  }
  return ds;
}

/* The description's name, or its decimal index when it has none (NUL-terminated, malloc'd). */
static char* tensor_name(const wnx_tensor_description* d, uint32_t index) {
  char* s = dio_xmalloc(d->name_len > 12 ? d->name_len + 1 : 13);
  if (d->name_len) {
    memcpy(s, d->name, d->name_len);
    s[d->name_len] = '\0';
  } else {
    snprintf(s, 13, "%u", index);
  }
  return s;
}

/* "properties": [[NAME, VALUE], ...] in list-properties' order. */
static void put_properties(wnn_graph g) {
  wnx_string_list names = wnx_list_properties(g);
  dio_put(",\n\"properties\": [");
  for (uint32_t i = 0; i < names.len; ++i) {
    wnn_string v = {0, 0};
    wnn_error err;
    if (wnx_get_property(g, names.ptr[i].ptr, names.ptr[i].len, &v, &err)) wit_failed("get-property", err);
    dio_put_property(i == 0, names.ptr[i].ptr, names.ptr[i].len, v.ptr, v.len);
    free(v.ptr);
  }
  dio_put("\n]");
  wnx_string_list_free(&names);
}

static int encoding_or_target(const char* flag, const char* v) {
  return !strcmp(flag, "--encoding") ? wg_encoding_arg(DIO_PROG, v) : wg_target_arg(DIO_PROG, v);
}

int main(int argc, char** argv) {
  static struct dio_args args = {
      .encoding = WNN_ENCODING_ONNX, .target = WNN_TARGET_CPU, .model_words = "FILE[,FILE...]"};
  if (dio_start(argc, argv, &TYPES, encoding_or_target, &args)) return 0;

  wnn_graph graph;
  wnn_error err;
  if (wg_load_graph(DIO_PROG, args.models, args.name, args.encoding, args.target, &graph, &err))
    wit_failed(args.name ? "load-by-name" : "load", err);

  wnx_description_list ins = wnx_inputs(graph), outs = wnx_outputs(graph);
  struct dio_desc *in_descs = to_dio("inputs", &ins), *out_descs = to_dio("outputs", &outs);
  dio_put("\n");
  dio_put_desc_list("inputs", in_descs, ins.len, &TYPES);
  dio_put(",\n");
  dio_put_desc_list("outputs", out_descs, outs.len, &TYPES);
  if (args.properties) put_properties(graph);

  const char* skipped = dio_skip_reason(&args, in_descs, ins.len, "tensor-type");
  if (skipped) {
    dio_finish_skipped(skipped);
    return 0;
  }

  wnn_context ctx;
  if (wnn_init_execution_context(graph, &ctx, &err)) wit_failed("init-execution-context", err);
  wnn_named_tensor* named = dio_xmalloc(sizeof(wnn_named_tensor) * (ins.len ? ins.len : 1));
  char** names = dio_xmalloc(sizeof(char*) * (ins.len ? ins.len : 1));
  dio_put(",\n\"fed\": [");
  for (uint32_t i = 0; i < ins.len; ++i) {
    struct dio_input in;
    dio_build_input(&args, &in_descs[i], i, &TYPES, &in);
    if (args.out_dir) write_all(args.out_dir, "input", i, in.data, in.bytes);
    names[i] = tensor_name(&ins.ptr[i], i);
    dio_put_fed(i, names[i], &in, &TYPES);
    named[i] = wnn_named(names[i], wnn_tensor_new(in.dims, in.rank, (wnn_tensor_type)in.type, in.data, in.bytes));
    free(in.data);
  }
  dio_put("]");
  wnn_named_tensor_list results = {0, 0};
  if (wnn_compute(ctx, named, ins.len, &results, &err)) wit_failed("compute", err);

  dio_put(",\n\"outputs_read\": [");
  int first = 1;
  for (uint32_t i = 0; i < outs.len; ++i) {
    char* want = tensor_name(&outs.ptr[i], i);
    const int at = wnn_find_output(&results, want);
    if (at < 0) {
      dio_put("%s{\"index\": %u, \"name\": ", first ? "" : ", ", i);
      dio_put_string(want, strlen(want));
      dio_put(", \"missing\": true}");
      first = 0;
      free(want);
      continue;
    }
    wnn_named_tensor* o = &results.ptr[at];
    wnn_u32_list dims = wnn_tensor_dimensions(o->tensor);
    const wnn_tensor_type ty = wnn_tensor_ty(o->tensor);
    wnn_bytes data = wnn_tensor_data(o->tensor);
    if (args.out_dir) write_all(args.out_dir, "output", i, data.ptr, data.len);
    dio_put("%s{\"index\": %u, \"name\": ", first ? "" : ", ", i);
    dio_put_string(want, strlen(want));
    dio_put(", \"type\": \"%s\", \"dims\": [", (unsigned)ty < WNN_TYPE_COUNT ? TYPE_NAMES[ty] : "?");
    for (uint32_t k = 0; k < dims.len; ++k) dio_put("%s%u", k ? ", " : "", dims.ptr[k]);
    dio_put("], \"bytes\": %u}", data.len);
    first = 0;
    free(data.ptr);
    free(dims.ptr);
    free(want);
    wnn_tensor_drop(o->tensor);
    o->tensor = 0;
  }
  dio_put("]");
  /* Outputs the host returned under a name no description has. */
  dio_put(",\n\"unmatched\": [");
  first = 1;
  for (uint32_t k = 0; k < results.len; ++k) {
    if (!results.ptr[k].tensor) continue;
    dio_put(first ? "" : ", ");
    dio_put_string(results.ptr[k].name, results.ptr[k].name_len);
    first = 0;
  }
  dio_put("]");
  wnn_named_tensor_list_free(&results);
  wnn_context_drop(ctx);
  wnx_description_list_free(&ins);
  wnx_description_list_free(&outs);
  wnn_graph_drop(graph);
  dio_finish_json();
  return 0;
}
