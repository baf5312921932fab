// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * describe_io: runs any model knowing nothing of it but what wasinn's graph_io_count and
 * graph_io_info (guest/include/wasinn_nn_ext.h) say; the core-module guest of tests/nn_ext.
 *
 *   describe_io (--model FILE[,FILE...] [--encoding E] [--target T] | --name NAME)
 *               [--out DIR] [--dims INDEX=DIMS]... [--type INDEX=TYPE]... [--no-compute]
 *               [--properties]
 *
 *   --model       the model's files, one graph builder each (load); --name: load_by_name
 *   --encoding E  openvino onnx tensorflow pytorch tensorflowlite autodetect ggml (default onnx)
 *   --target T    cpu gpu tpu auto (default cpu)
 *   --out DIR     write DIR/input_<i>.bin (what was fed) and DIR/output_<i>.bin (what came back)
 *   --dims I=DIMS the shape to feed input I (like 1x64; "" for a scalar) where its description
 *                 has no rank; otherwise the description's, with each dynamic dimension 1
 *   --type I=TYPE the type (f16 f32 f64 u8 i32 i64) to feed input I where its description has
 *                 none (TorchScript's tensors declare neither type nor shape)
 *   --no-compute  describe only
 *   --properties  also list the graph's properties with their values (graph_list_properties,
 *                 graph_get_property): "properties", [[NAME, VALUE], ...] in the host's order
 *
 * stdout: one JSON object. "inputs" and "outputs" are shaped as the arrays of `wasinn models
 * inspect --json MODEL` ({"index", "name", "type", "shape"}; "type" is null for an element type
 * witx has no number for, "shape" null for an unknown rank, -1 for a dynamic dimension).
 * "checks" holds what the host answered to the deliberately wrong calls: "side_2" (graph_io_count
 * of side 2), "index_past_end" (graph_io_info of input `count`), "small_name" ({"errno",
 * "needed", "actual"}: graph_io_info of the first named tensor with name_max 0) and "small_dims"
 * (the same with dims_max rank-1, for the first tensor of known rank >= 1). "fed" lists the
 * tensors set ({"index", "type", "dims"}), "outputs_read" the bytes read and whether the buffer
 * had to grow on TOO_LARGE; "skipped" says why no compute ran, if none did; "error" holds
 * {"step", "errno"} of a failed wasi-nn call.
 *
 * Exit status: 0; 1 after a failed wasi-nn call (the JSON has "error"); 2 for a bad argument or
 * file; 3 when the host's answers contradict each other (a line on stderr says how).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wasi_nn.h"
#include "wasi_nn_names.h"
#include "wasinn_nn_ext.h"
#define DIO_PROG "describe_io"
#include "wasinn_describe_io.h"

#define MAX_BUILDERS 16

/* By witx's tensor_type. */
static const fill_type WITX_FILL[] = {FILL_F16, FILL_F32, FILL_F64, FILL_U8, FILL_I32, FILL_I64};
static const struct dio_types TYPES = {WASI_NN_TYPE_NAMES, WITX_FILL, WASI_NN_TYPE_COUNT};

static void nn_failed(int32_t err, const char* step) {
  dio_put(",\n\"error\": {\"step\": \"%s\", \"errno\": %d}", step, err);
  dio_finish_json();
  fprintf(stderr, "describe_io: errno %d in %s\n", err, step);
  exit(1);
}

static void check(int32_t err, const char* step) {
  if (err != WASI_NN_SUCCESS) nn_failed(err, step);
}

/* ---- files ---- */

static unsigned char* read_all(const char* path, uint32_t* len) {
  FILE* f = fopen(path, "rb");
  if (!f) dio_die(2, "cannot open %s: %s", path, strerror(errno));
  if (fseeko(f, 0, SEEK_END) != 0) dio_die(2, "cannot read %s", path);
  const off_t n = ftello(f);
  if (n < 0 || (uint64_t)n > UINT32_MAX || fseeko(f, 0, SEEK_SET) != 0) dio_die(2, "cannot read %s", path);
  unsigned char* buf = dio_xmalloc((size_t)n);
  if (fread(buf, 1, (size_t)n, f) != (size_t)n) dio_die(2, "cannot read %s", path);
  fclose(f);
  *len = (uint32_t)n;
  return buf;
}

static void write_all(const char* dir, const char* kind, uint32_t index, const void* data, size_t n) {
  const char* failed = dio_write_bin(dir, kind, index, data, n);
  if (failed) dio_die(2, "cannot write %s: %s", failed, strerror(errno));
}

