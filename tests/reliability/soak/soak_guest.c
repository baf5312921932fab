// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * soak_guest: the guest side of the soak test (tests/reliability/soak), a reactor. The host
 * calls _initialize, soak_setup once, then soak_batch many times, sampling its own resident
 * memory between calls. Every cycle is the whole wasi-nn life of a model:
 *   load (from bytes) -> init_execution_context -> set_input -> compute -> get_output
 *   -> finalize_execution_context -> unload
 * and every cycle's output is checked.
 *
 * argv: --model FILE[,FILE2] --encoding N [--config JSON] --batch N
 *       (--digits X_F32_FILE,Y_U8_FILE --samples K | --prompt TEXT)
 *   --config   an extra last builder holding a JSON load config (llama.cpp's convention)
 *   --digits   the sklearn-digits test split; cycle i feeds sample i % K as f32 [1, 64] and
 *              requires argmax(output 0) == its label
 *   --prompt   a text model: output 0 must be non-empty and equal to the first cycle's output
 * Exports return 0, a wasi-nn errno, or a SOAK_* code below; the failing step goes to stderr.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wasi/api.h>

#include "wasi_nn.h"

#define SOAK_USAGE 200     /* bad or missing arguments */
#define SOAK_IO 201        /* a fixture could not be read */
#define SOAK_NO_MEMORY 202 /* malloc failed */
#define SOAK_NOT_READY 203 /* soak_setup has not succeeded */
#define SOAK_WRONG 210     /* a cycle's output failed its check */

#define N_FEATURES 64
#define N_CLASSES 10
#define MAX_SAMPLES 256
#define TEXT_MAX (1u << 16)

static struct {
  int ready;
  wasi_nn_graph_builder builders[3];
  uint32_t n_builders, encoding, batch;
  /* digits mode */
  float* x;
  uint8_t labels[MAX_SAMPLES];
  uint32_t n_samples;
  /* text mode */
  const char* prompt;
  uint8_t* first_text; /* the first cycle's output, the reference for all later cycles */
  uint32_t first_len;
  uint64_t cycles_done;
} s;

static uint8_t out_buf[TEXT_MAX];

static int32_t fail(int32_t code, const char* step) {
  fprintf(stderr, "soak_guest: cycle %llu: %s failed (%d)\n", (unsigned long long)s.cycles_done, step, code);
  return code;
}

static int32_t read_all(const char* path, uint8_t** data, uint32_t* len) {
  FILE* f = fopen(path, "rb");
  if (!f) return fail(SOAK_IO, path);
  long n = (fseek(f, 0, SEEK_END) == 0) ? ftell(f) : -1;
  if (n < 0 || fseek(f, 0, SEEK_SET) != 0) {
    fclose(f);
    return fail(SOAK_IO, path);
  }
  *data = malloc(n > 0 ? (size_t)n : 1);
  if (!*data) {
    fclose(f);
    return fail(SOAK_NO_MEMORY, path);
  }
  size_t got = fread(*data, 1, (size_t)n, f);
  fclose(f);
  if (got != (size_t)n) return fail(SOAK_IO, path);
  *len = (uint32_t)n;
  return 0;
}

/* Reactors get no argv in main; read it from WASI. The strings live as long as the instance. */
static int32_t wasi_argv(int* argc, char*** argv) {
  __wasi_size_t count = 0, bytes = 0;
  if (__wasi_args_sizes_get(&count, &bytes) != 0) return SOAK_USAGE;
  *argv = malloc((count + 1) * sizeof(char*));
  char* buf = malloc(bytes ? bytes : 1);
  if (!*argv || !buf) return SOAK_NO_MEMORY;
  if (__wasi_args_get((uint8_t**)*argv, (uint8_t*)buf) != 0) return SOAK_USAGE;
  (*argv)[count] = NULL;
  *argc = (int)count;
  return 0;
}

static int32_t read_digits(char* spec, uint32_t wanted) {
  char *x_path = strtok(spec, ","), *y_path = strtok(NULL, ",");
  if (!x_path || !y_path || wanted == 0 || wanted > MAX_SAMPLES) return fail(SOAK_USAGE, "--digits/--samples");
  uint8_t *x, *y;
  uint32_t x_len, y_len;
  int32_t rc = read_all(x_path, &x, &x_len);
  if (rc) return rc;
  if ((rc = read_all(y_path, &y, &y_len))) return rc;
  if (y_len < wanted || x_len < wanted * N_FEATURES * sizeof(float))
    return fail(SOAK_USAGE, "fewer samples than --samples");
  s.x = (float*)x;
  memcpy(s.labels, y, wanted);
  free(y);
  s.n_samples = wanted;
  return 0;
}

__attribute__((export_name("soak_setup"))) int32_t soak_setup(void) {
  int argc;
  char** argv;
  int32_t rc = wasi_argv(&argc, &argv);
  if (rc) return fail(rc, "argv");
  char *models = NULL, *digits = NULL;
  const char* config = NULL;
  uint32_t samples = 0;
  s.encoding = WASI_NN_ENCODING_ONNX;
  s.batch = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    char* v = argv[i + 1];
    if (!strcmp(argv[i], "--model"))
      models = v;
    else if (!strcmp(argv[i], "--encoding"))
      s.encoding = (uint32_t)atoi(v);
    else if (!strcmp(argv[i], "--config"))
      config = v;
    else if (!strcmp(argv[i], "--batch"))
      s.batch = (uint32_t)atoi(v);
    else if (!strcmp(argv[i], "--digits"))
      digits = v;
    else if (!strcmp(argv[i], "--samples"))
      samples = (uint32_t)atoi(v);
    else if (!strcmp(argv[i], "--prompt"))
      s.prompt = v;
    else
      return fail(SOAK_USAGE, argv[i]);
  }
  if (!models || s.batch == 0 || (!digits == !s.prompt)) return fail(SOAK_USAGE, "arguments");
  for (char* f = strtok(models, ","); f; f = strtok(NULL, ",")) {
    if (s.n_builders == 2) return fail(SOAK_USAGE, "more than two model files");
    uint8_t* data;
    if ((rc = read_all(f, &data, &s.builders[s.n_builders].size))) return rc;
    s.builders[s.n_builders++].buf = data;
  }
  if (config) {
    s.builders[s.n_builders].buf = (const uint8_t*)config;
    s.builders[s.n_builders++].size = (uint32_t)strlen(config);
  }
  if (digits && (rc = read_digits(digits, samples))) return rc;
  s.ready = 1;
  return 0;
}

