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
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wasi_nn.h"
#include "wasinn_io_fill.h"
#include "wasinn_nn_ext.h"

#define MAX_BUILDERS 16
#define MAX_DIMS_FLAGS 64
#define MAX_FEED_BYTES (512u << 20)

static void die(int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("describe_io: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  exit(code);
}

static void *xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) die(2, "out of memory (%zu bytes)", n);
  return p;
}

/* ---- a growing text buffer for the JSON ---- */

static char *js;
static size_t js_len, js_cap;

static void put(const char *fmt, ...) {
  for (;;) {
    va_list ap;
    va_start(ap, fmt);
    const int n = vsnprintf(js + js_len, js_cap - js_len, fmt, ap);
    va_end(ap);
    if (n >= 0 && (size_t)n < js_cap - js_len) {
      js_len += (size_t)n;
      return;
    }
    js_cap = js_cap * 2 + (size_t)(n > 0 ? n : 0) + 256;
    js = realloc(js, js_cap);
    if (!js) die(2, "out of memory");
  }
}

static void put_string(const char *s, size_t n) {
  put("\"");
  for (size_t i = 0; i < n; ++i) {
    const unsigned char c = (unsigned char)s[i];
    if (c == '"' || c == '\\') put("\\%c", c);
    else if (c < 0x20) put("\\u%04x", c);
    else put("%c", c);
  }
  put("\"");
}

/* Ends the program with the JSON so far closed off (after an "error" member). */
static void finish_json(void) {
  put("}\n");
  fwrite(js, 1, js_len, stdout);
  fflush(stdout);
}

static void nn_failed(int32_t err, const char *step) {
  put(",\n\"error\": {\"step\": \"%s\", \"errno\": %d}", step, err);
  finish_json();
  fprintf(stderr, "describe_io: errno %d in %s\n", err, step);
  exit(1);
}

static void check(int32_t err, const char *step) {
  if (err != WASI_NN_SUCCESS) nn_failed(err, step);
}

/* ---- files ---- */

static unsigned char *read_all(const char *path, uint32_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) die(2, "cannot open %s: %s", path, strerror(errno));
  if (fseeko(f, 0, SEEK_END) != 0) die(2, "cannot read %s", path);
  const off_t n = ftello(f);
  if (n < 0 || (uint64_t)n > UINT32_MAX || fseeko(f, 0, SEEK_SET) != 0) die(2, "cannot read %s", path);
  unsigned char *buf = xmalloc((size_t)n);
  if (fread(buf, 1, (size_t)n, f) != (size_t)n) die(2, "cannot read %s", path);
  fclose(f);
  *len = (uint32_t)n;
  return buf;
}

static void write_all(const char *dir, const char *kind, uint32_t index, const void *data, size_t n) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s_%u.bin", dir, kind, index);
  FILE *f = fopen(path, "wb");
  if (!f) die(2, "cannot write %s: %s", path, strerror(errno));
  if ((n && fwrite(data, 1, n, f) != n) || fclose(f) != 0) die(2, "cannot write %s: %s", path, strerror(errno));
}

/* ---- types ---- */

static const char *const WITX_TYPE_NAMES[] = {"f16", "f32", "f64", "u8", "i32", "i64"};
static const fill_type WITX_FILL[] = {FILL_F16, FILL_F32, FILL_F64, FILL_U8, FILL_I32, FILL_I64};
#define N_WITX_TYPES 6u

struct named_value {
  const char *name;
  uint32_t value;
};
static const struct named_value ENCODINGS[] = {
    {"openvino", WASI_NN_ENCODING_OPENVINO}, {"onnx", WASI_NN_ENCODING_ONNX},
    {"tensorflow", WASI_NN_ENCODING_TENSORFLOW}, {"pytorch", WASI_NN_ENCODING_PYTORCH},
    {"tensorflowlite", WASI_NN_ENCODING_TENSORFLOWLITE}, {"autodetect", WASI_NN_ENCODING_AUTODETECT},
    {"ggml", WASI_NN_ENCODING_GGML}, {NULL, 0}};
static const struct named_value TARGETS[] = {
    {"cpu", WASI_NN_TARGET_CPU}, {"gpu", WASI_NN_TARGET_GPU}, {"tpu", WASI_NN_TARGET_TPU},
    {"auto", WASI_NN_TARGET_AUTO}, {NULL, 0}};

