// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * prompt_props: a text model's properties and wasinn's one-call prompt, through the core-module
 * imports of guest/include/wasinn_nn_ext.h; a test guest of tests/nn_ext.
 *
 *   prompt_props --name NAME [--prompt TEXT] [--n-predict N] [--ctx-size N] [--threads N]
 *                [--non-text FILE.onnx]
 *
 * Loads the preloaded model NAME and prints, one per line (VALUE and TEXT as hex where marked,
 * so any byte survives; "..." marks a value shortened for the print alone):
 *   list errno E needed N                 graph_list_properties with no room
 *   property NAME = VALUE                 every property, in the host's order (VALUE shortened)
 *   value NAME HEX                        the whole value of general.architecture, of
 *                                         <arch>.context_length, of temp and of n-predict
 *   get-small errno E needed N actual M   graph_get_property of general.architecture with no room
 *   error WHAT errno E                    get-unknown, set-unknown, set-temp-hot (temp "hot"),
 *                                         set-backend (a read-only fact), ctx-set-unknown
 *   set NAME VALUE errno E                graph_set_property: temp 0, n-predict, ctx-size, threads
 *   after-set NAME HEX                    get_property of temp and n-predict after the set
 *   text greedy HEX                       prompt on a new context (greedy: temp 0)
 *   prompt-small errno E needed N         prompt again on a new context with 4 bytes of room
 *   text seeded1 HEX, text seeded2 HEX    two new contexts, each set (context_set_property)
 *                                         to temp 0.8 and seed 42
 *   non-text errno E                      prompt on a context of FILE.onnx (--non-text)
 *   done
 * Exit status: 0 (whatever the calls answered: the test reads the lines); 1 when a call the rest
 * depends on fails (a "fatal STEP errno E" line says which); 2 for bad arguments.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wasi_nn.h"
#include "wasinn_nn_ext.h"
#include "wasinn_prompt_lines.h"

static void fatal(const char* step, int32_t err) {
  printf("fatal %s errno %d\n", step, err);
  fflush(stdout);
  exit(1);
}

/* A property's value in a malloc'd buffer (NUL-terminated; *len without it), or NULL with *err. */
static char* get_property(wasi_nn_graph g, const char* name, uint32_t* len, int32_t* err) {
  uint32_t room = 64;
  for (int attempt = 0; attempt < 2; ++attempt) {
    char* buf = malloc(room + 1);
    uint32_t written = 0;
    *err = wasinn_graph_get_property(g, name, (uint32_t)strlen(name), buf, room, &written);
    if (*err == WASI_NN_SUCCESS) {
      buf[written] = '\0';
      *len = written;
      return buf;
    }
    free(buf);
    if (*err != WASI_NN_TOO_LARGE || written <= room) return NULL;
    room = written;
  }
  return NULL;
}

static int32_t set_graph(wasi_nn_graph g, const char* name, const char* value) {
  return wasinn_graph_set_property(g, name, (uint32_t)strlen(name), value, (uint32_t)strlen(value));
}
static int32_t set_ctx(wasi_nn_context c, const char* name, const char* value) {
  return wasinn_context_set_property(c, name, (uint32_t)strlen(name), value, (uint32_t)strlen(value));
}

static char out_buf[1 << 20];

static void prompt_on(wasi_nn_context ctx, const char* label, const char* prompt) {
  uint32_t written = 0;
  const int32_t err = wasinn_prompt(ctx, prompt, (uint32_t)strlen(prompt), out_buf, sizeof out_buf, &written);
  if (err != WASI_NN_SUCCESS) {
    printf("text %s errno %d\n", label, err);
    return;
  }
  char prefix[64];
  snprintf(prefix, sizeof prefix, "text %s", label);
  prompt_print_hex(prefix, out_buf, written);
}

