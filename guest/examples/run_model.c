/*
 * run_model: a generic wasi-nn driver for tests and scripts. Loads a model, sets inputs from
 * files, computes, and writes outputs to files.
 *
 *   run_model (--model FILE[,FILE2] [--encoding N] [--target N] | --name NAME)
 *             [--input INDEX:TYPE:DIMS:FILE]... [--output INDEX:FILE[:MAX_BYTES]]... [--repeat N]
 *
 * TYPE is f16 f32 f64 u8 i32 i64 (witx numbering) or a raw number; DIMS is like 1x3x224x224.
 * On a wasi-nn error it prints "errno N in STEP" and exits with status N.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wasi_nn.h"

#define MAX_ITEMS 16

static unsigned char *read_all(const char *path, uint32_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "run_model: cannot open %s\n", path);
    exit(2);
  }
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char *buf = malloc(n > 0 ? (size_t)n : 1);
  if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) exit(2);
  fclose(f);
  *len = (uint32_t)n;
  return buf;
}

static void check(int32_t err, const char *step) {
  if (err != WASI_NN_SUCCESS) {
    printf("errno %d in %s\n", err, step);
    exit(err);
  }
}

static int parse_type(const char *s) {
  static const char *names[] = {"f16", "f32", "f64", "u8", "i32", "i64"};
  for (int i = 0; i < 6; ++i) if (strcmp(s, names[i]) == 0) return i;
  return atoi(s);
}

struct input {
  uint32_t index, dims[8], rank;
  uint8_t type;
  const char *file;
};
struct output {
  uint32_t index, max;
  const char *file;
};

int main(int argc, char **argv) {
  const char *model = NULL, *name = NULL;
  uint32_t encoding = WASI_NN_ENCODING_ONNX, target = WASI_NN_TARGET_CPU, repeat = 1;
  struct input in[MAX_ITEMS];
  struct output out[MAX_ITEMS];
  int n_in = 0, n_out = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    char *v = argv[i + 1];
    if (!strcmp(argv[i], "--model")) model = v;
    else if (!strcmp(argv[i], "--name")) name = v;
    else if (!strcmp(argv[i], "--encoding")) encoding = (uint32_t)atoi(v);
    else if (!strcmp(argv[i], "--target")) target = (uint32_t)atoi(v);
    else if (!strcmp(argv[i], "--repeat")) repeat = (uint32_t)atoi(v);
    else if (!strcmp(argv[i], "--input") && n_in < MAX_ITEMS) {
      struct input *p = &in[n_in++];
      p->index = (uint32_t)atoi(strtok(v, ":"));
      p->type = (uint8_t)parse_type(strtok(NULL, ":"));
      char *dims = strtok(NULL, ":");
      p->file = strtok(NULL, "");
      p->rank = 0;
      for (char *d = strtok(dims, "x"); d && p->rank < 8; d = strtok(NULL, "x")) p->dims[p->rank++] = (uint32_t)atoi(d);
    } else if (!strcmp(argv[i], "--output") && n_out < MAX_ITEMS) {
      struct output *p = &out[n_out++];
      p->index = (uint32_t)atoi(strtok(v, ":"));
      p->file = strtok(NULL, ":");
      char *max = strtok(NULL, "");
      p->max = max ? (uint32_t)atoi(max) : 64u << 20;
    } else {
      fprintf(stderr, "run_model: unknown or incomplete option %s\n", argv[i]);
      return 2;
    }
  }
  if (!model && !name) {
    fprintf(stderr, "usage: run_model (--model FILE[,FILE2] | --name NAME) [--input I:TYPE:DIMS:FILE]... "
                    "[--output I:FILE[:MAX]]... [--repeat N]\n");
    return 2;
  }

  wasi_nn_graph graph;
  if (name) {
    check(wasi_nn_load_by_name(name, (uint32_t)strlen(name), &graph), "load_by_name");
  } else {
    wasi_nn_graph_builder builders[2];
    uint32_t count = 0;
    for (char *f = strtok((char *)model, ","); f && count < 2; f = strtok(NULL, ",")) {
      builders[count].buf = read_all(f, &builders[count].size);
      ++count;
    }
    check(wasi_nn_load(builders, count, encoding, target, &graph), "load");
  }
  wasi_nn_context ctx;
  check(wasi_nn_init_execution_context(graph, &ctx), "init_execution_context");

  unsigned char *data[MAX_ITEMS];
  uint32_t data_len[MAX_ITEMS];
  for (int i = 0; i < n_in; ++i) data[i] = read_all(in[i].file, &data_len[i]);
  unsigned char *buf = NULL;
  uint32_t written = 0;
  for (uint32_t r = 0; r < repeat; ++r) {
    for (int i = 0; i < n_in; ++i) {
      wasi_nn_tensor t = {in[i].dims, in[i].rank, in[i].type, {0, 0, 0}, data[i], data_len[i]};
      check(wasi_nn_set_input(ctx, in[i].index, &t), "set_input");
    }
    check(wasi_nn_compute(ctx), "compute");
  }
  for (int i = 0; i < n_out; ++i) {
    buf = realloc(buf, out[i].max ? out[i].max : 1);
    check(wasi_nn_get_output(ctx, out[i].index, buf, out[i].max, &written), "get_output");
    FILE *f = fopen(out[i].file, "wb");
    if (!f || fwrite(buf, 1, written, f) != written || fclose(f) != 0) {
      fprintf(stderr, "run_model: cannot write %s\n", out[i].file);
      return 2;
    }
    printf("output %u: %u bytes -> %s\n", out[i].index, written, out[i].file);
  }
  check(wasi_nn_finalize_execution_context(ctx), "finalize_execution_context");
  check(wasi_nn_unload(graph), "unload");
  return 0;
}
