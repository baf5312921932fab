// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * bench_guest: a generic wasi-nn reactor guest for guest-versus-native benchmarks. The host
 * (bench/common/guest_bench.h) instantiates it, calls _initialize, bench_setup once, then
 * bench_infer many times; bench_save_outputs writes the last outputs for a correctness check.
 *
 * Configuration comes from WASI argv, in run_model's syntax:
 *   (--model FILE[,FILE2] [--encoding N] [--target N] | --name NAME [--config JSON])
 *   --input INDEX:TYPE:DIMS:FILE ...          TYPE f16 f32 f64 u8 i32 i64 or a number; DIMS 1x3x224x224
 *   --output INDEX[:FILE[:MAX_BYTES]] ...     FILE is written by bench_save_outputs
 *   [--repeat N]                              inferences per bench_infer call (default 1)
 * Every export returns 0, a wasi-nn errno, or one of the BENCH_* codes below, and prints the
 * failing step to stderr.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wasi/api.h>

#include "wasi_nn.h"

#define BENCH_USAGE 200     /* bad or missing arguments */
#define BENCH_IO 201        /* a file could not be read or written */
#define BENCH_NO_MEMORY 202 /* malloc failed */
#define BENCH_NOT_READY 203 /* bench_setup has not succeeded */

#define MAX_ITEMS 16
#define MAX_RANK 8
#define DEFAULT_OUTPUT_MAX (16u << 20)

struct input {
  uint32_t index, rank, dims[MAX_RANK];
  uint8_t type;
  unsigned char* data;
  uint32_t data_len;
};

struct output {
  uint32_t index, max, written;
  const char* file; /* NULL: not saved */
  unsigned char* buf;
};

static struct {
  int ready;
  wasi_nn_context ctx;
  uint32_t repeat;
  int n_in, n_out;
  struct input in[MAX_ITEMS];
  struct output out[MAX_ITEMS];
} bench;

static int fail(int code, const char* step, const char* what) {
  fprintf(stderr, "bench_guest: %s failed (%d)%s%s\n", step, code, what ? ": " : "", what ? what : "");
  return code;
}

static int read_all(const char* path, unsigned char** data, uint32_t* len) {
  FILE* f = fopen(path, "rb");
  if (!f) return fail(BENCH_IO, "open", path);
  long n = (fseek(f, 0, SEEK_END) == 0) ? ftell(f) : -1;
  if (n < 0 || fseek(f, 0, SEEK_SET) != 0) {
    fclose(f);
    return fail(BENCH_IO, "seek", path);
  }
  *data = malloc(n > 0 ? (size_t)n : 1);
  if (!*data) {
    fclose(f);
    return fail(BENCH_NO_MEMORY, "malloc", path);
  }
  size_t got = fread(*data, 1, (size_t)n, f);
  fclose(f);
  if (got != (size_t)n) return fail(BENCH_IO, "read", path);
  *len = (uint32_t)n;
  return 0;
}

static int parse_type(const char* s) {
  static const char* names[] = {"f16", "f32", "f64", "u8", "i32", "i64"};
  for (int i = 0; i < 6; ++i)
    if (strcmp(s, names[i]) == 0) return i;
  return atoi(s);
}

/* INDEX:TYPE:DIMS:FILE; the input's file is read here, once, so bench_infer does no I/O. */
static int parse_input(char* spec) {
  if (bench.n_in == MAX_ITEMS) return fail(BENCH_USAGE, "--input", "too many inputs");
  struct input* p = &bench.in[bench.n_in++];
  char *index = strtok(spec, ":"), *type = strtok(NULL, ":"), *dims = strtok(NULL, ":");
  char* file = strtok(NULL, "");
  if (!index || !type || !dims || !file) return fail(BENCH_USAGE, "--input", "expected INDEX:TYPE:DIMS:FILE");
  p->index = (uint32_t)atoi(index);
  p->type = (uint8_t)parse_type(type);
  p->rank = 0;
  for (char* d = strtok(dims, "x"); d; d = strtok(NULL, "x")) {
    if (p->rank == MAX_RANK) return fail(BENCH_USAGE, "--input", "rank above 8");
    p->dims[p->rank++] = (uint32_t)atoi(d);
  }
  return read_all(file, &p->data, &p->data_len);
}

/* INDEX[:FILE[:MAX_BYTES]] */
static int parse_output(char* spec) {
  if (bench.n_out == MAX_ITEMS) return fail(BENCH_USAGE, "--output", "too many outputs");
  struct output* p = &bench.out[bench.n_out++];
  char *index = strtok(spec, ":"), *file = strtok(NULL, ":"), *max = strtok(NULL, "");
  if (!index) return fail(BENCH_USAGE, "--output", "expected INDEX[:FILE[:MAX_BYTES]]");
  p->index = (uint32_t)atoi(index);
  p->file = (file && *file) ? file : NULL;
  p->max = max ? (uint32_t)strtoul(max, NULL, 10) : DEFAULT_OUTPUT_MAX;
  p->buf = malloc(p->max ? p->max : 1);
  return p->buf ? 0 : fail(BENCH_NO_MEMORY, "malloc", "output buffer");
}

