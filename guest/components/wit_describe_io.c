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
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wasi_nn_wit.h"
#include "wasinn_io_fill.h"
#include "wasinn_nn_ext_wit.h"
#include "wit_guest_util.h"

#define MAX_BUILDERS 16
#define MAX_DIMS_FLAGS 64
#define MAX_FEED_BYTES (512u << 20)

static const char *const TYPE_NAMES[WNN_TYPE_COUNT] = {"f16", "f32", "f64", "bf16", "u8", "i32", "i64"};
/* By WIT's tensor-type case. */
static const fill_type TYPE_FILL[WNN_TYPE_COUNT] = {FILL_F16, FILL_F32, FILL_F64, FILL_BF16,
                                                    FILL_U8,  FILL_I32, FILL_I64};

static void die(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("wit_describe_io: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  exit(2);
}

static void *xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) die("out of memory (%zu bytes)", n);
  return p;
}

/* ---- the JSON, built in memory ---- */

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
    if (!js) die("out of memory");
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

static void finish_json(void) {
  put("}\n");
  fwrite(js, 1, js_len, stdout);
  fflush(stdout);
}

static void wit_failed(const char *step, wnn_error err) {
  const int code = (int)wnn_error_get_code(err);
  wnn_string data = wnn_error_get_data(err);
  const char *code_name = wnn_error_code_name(code);
  put(",\n\"error\": {\"step\": \"%s\", \"code\": \"%s\", \"data\": ", step, code_name ? code_name : "?");
  put_string(data.ptr ? data.ptr : "", data.len);
  put("}");
  fprintf(stderr, "wit_describe_io: %s failed: %s: %.*s\n", step, code_name ? code_name : "?", (int)data.len,
          data.ptr ? data.ptr : "");
  free(data.ptr);
  wnn_error_drop(err);
  finish_json();
  exit(1);
}

static void write_all(const char *dir, const char *kind, uint32_t index, const void *data, size_t n) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s_%u.bin", dir, kind, index);
  FILE *f = fopen(path, "wb");
  if (!f || (n && fwrite(data, 1, n, f) != n) || fclose(f) != 0) die("cannot write %s", path);
}

static void put_desc_list(const char *key, const wnx_description_list *l) {
  put("\"%s\": [", key);
  for (uint32_t i = 0; i < l->len; ++i) {
    const wnx_tensor_description *d = &l->ptr[i];
    put("%s\n  {\"index\": %u, \"name\": ", i ? "," : "", i);
    put_string(d->name ? d->name : "", d->name_len);
    if (d->has_type > 1 || d->has_dims > 1) die("%s %u: an option discriminant is not 0 or 1", key, i);
    if (!d->has_type) put(", \"type\": null");
    else if (d->type < WNN_TYPE_COUNT) put(", \"type\": \"%s\"", TYPE_NAMES[d->type]);
    else die("%s %u: tensor-type case %u", key, i, d->type);
    if (!d->has_dims) {
      put(", \"shape\": null}");
      continue;
    }
    put(", \"shape\": [");
    for (uint32_t k = 0; k < d->rank; ++k) put("%s%" PRId64, k ? ", " : "", d->dims[k]);
    put("]}");
  }
  put("\n]");
}

/* The description's name, or its decimal index when it has none (NUL-terminated, malloc'd). */
static char *tensor_name(const wnx_tensor_description *d, uint32_t index) {
  char *s = xmalloc(d->name_len > 12 ? d->name_len + 1 : 13);
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
  put(",\n\"properties\": [");
  for (uint32_t i = 0; i < names.len; ++i) {
    wnn_string v = {0, 0};
    wnn_error err;
    if (wnx_get_property(g, names.ptr[i].ptr, names.ptr[i].len, &v, &err)) wit_failed("get-property", err);
    put(i ? ",\n  [" : "\n  [");
    put_string(names.ptr[i].ptr, names.ptr[i].len);
    put(", ");
    put_string(v.ptr ? v.ptr : "", v.len);
    put("]");
    free(v.ptr);
  }
  put("\n]");
  wnx_string_list_free(&names);
}

struct dims_flag {
  int type; /* --type: a tensor-type case; -1 for --dims */
  uint32_t index;
  uint32_t rank;
  uint32_t dims[64];
};