static int parse_named(const char* flag, const char* v) {
  uint32_t value;
  if (!wasi_nn_value_by_name(!strcmp(flag, "--encoding") ? WASI_NN_ENCODING_NAMES : WASI_NN_TARGET_NAMES, v, &value))
    dio_die(2, "%s %s: unknown", flag, v);
  return (int)value;
}

/* ---- descriptions ---- */

struct desc {
  char* name;
  uint32_t name_len;
  uint32_t type;
  uint32_t rank; /* WASINN_RANK_UNKNOWN: unknown */
  int64_t* dims;
};

struct checks {
  int32_t small_name_errno;
  uint32_t small_name_needed, small_name_actual;
  int have_small_name;
  int32_t small_dims_errno;
  uint32_t small_dims_needed, small_dims_actual;
  int have_small_dims;
};

/* One tensor's description: first asked with no room at all (so TOO_LARGE says the sizes),
 * then with exactly the room it said. */
static void describe(wasi_nn_graph g, uint32_t side, uint32_t index, struct desc* d, struct checks* c) {
  uint32_t name_len = 0xdeadbeef, type = 0xdeadbeef, rank = 0xdeadbeef;
  const int32_t first = wasinn_graph_io_info(g, side, index, NULL, 0, &name_len, &type, NULL, 0, &rank);
  if (first != WASI_NN_SUCCESS && first != WASI_NN_TOO_LARGE) nn_failed(first, "graph_io_info");
  if (first == WASI_NN_SUCCESS && (name_len != 0 || (rank != 0 && rank != WASINN_RANK_UNKNOWN)))
    dio_die(3, "graph_io_info(%u, %u) with no room succeeded, yet said name_len %u, rank %u", side, index, name_len,
            rank);
  if (first == WASI_NN_TOO_LARGE && name_len == 0 && (rank == 0 || rank == WASINN_RANK_UNKNOWN))
    dio_die(3, "graph_io_info(%u, %u) with no room was TOO_LARGE, yet needs name_len 0, rank %u", side, index, rank);
  const uint32_t dims_room = rank == WASINN_RANK_UNKNOWN ? 0 : rank;
  d->name = dio_xmalloc(name_len + 1);
  d->dims = dio_xmalloc(sizeof(int64_t) * (dims_room ? dims_room : 1));
  uint32_t name_len2 = 0xdeadbeef, rank2 = 0xdeadbeef;
  check(wasinn_graph_io_info(g, side, index, d->name, name_len, &name_len2, &d->type, d->dims, dims_room, &rank2),
        "graph_io_info");
  if (name_len2 != name_len || rank2 != rank)
    dio_die(3, "graph_io_info(%u, %u): needed name_len %u and rank %u, then wrote name_len %u and rank %u", side, index,
            name_len, rank, name_len2, rank2);
  d->name[name_len] = '\0';
  d->name_len = name_len;
  d->rank = rank;

  if (!c->have_small_name && name_len > 0) {
    /* The named buffer-too-small case: room for everything but the name. */
    char* room = dio_xmalloc(name_len);
    int64_t* dims = dio_xmalloc(sizeof(int64_t) * (dims_room ? dims_room : 1));
    uint32_t got_len = 0xdeadbeef, got_type, got_rank;
    c->small_name_errno =
        wasinn_graph_io_info(g, side, index, room, 0, &got_len, &got_type, dims, dims_room, &got_rank);
    c->small_name_needed = got_len;
    c->small_name_actual = name_len;
    c->have_small_name = 1;
    free(room);
    free(dims);
  }
  if (!c->have_small_dims && rank != WASINN_RANK_UNKNOWN && rank >= 1) {
    char* room = dio_xmalloc(name_len + 1);
    int64_t* dims = dio_xmalloc(sizeof(int64_t) * rank);
    uint32_t got_len, got_type, got_rank = 0xdeadbeef;
    c->small_dims_errno =
        wasinn_graph_io_info(g, side, index, room, name_len, &got_len, &got_type, dims, rank - 1, &got_rank);
    c->small_dims_needed = got_rank;
    c->small_dims_actual = rank;
    c->have_small_dims = 1;
    free(room);
    free(dims);
  }
}

/* The descriptions as struct dio_desc (malloc'd); a type or dimension the witx functions have no
 * words for is the host contradicting itself. */