static uint32_t parse_named(const char *flag, const char *v, const struct named_value *table) {
  for (const struct named_value *t = table; t->name; ++t)
    if (!strcmp(t->name, v)) return t->value;
  die(2, "%s %s: unknown", flag, v);
  return 0;
}

/* ---- descriptions ---- */

struct desc {
  char *name;
  uint32_t name_len;
  uint32_t type;
  uint32_t rank; /* WASINN_RANK_UNKNOWN: unknown */
  int64_t *dims;
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
static void describe(wasi_nn_graph g, uint32_t side, uint32_t index, struct desc *d, struct checks *c) {
  uint32_t name_len = 0xdeadbeef, type = 0xdeadbeef, rank = 0xdeadbeef;
  const int32_t first = wasinn_graph_io_info(g, side, index, NULL, 0, &name_len, &type, NULL, 0, &rank);
  if (first != WASI_NN_SUCCESS && first != WASI_NN_TOO_LARGE) nn_failed(first, "graph_io_info");
  if (first == WASI_NN_SUCCESS && (name_len != 0 || (rank != 0 && rank != WASINN_RANK_UNKNOWN)))
    die(3, "graph_io_info(%u, %u) with no room succeeded, yet said name_len %u, rank %u", side, index, name_len,
        rank);
  if (first == WASI_NN_TOO_LARGE && name_len == 0 && (rank == 0 || rank == WASINN_RANK_UNKNOWN))
    die(3, "graph_io_info(%u, %u) with no room was TOO_LARGE, yet needs name_len 0, rank %u", side, index, rank);
  const uint32_t dims_room = rank == WASINN_RANK_UNKNOWN ? 0 : rank;
  d->name = xmalloc(name_len + 1);
  d->dims = xmalloc(sizeof(int64_t) * (dims_room ? dims_room : 1));
  uint32_t name_len2 = 0xdeadbeef, rank2 = 0xdeadbeef;
  check(wasinn_graph_io_info(g, side, index, d->name, name_len, &name_len2, &d->type, d->dims, dims_room, &rank2),
        "graph_io_info");
  if (name_len2 != name_len || rank2 != rank)
    die(3, "graph_io_info(%u, %u): needed name_len %u and rank %u, then wrote name_len %u and rank %u", side, index,
        name_len, rank, name_len2, rank2);
  d->name[name_len] = '\0';
  d->name_len = name_len;
  d->rank = rank;

  if (!c->have_small_name && name_len > 0) {
    /* The named buffer-too-small case: room for everything but the name. */
    char *room = xmalloc(name_len);
    int64_t *dims = xmalloc(sizeof(int64_t) * (dims_room ? dims_room : 1));
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
    char *room = xmalloc(name_len + 1);
    int64_t *dims = xmalloc(sizeof(int64_t) * rank);
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

static void put_desc_list(const char *key, const struct desc *ds, uint32_t n) {
  put("\"%s\": [", key);
  for (uint32_t i = 0; i < n; ++i) {
    const struct desc *d = &ds[i];
    put("%s\n  {\"index\": %u, \"name\": ", i ? "," : "", i);
    put_string(d->name, d->name_len);
    if (d->type < N_WITX_TYPES) put(", \"type\": \"%s\"", WITX_TYPE_NAMES[d->type]);
    else if (d->type == WASINN_TYPE_NONE) put(", \"type\": null");
    else die(3, "%s %u: type %u is neither a witx tensor_type nor WASINN_TYPE_NONE", key, i, d->type);
    if (d->rank == WASINN_RANK_UNKNOWN) {
      put(", \"shape\": null}");
      continue;
    }
    put(", \"shape\": [");
    for (uint32_t k = 0; k < d->rank; ++k) {
      if (d->dims[k] < -1) die(3, "%s %u: dimension %u is %" PRId64, key, i, k, d->dims[k]);
      put("%s%" PRId64, k ? ", " : "", d->dims[k]);
    }
    put("]}");
  }
  put("\n]");
}

/* ---- properties ---- */

static void put_properties(wasi_nn_graph g) {
  uint32_t needed = 0;
  const int32_t first = wasinn_graph_list_properties(g, NULL, 0, &needed);
  if (first != WASI_NN_SUCCESS && first != WASI_NN_TOO_LARGE) nn_failed(first, "graph_list_properties");
  char *names = xmalloc(needed);
  uint32_t written = 0;
  check(wasinn_graph_list_properties(g, names, needed, &written), "graph_list_properties");
  if (written != needed) die(3, "graph_list_properties needed %u bytes, then wrote %u", needed, written);
  if (written && names[written - 1] != '\0') die(3, "graph_list_properties: the last name has no NUL");
  put(",\n\"properties\": [");
  int n = 0;
  for (uint32_t at = 0; at < written; ++n) {
    const char *name = names + at;
    const uint32_t len = (uint32_t)strlen(name);
    uint32_t room = 0, got = 0;
    int32_t err = wasinn_graph_get_property(g, name, len, NULL, 0, &room);
    char *value = NULL;
    if (err == WASI_NN_SUCCESS) {
      if (room != 0) die(3, "graph_get_property(%s) with no room succeeded with %u bytes", name, room);
    } else if (err == WASI_NN_TOO_LARGE) {
      value = xmalloc(room);
      check(wasinn_graph_get_property(g, name, len, value, room, &got), "graph_get_property");
      if (got != room) die(3, "graph_get_property(%s) needed %u bytes, then wrote %u", name, room, got);
    } else {
      nn_failed(err, "graph_get_property");
    }
    put(n ? ",\n  [" : "\n  [");
    put_string(name, len);
    put(", ");
    put_string(value ? value : "", room);
    put("]");
    free(value);
    at += len + 1;
  }
  put("\n]");
  free(names);
}

/* ---- --dims ---- */

struct dims_flag {
  int type; /* --type: a witx type; -1 for --dims */
  uint32_t index;
  uint32_t rank;
  uint32_t dims[64];
};

static void parse_dims_flag(const char *v, struct dims_flag *f, int is_type) {
  char *end;
  const unsigned long index = strtoul(v, &end, 10);
  if (end == v || *end != '=') die(2, "%s %s: expected INDEX=%s", is_type ? "--type" : "--dims", v, is_type ? "TYPE" : "DIMS");
  f->index = (uint32_t)index;
  f->rank = 0;
  f->type = -1;
  if (is_type) {
    for (uint32_t t = 0; t < N_WITX_TYPES; ++t)
      if (!strcmp(end + 1, WITX_TYPE_NAMES[t])) f->type = (int)t;
    if (f->type < 0) die(2, "--type %s: TYPE is one of f16 f32 f64 u8 i32 i64", v);
    return;
  }
  for (const char *p = end + 1; *p;) {
    const unsigned long d = strtoul(p, &end, 10);
    if (end == p || (*end && *end != 'x') || f->rank == 64 || d > UINT32_MAX) die(2, "--dims %s: bad DIMS", v);
    f->dims[f->rank++] = (uint32_t)d;
    p = *end ? end + 1 : end;
  }
}

/* ---- main ---- */

int main(int argc, char **argv) {
  const char *model = NULL, *name = NULL, *out_dir = NULL;
  uint32_t encoding = WASI_NN_ENCODING_ONNX, target = WASI_NN_TARGET_CPU;
  int compute = 1, properties = 0;
  static struct dims_flag dims_flags[MAX_DIMS_FLAGS];
  int n_dims_flags = 0;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    if (!strcmp(a, "--no-compute")) {
      compute = 0;
      continue;
    }
    if (!strcmp(a, "--properties")) {
      properties = 1;
      continue;
    }
    if (!strcmp(a, "--help")) {
      puts("usage: describe_io (--model FILE[,FILE...] [--encoding E] [--target T] | --name NAME) [--out DIR]\n"
           "                   [--dims INDEX=DIMS]... [--type INDEX=TYPE]... [--no-compute] [--properties]");
      return 0;
    }
    if (i + 1 >= argc) die(2, "%s needs a value", a);
    const char *v = argv[++i];
    if (!strcmp(a, "--model")) model = v;
    else if (!strcmp(a, "--name")) name = v;
    else if (!strcmp(a, "--encoding")) encoding = parse_named(a, v, ENCODINGS);
    else if (!strcmp(a, "--target")) target = parse_named(a, v, TARGETS);
    else if (!strcmp(a, "--out")) out_dir = v;
    else if (!strcmp(a, "--dims") || !strcmp(a, "--type")) {
      if (n_dims_flags == MAX_DIMS_FLAGS) die(2, "too many --dims and --type");
      parse_dims_flag(v, &dims_flags[n_dims_flags++], !strcmp(a, "--type"));
    } else die(2, "unknown argument %s (try --help)", a);
  }
  if (!model == !name) die(2, "give --model FILE or --name NAME");

  put("{");
  wasi_nn_graph graph;
  if (name) {
    check(wasi_nn_load_by_name(name, (uint32_t)strlen(name), &graph), "load_by_name");
  } else {
    wasi_nn_graph_builder builders[MAX_BUILDERS];
    uint32_t count = 0;
    char *files = strdup(model);
    for (char *f = strtok(files, ","); f; f = strtok(NULL, ",")) {
      if (count == MAX_BUILDERS) die(2, "more than %d model files", MAX_BUILDERS);
      uint32_t len = 0;
      builders[count].buf = read_all(f, &len);
      builders[count].size = len;
      ++count;
    }
    check(wasi_nn_load(builders, count, encoding, target, &graph), "load");
    for (uint32_t i = 0; i < count; ++i) free((void *)builders[i].buf);
    free(files);
  }

  uint32_t n_in = 0, n_out = 0, unused = 0;
  check(wasinn_graph_io_count(graph, WASINN_IO_INPUTS, &n_in), "graph_io_count");
  check(wasinn_graph_io_count(graph, WASINN_IO_OUTPUTS, &n_out), "graph_io_count");
  const int32_t side_2 = wasinn_graph_io_count(graph, 2, &unused);
  struct checks c = {0};
  struct desc *ins = xmalloc(sizeof(struct desc) * n_in), *outs = xmalloc(sizeof(struct desc) * n_out);
  for (uint32_t i = 0; i < n_in; ++i) describe(graph, WASINN_IO_INPUTS, i, &ins[i], &c);
  for (uint32_t i = 0; i < n_out; ++i) describe(graph, WASINN_IO_OUTPUTS, i, &outs[i], &c);
  uint32_t l, t, r;
  const int32_t past_end = wasinn_graph_io_info(graph, WASINN_IO_INPUTS, n_in, NULL, 0, &l, &t, NULL, 0, &r);

  put("\n");
  put_desc_list("inputs", ins, n_in);
  put(",\n");
  put_desc_list("outputs", outs, n_out);
  put(",\n\"checks\": {\"side_2\": %d, \"index_past_end\": %d", side_2, past_end);
  if (c.have_small_name)
    put(", \"small_name\": {\"errno\": %d, \"needed\": %u, \"actual\": %u}", c.small_name_errno,
        c.small_name_needed, c.small_name_actual);
  if (c.have_small_dims)
    put(", \"small_dims\": {\"errno\": %d, \"needed\": %u, \"actual\": %u}", c.small_dims_errno,
        c.small_dims_needed, c.small_dims_actual);
  put("}");
  if (properties) put_properties(graph);

  /* Can every input be built from its description (or a --dims)? */
  const char *skipped = NULL;
  static char why[256];
  if (!compute) skipped = "--no-compute";
  for (uint32_t i = 0; !skipped && i < n_in; ++i) {
    int has_flag = 0, has_type = 0;
    for (int k = 0; k < n_dims_flags; ++k) {
      has_flag |= dims_flags[k].index == i && dims_flags[k].type < 0;
      has_type |= dims_flags[k].index == i && dims_flags[k].type >= 0;
    }
    if (ins[i].type >= N_WITX_TYPES && !has_type) {
      snprintf(why, sizeof why, "input %u has no witx type (give --type %u=TYPE)", i, i);
      skipped = why;
    } else if (ins[i].rank == WASINN_RANK_UNKNOWN && !has_flag) {
      snprintf(why, sizeof why, "input %u has no declared rank (give --dims %u=DIMS)", i, i);
      skipped = why;
    }
  }
  if (skipped) {
    put(",\n\"skipped\": ");
    put_string(skipped, strlen(skipped));
    finish_json();
    return 0;
  }

  wasi_nn_context ctx;
  check(wasi_nn_init_execution_context(graph, &ctx), "init_execution_context");
  put(",\n\"fed\": [");
  for (uint32_t i = 0; i < n_in; ++i) {
    const struct desc *d = &ins[i];
    uint32_t rank = d->rank == WASINN_RANK_UNKNOWN ? 0 : d->rank;
    uint32_t *dims = xmalloc(sizeof(uint32_t) * 64);
    for (uint32_t k = 0; k < rank; ++k) dims[k] = d->dims[k] < 0 ? 1 : (uint32_t)d->dims[k];
    uint32_t type = d->type;
    for (int k = 0; k < n_dims_flags; ++k) {
      if (dims_flags[k].index != i) continue;
      if (dims_flags[k].type >= 0) {
        type = (uint32_t)dims_flags[k].type;
        continue;
      }
      rank = dims_flags[k].rank;
      memcpy(dims, dims_flags[k].dims, sizeof(uint32_t) * rank);
    }
    const fill_type ft = WITX_FILL[type];
    uint64_t elements = 1;
    for (uint32_t k = 0; k < rank; ++k) elements *= dims[k];
    const uint64_t bytes = elements * fill_element_size(ft);
    if (bytes > MAX_FEED_BYTES) die(2, "input %u would be %" PRIu64 " bytes", i, bytes);
    unsigned char *data = xmalloc((size_t)bytes);
    fill_tensor(ft, i, data, elements);
    if (out_dir) write_all(out_dir, "input", i, data, (size_t)bytes);
    put("%s{\"index\": %u, \"type\": \"%s\", \"dims\": [", i ? ", " : "", i, WITX_TYPE_NAMES[type]);
    for (uint32_t k = 0; k < rank; ++k) put("%s%u", k ? ", " : "", dims[k]);
    put("]}");
    wasi_nn_tensor tensor = {dims, rank, (uint8_t)type, {0, 0, 0}, data, (uint32_t)bytes};
    check(wasi_nn_set_input(ctx, i, &tensor), "set_input");
    free(data);
    free(dims);
  }
  put("]");
  check(wasi_nn_compute(ctx), "compute");

  put(",\n\"outputs_read\": [");
  for (uint32_t i = 0; i < n_out; ++i) {
    const struct desc *d = &outs[i];
    /* The size the description gives, when it gives one; otherwise no room, and TOO_LARGE says. */
    uint64_t max = 0;
    int known = d->type < N_WITX_TYPES && d->rank != WASINN_RANK_UNKNOWN;
    if (known) {
      max = fill_element_size(WITX_FILL[d->type]);
      for (uint32_t k = 0; k < d->rank; ++k) {
        if (d->dims[k] < 0) known = 0;
        else max *= (uint64_t)d->dims[k];
      }
    }
    if (!known || max > UINT32_MAX) max = 0;
    uint8_t *buf = xmalloc((size_t)max);
    uint32_t written = 0xdeadbeef;
    int32_t err = wasi_nn_get_output(ctx, i, buf, (uint32_t)max, &written);
    int grew = 0;
    if (err == WASI_NN_TOO_LARGE) {
      if (written <= max) die(3, "get_output %u: TOO_LARGE with %" PRIu64 " bytes of room, yet needs %u", i, max, written);
      grew = 1;
      max = written;
      free(buf);
      buf = xmalloc((size_t)max);
      written = 0xdeadbeef;
      err = wasi_nn_get_output(ctx, i, buf, (uint32_t)max, &written);
      if (err == WASI_NN_SUCCESS && written != max)
        die(3, "get_output %u: needed %" PRIu64 " bytes, then wrote %u", i, max, written);
    }
    check(err, "get_output");
    if (out_dir) write_all(out_dir, "output", i, buf, written);
    put("%s{\"index\": %u, \"bytes\": %u, \"sized_by_description\": %s, \"grew\": %s}", i ? ", " : "", i, written,
        known ? "true" : "false", grew ? "true" : "false");
    free(buf);
  }
  put("]");
  check(wasi_nn_finalize_execution_context(ctx), "finalize_execution_context");
  check(wasi_nn_unload(graph), "unload");
  finish_json();
  return 0;
}