static int32_t set_cycle_input(wasi_nn_context ctx) {
  static uint32_t dims[2];
  wasi_nn_tensor t;
  if (s.prompt) {
    dims[0] = (uint32_t)strlen(s.prompt);
    t = (wasi_nn_tensor){dims, 1, WASI_NN_TYPE_U8, {0, 0, 0}, (const uint8_t*)s.prompt, dims[0]};
  } else {
    const float* row = s.x + (s.cycles_done % s.n_samples) * N_FEATURES;
    dims[0] = 1;
    dims[1] = N_FEATURES;
    t = (wasi_nn_tensor){dims, 2, WASI_NN_TYPE_F32, {0, 0, 0}, (const uint8_t*)row, N_FEATURES * sizeof(float)};
  }
  return wasi_nn_set_input(ctx, 0, &t);
}

static int32_t check_output(uint32_t len) {
  if (s.prompt) {
    if (len == 0) return fail(SOAK_WRONG, "check: empty text output");
    if (!s.first_text) {
      if (!(s.first_text = malloc(len))) return fail(SOAK_NO_MEMORY, "check");
      memcpy(s.first_text, out_buf, len);
      s.first_len = len;
      fprintf(stderr, "soak_guest: the first cycle's text (%u bytes) is every later cycle's reference\n", len);
      return 0;
    }
    if (len != s.first_len || memcmp(out_buf, s.first_text, len) != 0)
      return fail(SOAK_WRONG, "check: text differs from the first cycle's");
    return 0;
  }
  if (len != N_CLASSES * sizeof(float)) return fail(SOAK_WRONG, "check: output is not 10 f32 logits");
  float logits[N_CLASSES];
  memcpy(logits, out_buf, sizeof logits);
  uint32_t best = 0;
  for (uint32_t k = 1; k < N_CLASSES; ++k)
    if (logits[k] > logits[best]) best = k;
  uint32_t sample = (uint32_t)(s.cycles_done % s.n_samples);
  if (best != s.labels[sample]) {
    fprintf(stderr, "soak_guest: sample %u: argmax %u, label %u\n", sample, best, s.labels[sample]);
    return fail(SOAK_WRONG, "check: argmax differs from the label");
  }
  return 0;
}

static int32_t one_cycle(void) {
  wasi_nn_graph graph;
  wasi_nn_context ctx;
  int32_t rc = wasi_nn_load(s.builders, s.n_builders, s.encoding, WASI_NN_TARGET_CPU, &graph);
  if (rc) return fail(rc, "load");
  if ((rc = wasi_nn_init_execution_context(graph, &ctx))) return fail(rc, "init_execution_context");
  if ((rc = set_cycle_input(ctx))) return fail(rc, "set_input");
  if ((rc = wasi_nn_compute(ctx))) return fail(rc, "compute");
  uint32_t len = 0;
  if ((rc = wasi_nn_get_output(ctx, 0, out_buf, sizeof out_buf, &len))) return fail(rc, "get_output");
  if ((rc = check_output(len))) return rc;
  if ((rc = wasi_nn_finalize_execution_context(ctx))) return fail(rc, "finalize_execution_context");
  if ((rc = wasi_nn_unload(graph))) return fail(rc, "unload");
  ++s.cycles_done;
  return 0;
}

/* --batch cycles; the host samples its memory between calls. */
__attribute__((export_name("soak_batch"))) int32_t soak_batch(void) {
  if (!s.ready) return fail(SOAK_NOT_READY, "soak_batch");
  for (uint32_t i = 0; i < s.batch; ++i) {
    int32_t rc = one_cycle();
    if (rc) return rc;
  }
  return 0;
}