static void parse_dims_flag(const char *v, struct dims_flag *f, int is_type) {
  char *end;
  const unsigned long index = strtoul(v, &end, 10);
  if (end == v || *end != '=') die("%s %s: expected INDEX=%s", is_type ? "--type" : "--dims", v, is_type ? "TYPE" : "DIMS");
  f->index = (uint32_t)index;
  f->rank = 0;
  f->type = -1;
  if (is_type) {
    for (int t = 0; t < WNN_TYPE_COUNT; ++t)
      if (!strcmp(end + 1, TYPE_NAMES[t])) f->type = t;
    if (f->type < 0) die("--type %s: TYPE is one of f16 f32 f64 bf16 u8 i32 i64", v);
    return;
  }
  for (const char *p = end + 1; *p;) {
    const unsigned long d = strtoul(p, &end, 10);
    if (end == p || (*end && *end != 'x') || f->rank == 64 || d > UINT32_MAX) die("--dims %s: bad DIMS", v);
    f->dims[f->rank++] = (uint32_t)d;
    p = *end ? end + 1 : end;
  }
}

int main(int argc, char **argv) {
  const char *models = NULL, *name = NULL, *out_dir = NULL;
  int encoding = WNN_ENCODING_ONNX, target = WNN_TARGET_CPU, compute = 1, properties = 0;
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
      puts("usage: wit_describe_io (--model FILE[,FILE...] [--encoding E] [--target T] | --name NAME) [--out DIR]\n"
           "                       [--dims INDEX=DIMS]... [--type INDEX=TYPE]... [--no-compute] [--properties]");
      return 0;
    }
    if (i + 1 >= argc) die("%s needs a value", a);
    const char *v = argv[++i];
    if (!strcmp(a, "--model")) models = v;
    else if (!strcmp(a, "--name")) name = v;
    else if (!strcmp(a, "--encoding")) {
      encoding = wnn_encoding_from_name(v);
      if (encoding < 0) die("unknown encoding %s", v);
    } else if (!strcmp(a, "--target")) {
      if (!strcmp(v, "cpu")) target = WNN_TARGET_CPU;
      else if (!strcmp(v, "gpu")) target = WNN_TARGET_GPU;
      else if (!strcmp(v, "tpu")) target = WNN_TARGET_TPU;
      else die("unknown target %s (cpu gpu tpu)", v);
    } else if (!strcmp(a, "--out")) out_dir = v;
    else if (!strcmp(a, "--dims") || !strcmp(a, "--type")) {
      if (n_dims_flags == MAX_DIMS_FLAGS) die("too many --dims and --type");
      parse_dims_flag(v, &dims_flags[n_dims_flags++], !strcmp(a, "--type"));
    } else die("unknown argument %s (try --help)", a);
  }
  if (!models == !name) die("give --model FILE[,FILE...] or --name NAME");

  put("{");
  wnn_graph graph;
  wnn_error err;
  if (name) {
    if (wnn_load_by_name(name, (uint32_t)strlen(name), &graph, &err)) wit_failed("load-by-name", err);
  } else {
    wnn_bytes builders[MAX_BUILDERS];
    uint32_t count = 0;
    char *list = strdup(models);
    for (char *f = strtok(list, ","); f; f = strtok(NULL, ",")) {
      if (count == MAX_BUILDERS) die("more than %d model files", MAX_BUILDERS);
      size_t len = 0;
      builders[count].ptr = wg_read_all(f, &len);
      if (!builders[count].ptr) die("cannot read %s", f);
      builders[count++].len = (uint32_t)len;
    }
    if (wnn_load(builders, count, (wnn_graph_encoding)encoding, (wnn_execution_target)target, &graph, &err))
      wit_failed("load", err);
    for (uint32_t b = 0; b < count; ++b) free(builders[b].ptr);
    free(list);
  }

  wnx_description_list ins = wnx_inputs(graph), outs = wnx_outputs(graph);
  put("\n");
  put_desc_list("inputs", &ins);
  put(",\n");
  put_desc_list("outputs", &outs);
  if (properties) put_properties(graph);

  const char *skipped = NULL;
  static char why[256];
  if (!compute) skipped = "--no-compute";
  for (uint32_t i = 0; !skipped && i < ins.len; ++i) {
    int has_flag = 0, has_type = 0;
    for (int k = 0; k < n_dims_flags; ++k) {
      has_flag |= dims_flags[k].index == i && dims_flags[k].type < 0;
      has_type |= dims_flags[k].index == i && dims_flags[k].type >= 0;
    }
    if (!ins.ptr[i].has_type && !has_type) {
      snprintf(why, sizeof why, "input %u has no tensor-type (give --type %u=TYPE)", i, i);
      skipped = why;
    } else if (!ins.ptr[i].has_dims && !has_flag) {
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

  wnn_context ctx;
  if (wnn_init_execution_context(graph, &ctx, &err)) wit_failed("init-execution-context", err);
  wnn_named_tensor *named = xmalloc(sizeof(wnn_named_tensor) * (ins.len ? ins.len : 1));
  char **names = xmalloc(sizeof(char *) * (ins.len ? ins.len : 1));
  put(",\n\"fed\": [");
  for (uint32_t i = 0; i < ins.len; ++i) {
    const wnx_tensor_description *d = &ins.ptr[i];
    uint32_t dims[64], rank = d->has_dims ? d->rank : 0;
    if (rank > 64) die("input %u has rank %u", i, rank);
    for (uint32_t k = 0; k < rank; ++k) dims[k] = d->dims[k] < 0 ? 1 : (uint32_t)d->dims[k];
    int type = d->has_type ? d->type : -1;
    for (int k = 0; k < n_dims_flags; ++k) {
      if (dims_flags[k].index != i) continue;
      if (dims_flags[k].type >= 0) {
        type = dims_flags[k].type;
        continue;
      }
      rank = dims_flags[k].rank;
      memcpy(dims, dims_flags[k].dims, sizeof(uint32_t) * rank);
    }
    const fill_type ft = TYPE_FILL[type];
    uint64_t elements = 1;
    for (uint32_t k = 0; k < rank; ++k) elements *= dims[k];
    const uint64_t bytes = elements * fill_element_size(ft);
    if (bytes > MAX_FEED_BYTES) die("input %u would be %" PRIu64 " bytes", i, bytes);
    unsigned char *data = xmalloc((size_t)bytes);
    fill_tensor(ft, i, data, elements);
    if (out_dir) write_all(out_dir, "input", i, data, (size_t)bytes);
    names[i] = tensor_name(d, i);
    put("%s{\"index\": %u, \"name\": ", i ? ", " : "", i);
    put_string(names[i], strlen(names[i]));
    put(", \"type\": \"%s\", \"dims\": [", TYPE_NAMES[type]);
    for (uint32_t k = 0; k < rank; ++k) put("%s%u", k ? ", " : "", dims[k]);
    put("]}");
    named[i] = wnn_named(names[i], wnn_tensor_new(dims, rank, (wnn_tensor_type)type, data, (uint32_t)bytes));
    free(data);
  }
  put("]");
  wnn_named_tensor_list results = {0, 0};
  if (wnn_compute(ctx, named, ins.len, &results, &err)) wit_failed("compute", err);

  put(",\n\"outputs_read\": [");
  int first = 1;
  for (uint32_t i = 0; i < outs.len; ++i) {
    char *want = tensor_name(&outs.ptr[i], i);
    const int at = wnn_find_output(&results, want);
    if (at < 0) {
      put("%s{\"index\": %u, \"name\": ", first ? "" : ", ", i);
      put_string(want, strlen(want));
      put(", \"missing\": true}");
      first = 0;
      free(want);
      continue;
    }
    wnn_named_tensor *o = &results.ptr[at];
    wnn_u32_list dims = wnn_tensor_dimensions(o->tensor);
    const wnn_tensor_type ty = wnn_tensor_ty(o->tensor);
    wnn_bytes data = wnn_tensor_data(o->tensor);
    if (out_dir) write_all(out_dir, "output", i, data.ptr, data.len);
    put("%s{\"index\": %u, \"name\": ", first ? "" : ", ", i);
    put_string(want, strlen(want));
    put(", \"type\": \"%s\", \"dims\": [", (unsigned)ty < WNN_TYPE_COUNT ? TYPE_NAMES[ty] : "?");
    for (uint32_t k = 0; k < dims.len; ++k) put("%s%u", k ? ", " : "", dims.ptr[k]);
    put("], \"bytes\": %u}", data.len);
    first = 0;
    free(data.ptr);
    free(dims.ptr);
    free(want);
    wnn_tensor_drop(o->tensor);
    o->tensor = 0;
  }
  put("]");
  /* Outputs the host returned under a name no description has. */
  put(",\n\"unmatched\": [");
  first = 1;
  for (uint32_t k = 0; k < results.len; ++k) {
    if (!results.ptr[k].tensor) continue;
    put(first ? "" : ", ");
    put_string(results.ptr[k].name, results.ptr[k].name_len);
    first = 0;
  }
  put("]");
  wnn_named_tensor_list_free(&results);
  wnn_context_drop(ctx);
  wnx_description_list_free(&ins);
  wnx_description_list_free(&outs);
  wnn_graph_drop(graph);
  finish_json();
  return 0;
}