static int load_graph(char* model, const char* name, const char* config, uint32_t encoding, uint32_t target,
                      wasi_nn_graph* graph) {
  int32_t err;
  if (name && config) {
    err = wasi_nn_load_by_name_with_config(name, (uint32_t)strlen(name), config, (uint32_t)strlen(config), graph);
    return err ? fail(err, "load_by_name_with_config", name) : 0;
  }
  if (name) {
    err = wasi_nn_load_by_name(name, (uint32_t)strlen(name), graph);
    return err ? fail(err, "load_by_name", name) : 0;
  }
  wasi_nn_graph_builder builders[2];
  uint32_t count = 0;
  for (char* f = strtok(model, ","); f; f = strtok(NULL, ",")) {
    if (count == 2) return fail(BENCH_USAGE, "--model", "at most two files");
    unsigned char* data;
    int rc = read_all(f, &data, &builders[count].size);
    if (rc) return rc;
    builders[count++].buf = data;
  }
  err = wasi_nn_load(builders, count, encoding, target, graph);
  /* The host copies what it keeps, so the model bytes can go now. */
  for (uint32_t i = 0; i < count; ++i) free((void*)builders[i].buf);
  return err ? fail(err, "load", model) : 0;
}

/* Reactor modules get no argv in main; read it from WASI directly. The buffers live forever:
   the parsed specs point into them. */
static int wasi_argv(int* argc, char*** argv) {
  __wasi_size_t count = 0, bytes = 0;
  if (__wasi_args_sizes_get(&count, &bytes) != 0) return fail(BENCH_IO, "args_sizes_get", NULL);
  *argv = malloc((count + 1) * sizeof(char*));
  char* buf = malloc(bytes ? bytes : 1);
  if (!*argv || !buf) return fail(BENCH_NO_MEMORY, "malloc", "argv");
  if (__wasi_args_get((uint8_t**)*argv, (uint8_t*)buf) != 0) return fail(BENCH_IO, "args_get", NULL);
  (*argv)[count] = NULL;
  *argc = (int)count;
  return 0;
}

__attribute__((export_name("bench_setup"))) int32_t bench_setup(void) {
  int argc, rc;
  char** argv;
  if ((rc = wasi_argv(&argc, &argv))) return rc;
  char* model = NULL;
  const char *name = NULL, *config = NULL;
  uint32_t encoding = WASI_NN_ENCODING_ONNX, target = WASI_NN_TARGET_CPU;
  bench.repeat = 1;
  for (int i = 1; i < argc; i += 2) {
    if (i + 1 >= argc) return fail(BENCH_USAGE, "arguments", argv[i]);
    char* v = argv[i + 1];
    if (!strcmp(argv[i], "--model"))
      model = v;
    else if (!strcmp(argv[i], "--name"))
      name = v;
    else if (!strcmp(argv[i], "--config"))
      config = v;
    else if (!strcmp(argv[i], "--encoding"))
      encoding = (uint32_t)atoi(v);
    else if (!strcmp(argv[i], "--target"))
      target = (uint32_t)atoi(v);
    else if (!strcmp(argv[i], "--repeat"))
      bench.repeat = (uint32_t)atoi(v);
    else if (!strcmp(argv[i], "--input"))
      rc = parse_input(v);
    else if (!strcmp(argv[i], "--output"))
      rc = parse_output(v);
    else
      return fail(BENCH_USAGE, "unknown option", argv[i]);
    if (rc) return rc;
  }
  if ((!model) == (!name)) return fail(BENCH_USAGE, "arguments", "give exactly one of --model and --name");
  if (bench.n_out == 0) return fail(BENCH_USAGE, "arguments", "give at least one --output");
  if (bench.repeat == 0) return fail(BENCH_USAGE, "--repeat", "must be at least 1");

  wasi_nn_graph graph;
  if ((rc = load_graph(model, name, config, encoding, target, &graph))) return rc;
  int32_t err = wasi_nn_init_execution_context(graph, &bench.ctx);
  if (err) return fail(err, "init_execution_context", NULL);
  bench.ready = 1;
  return 0;
}

/* The measured work: what a serving guest does per request, with its data already in memory. */
__attribute__((export_name("bench_infer"))) int32_t bench_infer(void) {
  if (!bench.ready) return BENCH_NOT_READY;
  for (uint32_t r = 0; r < bench.repeat; ++r) {
    for (int i = 0; i < bench.n_in; ++i) {
      const struct input* p = &bench.in[i];
      wasi_nn_tensor t = {p->dims, p->rank, p->type, {0, 0, 0}, p->data, p->data_len};
      int32_t err = wasi_nn_set_input(bench.ctx, p->index, &t);
      if (err) return fail(err, "set_input", NULL);
    }
    int32_t err = wasi_nn_compute(bench.ctx);
    if (err) return fail(err, "compute", NULL);
    for (int i = 0; i < bench.n_out; ++i) {
      struct output* p = &bench.out[i];
      err = wasi_nn_get_output(bench.ctx, p->index, p->buf, p->max, &p->written);
      if (err) return fail(err, "get_output", NULL);
    }
  }
  return 0;
}

/* Writes each output of the last bench_infer that has a FILE to it. */
__attribute__((export_name("bench_save_outputs"))) int32_t bench_save_outputs(void) {
  if (!bench.ready) return BENCH_NOT_READY;
  for (int i = 0; i < bench.n_out; ++i) {
    const struct output* p = &bench.out[i];
    if (!p->file) continue;
    FILE* f = fopen(p->file, "wb");
    if (!f) return fail(BENCH_IO, "open", p->file);
    size_t put = fwrite(p->buf, 1, p->written, f);
    if (fclose(f) != 0 || put != p->written) return fail(BENCH_IO, "write", p->file);
  }
  return 0;
}

/* Does nothing: its timing is the cost of one embedding-API call into the guest. */
__attribute__((export_name("bench_noop"))) int32_t bench_noop(void) { return 0; }