int main(int argc, char** argv) {
  struct prompt_args args;
  if (prompt_parse_args("prompt_props", argc, argv, &args)) return 2;
  const char *name = args.name, *prompt = args.prompt, *non_text = args.non_text;

  wasi_nn_graph g;
  int32_t err = wasi_nn_load_by_name(name, (uint32_t)strlen(name), &g);
  if (err) fatal("load_by_name", err);

  /* Every property: no room first, so TOO_LARGE says how much. */
  uint32_t needed = 0;
  err = wasinn_graph_list_properties(g, NULL, 0, &needed);
  printf("list errno %d needed %u\n", err, needed);
  char* names = malloc(needed + 1);
  uint32_t written = 0;
  err = wasinn_graph_list_properties(g, names, needed, &written);
  if (err) fatal("graph_list_properties", err);
  if (written != needed) fatal("graph_list_properties wrote other than it needed", (int32_t)written);
  char arch[256] = "";
  for (uint32_t at = 0; at < written;) {
    const char* p = names + at;
    const size_t n = strnlen(p, written - at);
    if (at + n == written) fatal("graph_list_properties: a name without its NUL", 0);
    uint32_t len = 0;
    char* value = get_property(g, p, &len, &err);
    if (!value) {
      printf("property %s errno %d\n", p, err);
    } else {
      prompt_print_property(p, n, value, len, arch, sizeof arch);
      free(value);
    }
    at += (uint32_t)n + 1;
  }

  /* Whole values. */
  char ctx_key[PROMPT_CTX_KEY_SIZE];
  const char* wanted[PROMPT_N_VALUES];
  prompt_value_names(arch, ctx_key, wanted);
  for (size_t i = 0; i < PROMPT_N_VALUES; ++i) {
    uint32_t len = 0;
    char* value = get_property(g, wanted[i], &len, &err);
    char prefix[400];
    snprintf(prefix, sizeof prefix, "value %s", wanted[i]);
    if (value)
      prompt_print_hex(prefix, value, len);
    else
      printf("%s errno %d\n", prefix, err);
    free(value);
  }
  {
    const char* k = "general.architecture";
    uint32_t got = 0;
    char one;
    err = wasinn_graph_get_property(g, k, (uint32_t)strlen(k), &one, 0, &got);
    printf("get-small errno %d needed %u actual %zu\n", err, got, strlen(arch));
  }

  /* Errors, then the settings for greedy prompts. */
  {
    char buf[64];
    uint32_t got = 0;
    const char* unknown = "no-such-property";
    printf("error get-unknown errno %d\n",
           wasinn_graph_get_property(g, unknown, (uint32_t)strlen(unknown), buf, sizeof buf, &got));
  }
  struct prompt_set sets[PROMPT_N_SETS];
  prompt_sets(&args, sets);
  for (int i = 0; i < PROMPT_N_SETS; ++i) {
    char result[32];
    snprintf(result, sizeof result, "errno %d", set_graph(g, sets[i].name, sets[i].value));
    prompt_print_set(&sets[i], result);
  }
  for (const char* const* k = (const char* const[]){"temp", "n-predict", NULL}; *k; ++k) {
    uint32_t len = 0;
    char* value = get_property(g, *k, &len, &err);
    char prefix[64];
    snprintf(prefix, sizeof prefix, "after-set %s", *k);
    if (value)
      prompt_print_hex(prefix, value, len);
    else
      printf("%s errno %d\n", prefix, err);
    free(value);
  }
  wasi_nn_context ctx;
  err = wasi_nn_init_execution_context(g, &ctx);
  if (err) fatal("init_execution_context", err);
  printf("error ctx-set-unknown errno %d\n", set_ctx(ctx, "no-such-property", "1"));
  prompt_on(ctx, "greedy", prompt);
  wasi_nn_finalize_execution_context(ctx);

  err = wasi_nn_init_execution_context(g, &ctx);
  if (err) fatal("init_execution_context", err);
  {
    char small[4];
    uint32_t got = 0;
    err = wasinn_prompt(ctx, prompt, (uint32_t)strlen(prompt), small, sizeof small, &got);
    printf("prompt-small errno %d needed %u\n", err, got);
  }
  wasi_nn_finalize_execution_context(ctx);

  /* Seeded sampling, twice, each on a context of its own. */
  for (int run = 1; run <= 2; ++run) {
    err = wasi_nn_init_execution_context(g, &ctx);
    if (err) fatal("init_execution_context", err);
    for (int k = 0; k < PROMPT_N_SEEDED_SETS; ++k) {
      const char* const* set = PROMPT_SEEDED_SETS[k];
      printf("set-ctx %s %s errno %d\n", set[0], set[1], set_ctx(ctx, set[0], set[1]));
    }
    prompt_on(ctx, prompt_seeded_label(run), prompt);
    wasi_nn_finalize_execution_context(ctx);
  }
  wasi_nn_unload(g);

  if (non_text) {
    FILE* f = fopen(non_text, "rb");
    if (!f) {
      fprintf(stderr, "prompt_props: cannot open %s\n", non_text);
      return 2;
    }
    static uint8_t model[1 << 20];
    const size_t n = fread(model, 1, sizeof model, f);
    fclose(f);
    wasi_nn_graph_builder b = {model, (uint32_t)n};
    wasi_nn_graph og;
    err = wasi_nn_load(&b, 1, WASI_NN_ENCODING_ONNX, WASI_NN_TARGET_CPU, &og);
    if (err) fatal("load --non-text", err);
    err = wasi_nn_init_execution_context(og, &ctx);
    if (err) fatal("init_execution_context --non-text", err);
    uint32_t got = 0;
    printf("non-text errno %d\n", wasinn_prompt(ctx, "hi", 2, out_buf, sizeof out_buf, &got));
  }
  printf("done\n");
  return 0;
}