static struct dio_desc* to_dio(const char* key, const struct desc* ds, uint32_t n) {
  struct dio_desc* out = dio_xmalloc(sizeof(struct dio_desc) * n);
  for (uint32_t i = 0; i < n; ++i) {
    const struct desc* d = &ds[i];
    if (d->type >= WASI_NN_TYPE_COUNT && d->type != WASINN_TYPE_NONE)
      dio_die(3, "%s %u: type %u is neither a witx tensor_type nor WASINN_TYPE_NONE", key, i, d->type);
    const int known = d->rank != WASINN_RANK_UNKNOWN;
    for (uint32_t k = 0; known && k < d->rank; ++k)
      if (d->dims[k] < -1) dio_die(3, "%s %u: dimension %u is %" PRId64, key, i, k, d->dims[k]);
    out[i] = (struct dio_desc){d->name, d->name_len,         d->type == WASINN_TYPE_NONE ? -1 : (int)d->type,
                               known,   known ? d->rank : 0, d->dims};
  }
  return out;
}

/* ---- properties ---- */

static void put_properties(wasi_nn_graph g) {
  uint32_t needed = 0;
  const int32_t first = wasinn_graph_list_properties(g, NULL, 0, &needed);
  if (first != WASI_NN_SUCCESS && first != WASI_NN_TOO_LARGE) nn_failed(first, "graph_list_properties");
  char* names = dio_xmalloc(needed);
  uint32_t written = 0;
  check(wasinn_graph_list_properties(g, names, needed, &written), "graph_list_properties");
  if (written != needed) dio_die(3, "graph_list_properties needed %u bytes, then wrote %u", needed, written);
  if (written && names[written - 1] != '\0') dio_die(3, "graph_list_properties: the last name has no NUL");
  dio_put(",\n\"properties\": [");
  int n = 0;
  for (uint32_t at = 0; at < written; ++n) {
    const char* name = names + at;
    const uint32_t len = (uint32_t)strlen(name);
    uint32_t room = 0, got = 0;
    int32_t err = wasinn_graph_get_property(g, name, len, NULL, 0, &room);
    char* value = NULL;
    if (err == WASI_NN_SUCCESS) {
      if (room != 0) dio_die(3, "graph_get_property(%s) with no room succeeded with %u bytes", name, room);
    } else if (err == WASI_NN_TOO_LARGE) {
      value = dio_xmalloc(room);
      check(wasinn_graph_get_property(g, name, len, value, room, &got), "graph_get_property");
      if (got != room) dio_die(3, "graph_get_property(%s) needed %u bytes, then wrote %u", name, room, got);
    } else {
      nn_failed(err, "graph_get_property");
    }
    dio_put_property(n == 0, name, len, value, room);
    free(value);
    at += len + 1;
  }
  dio_put("\n]");
  free(names);
}

/* ---- main ---- */

