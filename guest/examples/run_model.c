// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * run_model: a generic wasi-nn driver for tests and scripts. Loads a model, sets inputs from
 * files, computes, and writes outputs to files.
 *
 *   run_model (--model FILE[,FILE...] [--encoding E] [--target T] | --name NAME) [--io IO.json]
 *             [--input SPEC]... [--output SPEC]... [--repeat N]
 *
 *   --input INDEX:TYPE:DIMS:FILE   explicit: TYPE is f16 f32 f64 u8 i32 i64 (witx numbering) or a
 *                                  raw number 0-255; DIMS is like 1x3x224x224, and empty
 *                                  (INDEX:TYPE::FILE) for a rank-0 tensor (a scalar)
 *   --input REF=FILE               REF is an input's NAME or INDEX in the --io file, which gives
 *   --input REF:DIMS=FILE          the type and shape; a single dynamic dimension (-1) is inferred
 *                                  from FILE's size; otherwise DIMS gives the whole shape, and must
 *                                  agree with every fixed dimension the model declares
 *   --output INDEX:FILE[:MAX_BYTES]
 *   --output REF=FILE[:MAX_BYTES]  REF as for --input (a NAME needs --io); MAX_BYTES: 64 MiB
 *   --io IO.json                   what `wasinn models inspect --json MODEL > IO.json` prints
 *   --encoding E                   a number or openvino onnx tensorflow pytorch tensorflowlite
 *                                  autodetect ggml (default onnx)
 *   --target T                     a number or cpu gpu tpu auto (default cpu)
 *   --repeat N                     set the inputs and compute N times (default 1)
 *   --fetch each|last              read the outputs after every compute, or (default) once at the
 *                                  end (benchmarks: each times a whole inference)
 *   --help
 *
 * Names exist only here: witx's set_input and get_output take an index, so a NAME is turned into
 * its index through the --io file before any wasi-nn call.
 *
 * Exit status: 0; N with "errno N in STEP" on stdout when a wasi-nn call fails with errno N (tests
 * read that line); 2 with one "run_model: ..." line on stderr for run_model's own errors (a bad
 * argument, an unreadable file, a tensor file whose size does not fit its --io shape). The
 * explicit --input form leaves size checks to the host, so tests can reach its errors.
 *
 * The --io file is read by run_model_io.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run_model_io.h"
#include "wasi_nn.h"
#include "wasi_nn_names.h"

#define EXIT_USAGE 2
#define MAX_TENSORS 64  /* --input / --output flags */
#define MAX_BUILDERS 16 /* files in --model */
#define DEFAULT_OUTPUT_MAX (64u << 20)

static const char USAGE[] =
    "usage: run_model (--model FILE[,FILE...] [--encoding E] [--target T] | --name NAME)\n"
    "                 [--io IO.json] [--input SPEC]... [--output SPEC]... [--repeat N]\n"
    "\n"
    "  --model FILE[,FILE...]        the model's files, one graph builder each\n"
    "  --name NAME                   a model the host preloaded (load_by_name)\n"
    "  --encoding E                  a number or openvino onnx tensorflow pytorch tensorflowlite\n"
    "                                autodetect ggml (default onnx); --model only\n"
    "  --target T                    a number or cpu gpu tpu auto (default cpu); --model only\n"
    "  --io IO.json                  the model's inputs and outputs, as printed by\n"
    "                                `wasinn models inspect --json MODEL > IO.json`\n"
    "  --input INDEX:TYPE:DIMS:FILE  TYPE f16 f32 f64 u8 i32 i64 or 0-255; DIMS like 1x3x224x224,\n"
    "                                empty for a scalar (0:i64::FILE)\n"
    "  --input REF=FILE              REF: an input's NAME or INDEX in --io, which gives type and\n"
    "                                shape; one dynamic dimension is inferred from FILE's size\n"
    "  --input REF:DIMS=FILE         the same with the whole shape given (several dynamic\n"
    "                                dimensions, or a shape the model does not declare)\n"
    "  --output INDEX:FILE[:MAX_BYTES] or REF=FILE[:MAX_BYTES]\n"
    "                                write an output to FILE (MAX_BYTES default 64 MiB)\n"
    "  --repeat N                    set the inputs and compute N times (default 1)\n"
    "  --fetch each|last             read the outputs after every compute or once at the end (default)\n"
    "  --help                        this text\n"
    "\n"
    "A failed wasi-nn call prints \"errno N in STEP\" and exits N; run_model's own errors exit 2.\n";

