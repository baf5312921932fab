// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * wasinn_describe_io.h: what the two describe_io test guests share (core module
 * guest/tests/describe_io.c, component guest/components/wit_describe_io.c): their messages and
 * exit, the JSON object they print, their command line, and each input built from its
 * description and the --dims/--type flags (data from wasinn_io_fill.h).
 *
 * Each guest names its tensor types (witx's six, or WIT's seven with bf16) in a struct dio_types
 * and turns its descriptions into struct dio_desc. Define DIO_PROG (the guest's name, for
 * messages) before including.
 */
#ifndef WASINN_DESCRIBE_IO_H_
#define WASINN_DESCRIBE_IO_H_

#ifndef DIO_PROG
#error "define DIO_PROG (the guest's name) before including wasinn_describe_io.h"
#endif

#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wasinn_io_fill.h"

#define DIO_MAX_DIMS_FLAGS 64
#define DIO_MAX_RANK 64
#define DIO_MAX_FEED_BYTES (512u << 20)

/* "DIO_PROG: ..." on stderr and exit CODE: 2 for a bad argument or file, 3 when the host's
 * answers contradict each other. */
__attribute__((noreturn, format(printf, 2, 3))) static inline void dio_die(int code, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs(DIO_PROG ": ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  exit(code);
}

static inline void* dio_xmalloc(size_t n) {
  void* p = malloc(n ? n : 1);
  if (!p) dio_die(2, "out of memory (%zu bytes)", n);
  return p;
}

/* ---- the JSON object, built in memory and printed whole ---- */

static char* dio_js;
static size_t dio_js_len, dio_js_cap;

__attribute__((format(printf, 1, 2))) static inline void dio_put(const char* fmt, ...) {
  for (;;) {
    va_list ap;
    va_start(ap, fmt);
    const int n = vsnprintf(dio_js + dio_js_len, dio_js_cap - dio_js_len, fmt, ap);
    va_end(ap);
    if (n >= 0 && (size_t)n < dio_js_cap - dio_js_len) {
      dio_js_len += (size_t)n;
      return;
    }
    dio_js_cap = dio_js_cap * 2 + (size_t)(n > 0 ? n : 0) + 256;
    dio_js = realloc(dio_js, dio_js_cap);
    if (!dio_js) dio_die(2, "out of memory");
  }
}

static inline void dio_put_string(const char* s, size_t n) {
  dio_put("\"");
  for (size_t i = 0; i < n; ++i) {
    const unsigned char c = (unsigned char)s[i];
    if (c == '"' || c == '\\')
      dio_put("\\%c", c);
    else if (c < 0x20)
      dio_put("\\u%04x", c);
    else
      dio_put("%c", c);
  }
  dio_put("\"");
}

/* Closes the object and prints it (also after an "error" member). */
static inline void dio_finish_json(void) {
  dio_put("}\n");
  fwrite(dio_js, 1, dio_js_len, stdout);
  fflush(stdout);
}

/* One [NAME, VALUE] of "properties" (the FIRST opens the list's lines). */
static inline void dio_put_property(int first, const char* name, size_t name_len, const char* value, size_t value_len) {
  dio_put(first ? "\n  [" : ",\n  [");
  dio_put_string(name, name_len);
  dio_put(", ");
  dio_put_string(value ? value : "", value_len);
  dio_put("]");
}

/* ---- types and descriptions ---- */

/* The guest's tensor types by its own numbering: names as printed, and how to fill each. */
struct dio_types {
  const char* const* names;
  const fill_type* fills;
  int count;
};

/* One input's or output's description in the guest's type numbering. */
struct dio_desc {
  const char* name;
  uint32_t name_len;
  int type;     /* -1: none */
  int has_dims; /* 0: the rank is unknown */
  uint32_t rank;
  const int64_t* dims; /* -1: a dynamic dimension */
};

/* "KEY": [{"index", "name", "type", "shape"}, ...] as `wasinn models inspect --json` prints it. */
static inline void dio_put_desc_list(const char* key, const struct dio_desc* ds, uint32_t n,
                                     const struct dio_types* types) {
  dio_put("\"%s\": [", key);
  for (uint32_t i = 0; i < n; ++i) {
    const struct dio_desc* d = &ds[i];
    dio_put("%s\n  {\"index\": %u, \"name\": ", i ? "," : "", i);
    dio_put_string(d->name ? d->name : "", d->name_len);
    if (d->type < 0)
      dio_put(", \"type\": null");
    else
      dio_put(", \"type\": \"%s\"", types->names[d->type]);
    if (!d->has_dims) {
      dio_put(", \"shape\": null}");
      continue;
    }
    dio_put(", \"shape\": [");
    for (uint32_t k = 0; k < d->rank; ++k) dio_put("%s%" PRId64, k ? ", " : "", d->dims[k]);
    dio_put("]}");
  }
  dio_put("\n]");
}

/* ---- the command line ---- */

/* --dims INDEX=DIMS or --type INDEX=TYPE */
struct dio_dims_flag {
  int type; /* --type: the guest's type number; -1 for --dims */
  uint32_t index;
  uint32_t rank;
  uint32_t dims[DIO_MAX_RANK];
};

static inline void dio_parse_dims_flag(const char* v, struct dio_dims_flag* f, int is_type,
                                       const struct dio_types* types) {
  char* end;
  const unsigned long index = strtoul(v, &end, 10);
  if (end == v || *end != '=')
    dio_die(2, "%s %s: expected INDEX=%s", is_type ? "--type" : "--dims", v, is_type ? "TYPE" : "DIMS");
  f->index = (uint32_t)index;
  f->rank = 0;
  f->type = -1;
  if (is_type) {
    char all[128] = "";
    for (int t = 0; t < types->count; ++t) {
      if (!strcmp(end + 1, types->names[t])) f->type = t;
      snprintf(all + strlen(all), sizeof all - strlen(all), " %s", types->names[t]);
    }
    if (f->type < 0) dio_die(2, "--type %s: TYPE is one of%s", v, all);
    return;
  }
  for (const char* p = end + 1; *p;) {
    const unsigned long d = strtoul(p, &end, 10);
    if (end == p || (*end && *end != 'x') || f->rank == DIO_MAX_RANK || d > UINT32_MAX)
      dio_die(2, "--dims %s: bad DIMS", v);
    f->dims[f->rank++] = (uint32_t)d;
    p = *end ? end + 1 : end;
  }
}

struct dio_args {
  const char *models, *name, *out_dir;
  /* Set by the guest before dio_start: the defaults of --encoding and --target, and how its
   * message for neither or both of --model and --name words the files ("FILE"). */
  int encoding, target;
  const char* model_words;
  int compute, properties;
  struct dio_dims_flag flags[DIO_MAX_DIMS_FLAGS];
  int n_flags;
};

/* The guest's --encoding and --target: the number VALUE names, or the guest ends (dio_die). */
typedef int (*dio_named_fn)(const char* flag, const char* value);

/* Reads the command line and opens the JSON object. Returns 1 after --help (printed), else 0 with
 * exactly one of --model and --name given; a bad argument ends the guest (exit 2). */
static inline int dio_start(int argc, char** argv, const struct dio_types* types, dio_named_fn named,
                            struct dio_args* a) {
  a->compute = 1;
  a->properties = 0;
  a->n_flags = 0;
  for (int i = 1; i < argc; ++i) {
    const char* f = argv[i];
    if (!strcmp(f, "--no-compute")) {
      a->compute = 0;
      continue;
    }
    if (!strcmp(f, "--properties")) {
      a->properties = 1;
      continue;
    }
    if (!strcmp(f, "--help")) {
      printf(
          "usage: %s (--model FILE[,FILE...] [--encoding E] [--target T] | --name NAME) [--out DIR]\n"
          "%*s[--dims INDEX=DIMS]... [--type INDEX=TYPE]... [--no-compute] [--properties]\n",
          DIO_PROG, (int)strlen("usage: " DIO_PROG " "), "");
      return 1;
    }
    if (i + 1 >= argc) dio_die(2, "%s needs a value", f);
    const char* v = argv[++i];
    if (!strcmp(f, "--model"))
      a->models = v;
    else if (!strcmp(f, "--name"))
      a->name = v;
    else if (!strcmp(f, "--encoding"))
      a->encoding = named(f, v);
    else if (!strcmp(f, "--target"))
      a->target = named(f, v);
    else if (!strcmp(f, "--out"))
      a->out_dir = v;
    else if (!strcmp(f, "--dims") || !strcmp(f, "--type")) {
      if (a->n_flags == DIO_MAX_DIMS_FLAGS) dio_die(2, "too many --dims and --type");
      dio_parse_dims_flag(v, &a->flags[a->n_flags++], !strcmp(f, "--type"), types);
    } else
      dio_die(2, "unknown argument %s (try --help)", f);
  }
  if (!a->models == !a->name) dio_die(2, "give --model %s or --name NAME", a->model_words);
  dio_put("{");
  return 0;
}

/* ---- the inputs ---- */

/* Why no input can be computed (NO_TYPE words a missing type: "witx type", "tensor-type"), or
 * NULL when every input can be built from its description or a --dims/--type. */
static inline const char* dio_skip_reason(const struct dio_args* a, const struct dio_desc* ins, uint32_t n_in,
                                          const char* no_type) {
  static char why[256];
  if (!a->compute) return "--no-compute";
  for (uint32_t i = 0; i < n_in; ++i) {
    int has_flag = 0, has_type = 0;
    for (int k = 0; k < a->n_flags; ++k) {
      has_flag |= a->flags[k].index == i && a->flags[k].type < 0;
      has_type |= a->flags[k].index == i && a->flags[k].type >= 0;
    }
    if (ins[i].type < 0 && !has_type) {
      snprintf(why, sizeof why, "input %u has no %s (give --type %u=TYPE)", i, no_type, i);
      return why;
    }
    if (!ins[i].has_dims && !has_flag) {
      snprintf(why, sizeof why, "input %u has no declared rank (give --dims %u=DIMS)", i, i);
      return why;
    }
  }
  return NULL;
}

/* Ends the JSON with "skipped": WHY. */
static inline void dio_finish_skipped(const char* why) {
  dio_put(",\n\"skipped\": ");
  dio_put_string(why, strlen(why));
  dio_finish_json();
}

/* One input as fed: its type, shape (each dynamic dimension 1, or a --dims) and data (malloc'd). */
struct dio_input {
  int type;
  uint32_t rank;
  uint32_t dims[DIO_MAX_RANK];
  unsigned char* data;
  uint32_t bytes;
};

static inline void dio_build_input(const struct dio_args* a, const struct dio_desc* d, uint32_t i,
                                   const struct dio_types* types, struct dio_input* in) {
  in->rank = d->has_dims ? d->rank : 0;
  if (in->rank > DIO_MAX_RANK) dio_die(2, "input %u has rank %u", i, in->rank);
  for (uint32_t k = 0; k < in->rank; ++k) in->dims[k] = d->dims[k] < 0 ? 1 : (uint32_t)d->dims[k];
  in->type = d->type;
  for (int k = 0; k < a->n_flags; ++k) {
    const struct dio_dims_flag* f = &a->flags[k];
    if (f->index != i) continue;
    if (f->type >= 0) {
      in->type = f->type;
      continue;
    }
    in->rank = f->rank;
    memcpy(in->dims, f->dims, sizeof(uint32_t) * f->rank);
  }
  const fill_type ft = types->fills[in->type];
  uint64_t elements = 1;
  for (uint32_t k = 0; k < in->rank; ++k) elements *= in->dims[k];
  const uint64_t bytes = elements * fill_element_size(ft);
  if (bytes > DIO_MAX_FEED_BYTES) dio_die(2, "input %u would be %" PRIu64 " bytes", i, bytes);
  in->data = dio_xmalloc((size_t)bytes);
  fill_tensor(ft, i, in->data, elements);
  in->bytes = (uint32_t)bytes;
}

/* One item of "fed": {"index", "name" (when NAME is not NULL), "type", "dims"}. */
static inline void dio_put_fed(uint32_t i, const char* name, const struct dio_input* in,
                               const struct dio_types* types) {
  dio_put("%s{\"index\": %u", i ? ", " : "", i);
  if (name) {
    dio_put(", \"name\": ");
    dio_put_string(name, strlen(name));
  }
  dio_put(", \"type\": \"%s\", \"dims\": [", types->names[in->type]);
  for (uint32_t k = 0; k < in->rank; ++k) dio_put("%s%u", k ? ", " : "", in->dims[k]);
  dio_put("]}");
}

/* DIR/KIND_INDEX.bin holding DATA: NULL, or the path it could not write (errno says why). */
static inline const char* dio_write_bin(const char* dir, const char* kind, uint32_t index, const void* data, size_t n) {
  static char path[4096];
  snprintf(path, sizeof path, "%s/%s_%u.bin", dir, kind, index);
  FILE* f = fopen(path, "wb");
  if (!f || (n && fwrite(data, 1, n, f) != n) || fclose(f) != 0) return path;
  return NULL;
}

#endif /* WASINN_DESCRIBE_IO_H_ */