int main(int argc, char** argv) {
  static struct dio_args args = {
      .encoding = WASI_NN_ENCODING_ONNX, .target = WASI_NN_TARGET_CPU, .model_words = "FILE"};
  if (dio_start(argc, argv, &TYPES, parse_named, &args)) return 0;

  wasi_nn_graph graph;
  if (args.name) {
    check(wasi_nn_load_by_name(args.name, (uint32_t)strlen(args.name), &graph), "load_by_name");
  } else {
    wasi_nn_graph_builder builders[MAX_BUILDERS];
    uint32_t count = 0;
    char* files = strdup(args.models);
    for (char* f = strtok(files, ","); f; f = strtok(NULL, ",")) {
      if (count == MAX_BUILDERS) dio_die(2, "more than %d model files", MAX_BUILDERS);
      uint32_t len = 0;
      builders[count].buf = read_all(f, &len);
      builders[count].size = len;
      ++count;
    }
    check(wasi_nn_load(builders, count, (uint32_t)args.encoding, (uint32_t)args.target, &graph), "load");
    for (uint32_t i = 0; i < count; ++i) free((void*)builders[i].buf);
    free(files);
  }

  uint32_t n_in = 0, n_out = 0, unused = 0;
  check(wasinn_graph_io_count(graph, WASINN_IO_INPUTS, &n_in), "graph_io_count");
  check(wasinn_graph_io_count(graph, WASINN_IO_OUTPUTS, &n_out), "graph_io_count");
  const int32_t side_2 = wasinn_graph_io_count(graph, 2, &unused);
  struct checks c = {0};
  struct desc *ins = dio_xmalloc(sizeof(struct desc) * n_in), *outs = dio_xmalloc(sizeof(struct desc) * n_out);
  for (uint32_t i = 0; i < n_in; ++i) describe(graph, WASINN_IO_INPUTS, i, &ins[i], &c);
  for (uint32_t i = 0; i < n_out; ++i) describe(graph, WASINN_IO_OUTPUTS, i, &outs[i], &c);
  uint32_t l, t, r;
  const int32_t past_end = wasinn_graph_io_info(graph, WASINN_IO_INPUTS, n_in, NULL, 0, &l, &t, NULL, 0, &r);

  const struct dio_desc *in_descs = to_dio("inputs", ins, n_in), *out_descs = to_dio("outputs", outs, n_out);
  dio_put("\n");
  dio_put_desc_list("inputs", in_descs, n_in, &TYPES);
  dio_put(",\n");
  dio_put_desc_list("outputs", out_descs, n_out, &TYPES);
  dio_put(",\n\"checks\": {\"side_2\": %d, \"index_past_end\": %d", side_2, past_end);
  if (c.have_small_name)
    dio_put(", \"small_name\": {\"errno\": %d, \"needed\": %u, \"actual\": %u}", c.small_name_errno,
            c.small_name_needed, c.small_name_actual);
  if (c.have_small_dims)
    dio_put(", \"small_dims\": {\"errno\": %d, \"needed\": %u, \"actual\": %u}", c.small_dims_errno,
            c.small_dims_needed, c.small_dims_actual);
  dio_put("}");
  if (args.properties) put_properties(graph);

  /* Can every input be built from its description (or a --dims)? */
  const char* skipped = dio_skip_reason(&args, in_descs, n_in, "witx type");
  if (skipped) {
    dio_finish_skipped(skipped);
    return 0;
  }

  wasi_nn_context ctx;
  check(wasi_nn_init_execution_context(graph, &ctx), "init_execution_context");
  dio_put(",\n\"fed\": [");
  for (uint32_t i = 0; i < n_in; ++i) {
    struct dio_input in;
    dio_build_input(&args, &in_descs[i], i, &TYPES, &in);
    if (args.out_dir) write_all(args.out_dir, "input", i, in.data, in.bytes);
    dio_put_fed(i, NULL, &in, &TYPES);
    wasi_nn_tensor tensor = {in.dims, in.rank, (uint8_t)in.type, {0, 0, 0}, in.data, in.bytes};
    check(wasi_nn_set_input(ctx, i, &tensor), "set_input");
    free(in.data);
  }
  dio_put("]");
  check(wasi_nn_compute(ctx), "compute");

  dio_put(",\n\"outputs_read\": [");
  for (uint32_t i = 0; i < n_out; ++i) {
    const struct desc* d = &outs[i];
    /* The size the description gives, when it gives one; otherwise no room, and TOO_LARGE says. */
    uint64_t max = 0;
    int known = d->type < WASI_NN_TYPE_COUNT && d->rank != WASINN_RANK_UNKNOWN;
    if (known) {
      max = fill_element_size(WITX_FILL[d->type]);
      for (uint32_t k = 0; k < d->rank; ++k) {
        if (d->dims[k] < 0)
          known = 0;
        else
          max *= (uint64_t)d->dims[k];
      }
    }
    if (!known || max > UINT32_MAX) max = 0;
    uint8_t* buf = dio_xmalloc((size_t)max);
    uint32_t written = 0xdeadbeef;
    int32_t err = wasi_nn_get_output(ctx, i, buf, (uint32_t)max, &written);
    int grew = 0;
    if (err == WASI_NN_TOO_LARGE) {
      if (written <= max)
        dio_die(3, "get_output %u: TOO_LARGE with %" PRIu64 " bytes of room, yet needs %u", i, max, written);
      grew = 1;
      max = written;
      free(buf);
      buf = dio_xmalloc((size_t)max);
      written = 0xdeadbeef;
      err = wasi_nn_get_output(ctx, i, buf, (uint32_t)max, &written);
      if (err == WASI_NN_SUCCESS && written != max)
        dio_die(3, "get_output %u: needed %" PRIu64 " bytes, then wrote %u", i, max, written);
    }
    check(err, "get_output");
    if (args.out_dir) write_all(args.out_dir, "output", i, buf, written);
    dio_put("%s{\"index\": %u, \"bytes\": %u, \"sized_by_description\": %s, \"grew\": %s}", i ? ", " : "", i, written,
            known ? "true" : "false", grew ? "true" : "false");
    free(buf);
  }
  dio_put("]");
  check(wasi_nn_finalize_execution_context(ctx), "finalize_execution_context");
  check(wasi_nn_unload(graph), "unload");
  dio_finish_json();
  return 0;
}