/* One line on stderr and exit 2: every error run_model finds itself ends here. */
void fail(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("run_model: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  exit(EXIT_USAGE);
}

void* xmalloc(size_t n) {
  void* p = malloc(n ? n : 1);
  if (!p) fail("out of memory (%zu bytes)", n);
  return p;
}

static char* dup_span(const char* s, size_t n) {
  char* p = xmalloc(n + 1);
  memcpy(p, s, n);
  p[n] = '\0';
  return p;
}

static void check(int32_t err, const char* step) {
  if (err != WASI_NN_SUCCESS) {
    printf("errno %d in %s\n", err, step);
    exit(err);
  }
}

/* ---- files ---- */

struct blob read_all(const char* path, const char* what) {
  FILE* f = fopen(path, "rb");
  if (!f)
    fail(
        "cannot open %s %s: %s (a wasm guest sees only the directories given with wasinn run --dir "
        "HOST_DIR::GUEST_DIR)",
        what, path, strerror(errno));
  /* ftello, not ftell: long is 32 bits on wasm32. */
  if (fseeko(f, 0, SEEK_END) != 0) fail("cannot read %s %s: %s", what, path, strerror(errno));
  const off_t n = ftello(f);
  if (n < 0 || fseeko(f, 0, SEEK_SET) != 0) fail("cannot read %s %s: %s", what, path, strerror(errno));
  /* Every wasi-nn length is a u32. */
  if ((uint64_t)n > UINT32_MAX) fail("%s %s is larger than 4 GiB", what, path);
  struct blob b = {xmalloc((size_t)n), (uint32_t)n};
  if (fread(b.data, 1, (size_t)n, f) != (size_t)n) fail("cannot read %s %s: %s", what, path, strerror(errno));
  fclose(f);
  return b;
}

/* ---- numbers, types, dims ---- */

static int all_digits(const char* s, size_t n) {
  if (n == 0) return 0;
  for (size_t i = 0; i < n; ++i)
    if (s[i] < '0' || s[i] > '9') return 0;
  return 1;
}

/* A decimal u32: digits only (no sign, space or suffix), no overflow. */
static int parse_u32(const char* s, size_t n, uint32_t* out) {
  if (!all_digits(s, n)) return 0;
  uint64_t v = 0;
  for (size_t i = 0; i < n; ++i) {
    v = v * 10 + (uint64_t)(s[i] - '0');
    if (v > UINT32_MAX) return 0;
  }
  *out = (uint32_t)v;
  return 1;
}

static const uint32_t TYPE_SIZES[] = {2, 4, 8, 1, 4, 8};

static int type_by_name(const char* s, size_t n) {
  for (size_t i = 0; i < WASI_NN_TYPE_COUNT; ++i)
    if (strlen(WASI_NN_TYPE_NAMES[i]) == n && memcmp(WASI_NN_TYPE_NAMES[i], s, n) == 0) return (int)i;
  return -1;
}

/* --encoding's or --target's value (wasi_nn_names.h): a known name, or any u32: tests send
 * unknown numbers on purpose to reach the host's errors. */
static uint32_t parse_named(const char* flag, const char* v, const struct wasi_nn_named_value* table) {
  uint32_t n;
  if (parse_u32(v, strlen(v), &n) || wasi_nn_value_by_name(table, v, &n)) return n;
  char names[160] = "";
  for (const struct wasi_nn_named_value* t = table; t->name; ++t) {
    strncat(names, " ", sizeof names - strlen(names) - 1);
    strncat(names, t->name, sizeof names - strlen(names) - 1);
  }
  fail("%s '%s': not a number nor one of%s", flag, v, names);
}

struct shape {
  uint32_t rank;
  uint32_t dims[MAX_RANK];
};

/* DIMS: "" is rank 0; otherwise u32s joined by 'x'. Returns NULL or what is wrong. */
static const char* parse_dims(const char* s, size_t n, struct shape* out) {
  static char why[96];
  out->rank = 0;
  if (n == 0) return NULL;
  const char* end = s + n;
  for (const char* p = s;;) {
    const char* x = memchr(p, 'x', (size_t)(end - p));
    const char* stop = x ? x : end;
    if (out->rank == MAX_RANK) {
      snprintf(why, sizeof why, "more than %d dimensions", MAX_RANK);
      return why;
    }
    if (stop - p == 1 && *p == '?') {
      /* What `wasinn models inspect` shows for a dynamic dimension: the run needs its size. */
      snprintf(why, sizeof why, "dimension %u is '?'; give its size", out->rank + 1);
      return why;
    }
    if (!parse_u32(p, (size_t)(stop - p), &out->dims[out->rank])) {
      snprintf(why, sizeof why, "dimension %u ('%.*s') is not a number from 0 to 4294967295", out->rank + 1,
               (int)(stop - p) > 24 ? 24 : (int)(stop - p), p);
      return why;
    }
    ++out->rank;
    if (!x) return NULL;
    p = x + 1;
  }
}

/* "[2, 3]", "[]" for rank 0: the host's notation, for messages. */
static const char* dims_text(const struct shape* s) {
  static char buf[256];
  size_t used = (size_t)snprintf(buf, sizeof buf, "[");
  for (uint32_t i = 0; i < s->rank && used < sizeof buf; ++i)
    used += (size_t)snprintf(buf + used, sizeof buf - used, i ? ", %u" : "%u", s->dims[i]);
  if (used < sizeof buf) snprintf(buf + used, sizeof buf - used, "]");
  return buf;
}

/* ---- --input and --output ---- */

struct input {
  const char* spec; /* the flag's value as given, for messages */
  char* ref;        /* REF=FILE form: the NAME or INDEX (with any ":DIMS"); NULL: explicit form */
  uint32_t index;
  uint8_t type;
  struct shape shape;
  char* file;
  struct blob data;
};

struct output {
  const char* spec;
  char* ref; /* REF=FILE form; NULL: explicit form */
  uint32_t index;
  uint32_t max;
  char* file;
};

/* The explicit form INDEX:TYPE:DIMS:FILE has three ':' before any '=' and starts with a number;
 * anything else with an '=' is REF[:DIMS]=FILE. A path may hold ':' or '=' in the explicit form
 * (FILE is the rest), a NAME may hold ':' (TensorFlow's "serving_default_x:0"). */
static void parse_input(const char* spec, struct input* in) {
  memset(in, 0, sizeof *in);
  in->spec = spec;
  const char* eq = strchr(spec, '=');
  const char* c1 = strchr(spec, ':');
  const char* c2 = c1 ? strchr(c1 + 1, ':') : NULL;
  const char* c3 = c2 ? strchr(c2 + 1, ':') : NULL;
  const int explicit_form = !eq || (c3 && c3 < eq && all_digits(spec, (size_t)(c1 - spec)));
  if (!explicit_form) {
    if (eq == spec) fail("--input '%s': no NAME or INDEX before '='", spec);
    if (eq[1] == '\0') fail("--input '%s': no FILE after '='", spec);
    in->ref = dup_span(spec, (size_t)(eq - spec));
    in->file = dup_span(eq + 1, strlen(eq + 1));
    return;
  }
  if (!c3) fail("--input '%s': expected INDEX:TYPE:DIMS:FILE (DIMS empty for a scalar), or NAME=FILE with --io", spec);
  if (!parse_u32(spec, (size_t)(c1 - spec), &in->index))
    fail("--input '%s': INDEX '%.*s' is not a number from 0 to 4294967295", spec, (int)(c1 - spec), spec);
  const char* type = c1 + 1;
  const size_t type_len = (size_t)(c2 - type);
  const int named = type_by_name(type, type_len);
  uint32_t number;
  if (named >= 0)
    in->type = (uint8_t)named;
  else if (parse_u32(type, type_len, &number) && number <= 255)
    in->type = (uint8_t)number;
  else
    fail("--input '%s': unknown TYPE '%.*s' (f16 f32 f64 u8 i32 i64, or a number 0-255)", spec, (int)type_len, type);
  const char* why = parse_dims(c2 + 1, (size_t)(c3 - c2 - 1), &in->shape);
  if (why) fail("--input '%s': DIMS '%.*s': %s", spec, (int)(c3 - c2 - 1), c2 + 1, why);
  if (c3[1] == '\0') fail("--input '%s': no FILE after DIMS", spec);
  in->file = dup_span(c3 + 1, strlen(c3 + 1));
}

static void parse_output(const char* spec, struct output* out) {
  memset(out, 0, sizeof *out);
  out->spec = spec;
  out->max = DEFAULT_OUTPUT_MAX;
  const char* eq = strchr(spec, '=');
  const char* c1 = strchr(spec, ':');
  const char* file;
  if (c1 && (!eq || c1 < eq) && all_digits(spec, (size_t)(c1 - spec))) {
    if (!parse_u32(spec, (size_t)(c1 - spec), &out->index))
      fail("--output '%s': INDEX '%.*s' is not a u32", spec, (int)(c1 - spec), spec);
    file = c1 + 1;
  } else if (eq && eq != spec) {
    out->ref = dup_span(spec, (size_t)(eq - spec));
    file = eq + 1;
  } else {
    fail("--output '%s': expected INDEX:FILE[:MAX_BYTES], or REF=FILE[:MAX_BYTES]", spec);
  }
  /* FILE runs to the next ':', as it always has; what follows is MAX_BYTES. */
  const char* colon = strchr(file, ':');
  const size_t file_len = colon ? (size_t)(colon - file) : strlen(file);
  if (file_len == 0) fail("--output '%s': no FILE", spec);
  out->file = dup_span(file, file_len);
  if (colon && !parse_u32(colon + 1, strlen(colon + 1), &out->max))
    fail("--output '%s': MAX_BYTES '%s' is not a u32", spec, colon + 1);
}

/* The io entry REF names: an index if REF is a number, else a name, which must be unique. */
static const struct io_tensor* find_io(const struct io_list* list, const char* kind, const char* spec, const char* ref,
                                       size_t ref_len) {
  uint32_t index;
  const struct io_tensor* found = NULL;
  if (parse_u32(ref, ref_len, &index)) {
    for (size_t i = 0; i < list->count; ++i)
      if (list->items[i].index == index) return &list->items[i];
    return NULL;
  }
  for (size_t i = 0; i < list->count; ++i) {
    const struct io_tensor* t = &list->items[i];
    if (strlen(t->name) != ref_len || memcmp(t->name, ref, ref_len) != 0) continue;
    if (found) fail("--%s '%s': two %ss are named '%.*s'; give the index", kind, spec, kind, (int)ref_len, ref);
    found = t;
  }
  return found;
}

/* REF or REF:DIMS: the whole text first, as a name may hold ':'; then split at the last ':'. */
static const struct io_tensor* resolve_ref(const struct io_list* list, const char* kind, const char* spec,
                                           const char* io_path, const char* ref, const char** dims) {
  *dims = NULL;
  const struct io_tensor* t = find_io(list, kind, spec, ref, strlen(ref));
  if (t) return t;
  const char* colon = strrchr(ref, ':');
  if (colon) {
    t = find_io(list, kind, spec, ref, (size_t)(colon - ref));
    if (t) {
      *dims = colon + 1;
      return t;
    }
  }
  /* One line naming what the file does list, so a typo is easy to see. */
  char known[512] = "";
  for (size_t i = 0; i < list->count && strlen(known) < sizeof known - 8; ++i) {
    char one[96];
    snprintf(one, sizeof one, "%s%u '%s'", i ? ", " : "", list->items[i].index, list->items[i].name);
    strncat(known, one, sizeof known - strlen(known) - 1);
  }
  if (colon)
    fail("--%s '%s': %s lists no %s '%s' or '%.*s' (%ss: %s)", kind, spec, io_path, kind, ref, (int)(colon - ref), ref,
         kind, list->count ? known : "none");
  fail("--%s '%s': %s lists no %s '%s' (%ss: %s)", kind, spec, io_path, kind, ref, kind, list->count ? known : "none");
}

/* "[?, 64]" as `wasinn models inspect` writes shapes. */
static const char* io_shape_text(const struct io_tensor* t) {
  static char buf[256];
  if (!t->shape_known) return "of undeclared shape";
  size_t used = (size_t)snprintf(buf, sizeof buf, "[");
  for (uint32_t i = 0; i < t->rank && used < sizeof buf; ++i) {
    if (t->dims[i] < 0)
      used += (size_t)snprintf(buf + used, sizeof buf - used, i ? ", ?" : "?");
    else
      used += (size_t)snprintf(buf + used, sizeof buf - used, i ? ", %" PRId64 : "%" PRId64, t->dims[i]);
  }
  if (used < sizeof buf) snprintf(buf + used, sizeof buf - used, "]");
  return buf;
}

/* Elements of a shape, or 0 with *overflow set when the count does not fit in 64 bits. */
static uint64_t element_count(const struct shape* s, int* overflow) {
  uint64_t n = 1;
  *overflow = 0;
  for (uint32_t i = 0; i < s->rank; ++i) {
    if (s->dims[i] != 0 && n > UINT64_MAX / s->dims[i]) *overflow = 1;
    n *= s->dims[i];
  }
  return *overflow ? 0 : n;
}

/* Type and shape of a REF=FILE input from its --io entry, checked against the file's size. */
static void resolve_input(struct input* in, const struct io_list* inputs, const char* io_path) {
  if (!io_path)
    fail(
        "--input '%s': REF=FILE takes type and shape from --io IO.json, and no --io was given "
        "(or use INDEX:TYPE:DIMS:FILE)",
        in->spec);
  const char* dims;
  const struct io_tensor* t = resolve_ref(inputs, "input", in->spec, io_path, in->ref, &dims);
  in->index = t->index;
  const int type = type_by_name(t->type, strlen(t->type));
  if (type < 0)
    fail(
        "--input '%s': input %u '%s' is of type '%s', which no witx tensor type carries "
        "(INDEX:TYPE:DIMS:FILE sends it under a type of your choice)",
        in->spec, t->index, t->name, t->type);
  in->type = (uint8_t)type;
  const uint32_t esize = TYPE_SIZES[type];

  if (dims) {
    const char* why = parse_dims(dims, strlen(dims), &in->shape);
    if (why) fail("--input '%s': DIMS '%s': %s", in->spec, dims, why);
    if (t->shape_known) {
      int fits = in->shape.rank == t->rank;
      for (uint32_t i = 0; fits && i < t->rank; ++i) fits = t->dims[i] < 0 || t->dims[i] == in->shape.dims[i];
      if (!fits)
        fail("--input '%s': DIMS %s do not fit input '%s' %s %s", in->spec, dims_text(&in->shape), t->name, t->type,
             io_shape_text(t));
    }
  } else {
    if (!t->shape_known)
      fail("--input '%s': the model does not declare the shape of input '%s'; give it: --input %s:DIMS=%s", in->spec,
           t->name, in->ref, in->file);
    uint32_t dynamic = 0, at = 0;
    for (uint32_t i = 0; i < t->rank; ++i)
      if (t->dims[i] < 0) ++dynamic, at = i;
    if (dynamic > 1)
      fail("--input '%s': input '%s' %s %s has %u dynamic dimensions; give them all: --input %s:DIMS=%s", in->spec,
           t->name, t->type, io_shape_text(t), dynamic, in->ref, in->file);
    in->shape.rank = t->rank;
    for (uint32_t i = 0; i < t->rank; ++i) in->shape.dims[i] = t->dims[i] < 0 ? 1 : (uint32_t)t->dims[i];
    if (dynamic == 1) {
      /* The one unknown dimension is whatever makes the file's size come out exact. */
      int overflow;
      const uint64_t step_elements = element_count(&in->shape, &overflow);
      if (overflow || step_elements > UINT32_MAX)
        fail("--input '%s': input '%s' %s %s is too large", in->spec, t->name, t->type, io_shape_text(t));
      const uint64_t step_bytes = step_elements * esize;
      if (step_bytes == 0 || in->data.len % step_bytes != 0)
        fail("--input '%s': %s has %u bytes, not a whole number of %" PRIu64
             "-byte steps of input '%s' "
             "%s %s's dynamic dimension",
             in->spec, in->file, in->data.len, step_bytes, t->name, t->type, io_shape_text(t));
      in->shape.dims[at] = (uint32_t)(in->data.len / step_bytes);
    }
  }
  int overflow;
  const uint64_t elements = element_count(&in->shape, &overflow);
  if (overflow || elements > UINT64_MAX / esize || elements * esize != in->data.len) {
    char need[32] = "more than 2^64";
    if (!overflow && elements <= UINT64_MAX / esize) snprintf(need, sizeof need, "%" PRIu64, elements * esize);
    fail("--input '%s': input '%s' %s %s needs %s bytes, %s has %u", in->spec, t->name, t->type, dims_text(&in->shape),
         need, in->file, in->data.len);
  }
  printf("input %u '%s': %s %s <- %s\n", in->index, t->name, t->type, dims_text(&in->shape), in->file);
}

static void resolve_output(struct output* out, const struct io_list* outputs, const char* io_path) {
  const size_t n = strlen(out->ref);
  if (parse_u32(out->ref, n, &out->index)) return; /* an index needs no --io */
  if (!io_path) fail("--output '%s': a NAME needs --io IO.json to find its index", out->spec);
  const char* dims;
  const struct io_tensor* t = resolve_ref(outputs, "output", out->spec, io_path, out->ref, &dims);
  if (dims) fail("--output '%s': outputs take no DIMS", out->spec);
  out->index = t->index;
}

/* ---- main ---- */

static const char* take_once(const char* flag, const char* old, const char* value) {
  if (old) fail("%s given twice", flag);
  return value;
}

int main(int argc, char** argv) {
  const char *model = NULL, *name = NULL, *io_path = NULL, *encoding_arg = NULL, *target_arg = NULL, *repeat_arg = NULL,
             *fetch_arg = NULL;
  static struct input in[MAX_TENSORS];
  static struct output out[MAX_TENSORS];
  int n_in = 0, n_out = 0;

  for (int i = 1; i < argc; ++i) {
    const char* flag = argv[i];
    if (!strcmp(flag, "--help") || !strcmp(flag, "-h")) {
      fputs(USAGE, stdout);
      return 0;
    }
    static const char* const FLAGS[] = {"--model", "--name",  "--encoding", "--target", "--repeat",
                                        "--io",    "--input", "--output",   "--fetch"};
    int known = 0;
    for (size_t k = 0; k < sizeof FLAGS / sizeof FLAGS[0]; ++k) known |= !strcmp(flag, FLAGS[k]);
    if (!known) fail("unknown option '%s' (run_model --help lists them)", flag);
    if (i + 1 >= argc) fail("%s needs a value", flag);
    const char* v = argv[++i];
    if (!strcmp(flag, "--model"))
      model = take_once(flag, model, v);
    else if (!strcmp(flag, "--name"))
      name = take_once(flag, name, v);
    else if (!strcmp(flag, "--encoding"))
      encoding_arg = take_once(flag, encoding_arg, v);
    else if (!strcmp(flag, "--target"))
      target_arg = take_once(flag, target_arg, v);
    else if (!strcmp(flag, "--repeat"))
      repeat_arg = take_once(flag, repeat_arg, v);
    else if (!strcmp(flag, "--fetch"))
      fetch_arg = take_once(flag, fetch_arg, v);
    else if (!strcmp(flag, "--io"))
      io_path = take_once(flag, io_path, v);
    else if (!strcmp(flag, "--input")) {
      if (n_in == MAX_TENSORS) fail("more than %d --input flags", MAX_TENSORS);
      parse_input(v, &in[n_in++]);
    } else {
      if (n_out == MAX_TENSORS) fail("more than %d --output flags", MAX_TENSORS);
      parse_output(v, &out[n_out++]);
    }
  }
  if (!model == !name) fail("give --model FILE or --name NAME, one of them (run_model --help for usage)");
  if (name && (encoding_arg || target_arg)) fail("--encoding and --target apply to --model, not --name");
  if (name && !*name) fail("--name is empty");
  const uint32_t encoding =
      encoding_arg ? parse_named("--encoding", encoding_arg, WASI_NN_ENCODING_NAMES) : WASI_NN_ENCODING_ONNX;
  const uint32_t target = target_arg ? parse_named("--target", target_arg, WASI_NN_TARGET_NAMES) : WASI_NN_TARGET_CPU;
  if (fetch_arg && strcmp(fetch_arg, "each") && strcmp(fetch_arg, "last"))
    fail("--fetch '%s': expected each or last", fetch_arg);
  const int fetch_each = fetch_arg && !strcmp(fetch_arg, "each");
  uint32_t repeat = 1;
  if (repeat_arg && (!parse_u32(repeat_arg, strlen(repeat_arg), &repeat) || repeat == 0))
    fail("--repeat '%s': expected a whole number of at least 1", repeat_arg);

  /* Everything that can be wrong with the arguments and files is found before the model loads,
   * which may take long. */
  struct io_list io_inputs = {0}, io_outputs = {0};
  if (io_path) read_io_file(io_path, &io_inputs, &io_outputs);
  for (int i = 0; i < n_in; ++i) {
    in[i].data = read_all(in[i].file, "input file");
    if (in[i].ref) resolve_input(&in[i], &io_inputs, io_path);
  }
  for (int i = 0; i < n_out; ++i)
    if (out[i].ref) resolve_output(&out[i], &io_outputs, io_path);

  wasi_nn_graph graph;
  if (name) {
    check(wasi_nn_load_by_name(name, (uint32_t)strlen(name), &graph), "load_by_name");
  } else {
    wasi_nn_graph_builder builders[MAX_BUILDERS];
    uint32_t count = 0;
    for (const char* f = model;;) {
      const char* comma = strchr(f, ',');
      const size_t len = comma ? (size_t)(comma - f) : strlen(f);
      if (len == 0) fail("--model '%s': an empty file name", model);
      if (count == MAX_BUILDERS) fail("--model '%s': more than %d files", model, MAX_BUILDERS);
      char* path = dup_span(f, len);
      const struct blob b = read_all(path, "model file");
      free(path);
      builders[count].buf = b.data;
      builders[count].size = b.len;
      ++count;
      if (!comma) break;
      f = comma + 1;
    }
    check(wasi_nn_load(builders, count, encoding, target, &graph), "load");
    for (uint32_t i = 0; i < count; ++i) free((void*)builders[i].buf);
  }
  wasi_nn_context ctx;
  check(wasi_nn_init_execution_context(graph, &ctx), "init_execution_context");

  for (uint32_t r = 0; r < repeat; ++r) {
    for (int i = 0; i < n_in; ++i) {
      wasi_nn_tensor t = {in[i].shape.dims, in[i].shape.rank, in[i].type, {0, 0, 0}, in[i].data.data, in[i].data.len};
      check(wasi_nn_set_input(ctx, in[i].index, &t), "set_input");
    }
    check(wasi_nn_compute(ctx), "compute");
    for (int i = 0; fetch_each && r + 1 < repeat && i < n_out; ++i) {
      static uint8_t* scratch;
      static uint32_t scratch_len;
      if (scratch_len < out[i].max) {
        free(scratch);
        scratch = xmalloc(scratch_len = out[i].max);
      }
      uint32_t written = 0;
      check(wasi_nn_get_output(ctx, out[i].index, scratch, out[i].max, &written), "get_output");
    }
  }
  uint8_t* buf = NULL;
  for (int i = 0; i < n_out; ++i) {
    free(buf);
    buf = xmalloc(out[i].max);
    uint32_t written = 0;
    check(wasi_nn_get_output(ctx, out[i].index, buf, out[i].max, &written), "get_output");
    FILE* f = fopen(out[i].file, "wb");
    if (!f) fail("cannot write %s: %s", out[i].file, strerror(errno));
    if (fwrite(buf, 1, written, f) != written || fclose(f) != 0)
      fail("cannot write %s: %s", out[i].file, strerror(errno));
    printf("output %u: %u bytes -> %s\n", out[i].index, written, out[i].file);
  }
  free(buf);
#ifndef RUN_MODEL_ORIGINAL_WITX
  check(wasi_nn_finalize_execution_context(ctx), "finalize_execution_context");
  check(wasi_nn_unload(graph), "unload");
#else
  (void)graph; /* the original witx (Wasmtime's) has neither: handles end with the process */
#endif
  return 0;
}
