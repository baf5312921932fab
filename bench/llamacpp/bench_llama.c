// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * bench_llama: the guest side of the llama.cpp benchmark, a reactor (bench/llamacpp). The host
 * calls _initialize, bench_setup once, then bench_pp / bench_tg per sample, timing each call.
 *
 * argv: --name NAME --config JSON --prompt TEXT [--gen N] [--contexts N]
 *   bench_setup  load_by_name_with_config and N execution contexts
 *   bench_pp     prompt processing on context 0: set_input(prompt) + the first compute_single,
 *                which evaluates the prompt and samples one token
 *   bench_tg     token generation on context 0: from a BOS-only prompt, N compute_single calls
 *                (each feeds the previous token back and samples the next)
 *   bench_touch  one compute on every context (for resident-memory measurements)
 *   bench_check  compute on context 0; the text must equal --expect HEX (native llama.cpp's)
 * Every export returns 0 or a wasi-nn errno (200: bad arguments, 201: out of memory,
 * 210: the text differs from --expect).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wasi/api.h>

#include "wasi_nn.h"

#define MAX_CONTEXTS 8

static struct {
  wasi_nn_context ctx[MAX_CONTEXTS];
  int contexts, gen;
  const char *prompt, *expect_hex;
} b;

static int32_t fail(int32_t code, const char* step) {
  fprintf(stderr, "bench_llama: %s failed (%d)\n", step, code);
  return code;
}

static int32_t set_prompt(wasi_nn_context c, const char* text) {
  static uint32_t dims[1];
  dims[0] = (uint32_t)strlen(text);
  wasi_nn_tensor t = {dims, 1, WASI_NN_TYPE_U8, {0, 0, 0}, (const uint8_t*)text, dims[0]};
  return wasi_nn_set_input(c, 0, &t);
}

/* Reactors get no argv in main; read it from WASI. The strings live as long as the instance. */
static int32_t wasi_argv(int* argc, char*** argv) {
  __wasi_size_t count = 0, bytes = 0;
  if (__wasi_args_sizes_get(&count, &bytes) != 0) return 200;
  *argv = malloc((count + 1) * sizeof(char*));
  char* buf = malloc(bytes ? bytes : 1);
  if (!*argv || !buf) return 201;
  if (__wasi_args_get((uint8_t**)*argv, (uint8_t*)buf) != 0) return 200;
  (*argv)[count] = NULL;
  *argc = (int)count;
  return 0;
}

__attribute__((export_name("bench_setup"))) int32_t bench_setup(void) {
  int argc;
  char** argv;
  int32_t rc = wasi_argv(&argc, &argv);
  if (rc) return fail(rc, "argv");
  const char *name = NULL, *config = "{}";
  b.contexts = 1;
  b.gen = 64;
  for (int i = 1; i + 1 < argc; i += 2) {
    const char* v = argv[i + 1];
    if (!strcmp(argv[i], "--name"))
      name = v;
    else if (!strcmp(argv[i], "--config"))
      config = v;
    else if (!strcmp(argv[i], "--prompt"))
      b.prompt = v;
    else if (!strcmp(argv[i], "--gen"))
      b.gen = atoi(v);
    else if (!strcmp(argv[i], "--contexts"))
      b.contexts = atoi(v);
    else if (!strcmp(argv[i], "--expect"))
      b.expect_hex = v;
    else
      return fail(200, argv[i]);
  }
  if (!name || !b.prompt || b.contexts < 1 || b.contexts > MAX_CONTEXTS || b.gen < 1) return fail(200, "arguments");
  wasi_nn_graph graph;
  rc = wasi_nn_load_by_name_with_config(name, strlen(name), config, strlen(config), &graph);
  if (rc) return fail(rc, "load_by_name_with_config");
  for (int i = 0; i < b.contexts; ++i) {
    rc = wasi_nn_init_execution_context(graph, &b.ctx[i]);
    if (rc) return fail(rc, "init_execution_context");
  }
  return 0;
}

__attribute__((export_name("bench_pp"))) int32_t bench_pp(void) {
  int32_t rc = set_prompt(b.ctx[0], b.prompt); /* a new prompt ends the previous sequence */
  if (rc) return fail(rc, "set_input");
  rc = wasi_nn_compute_single(b.ctx[0]);
  return rc ? fail(rc, "compute_single (prompt)") : 0;
}

__attribute__((export_name("bench_tg"))) int32_t bench_tg(void) {
  int32_t rc = set_prompt(b.ctx[0], ""); /* BOS only */
  if (rc) return fail(rc, "set_input");
  for (int i = 0; i < b.gen; ++i) {
    rc = wasi_nn_compute_single(b.ctx[0]);
    if (rc) return fail(rc, "compute_single");
  }
  return 0;
}

__attribute__((export_name("bench_touch"))) int32_t bench_touch(void) {
  for (int i = 0; i < b.contexts; ++i) {
    int32_t rc = set_prompt(b.ctx[i], b.prompt);
    if (rc) return fail(rc, "set_input");
    rc = wasi_nn_compute(b.ctx[i]);
    if (rc) return fail(rc, "compute");
  }
  return 0;
}

__attribute__((export_name("bench_check"))) int32_t bench_check(void) {
  static uint8_t text[1 << 16];
  if (!b.expect_hex) return fail(200, "--expect");
  int32_t rc = set_prompt(b.ctx[0], b.prompt);
  if (rc) return fail(rc, "set_input");
  rc = wasi_nn_compute(b.ctx[0]);
  if (rc) return fail(rc, "compute");
  uint32_t n = 0;
  rc = wasi_nn_get_output(b.ctx[0], 0, text, sizeof text, &n);
  if (rc) return fail(rc, "get_output");
  if (strlen(b.expect_hex) != 2 * (size_t)n) return fail(210, "text length");
  for (uint32_t i = 0; i < n; ++i) {
    char hex[3];
    snprintf(hex, sizeof hex, "%02x", text[i]);
    if (memcmp(hex, b.expect_hex + 2 * i, 2) != 0) return fail(210, "text");
  }
  return 0;
}
