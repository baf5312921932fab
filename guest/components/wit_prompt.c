// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * wit_prompt: a text model's properties and a one-call prompt through wasinn:nn-ext/properties
 * and wasinn:nn-ext/prompt (command component over wasi:nn@0.2.0-rc-2024-10-28); the component
 * twin of guest/tests/prompt_props.c, for tests/nn_ext.
 *
 *   wit_prompt --name NAME [--prompt TEXT] [--n-predict N] [--ctx-size N] [--threads N]
 *              [--non-text FILE.onnx]
 *
 * Lines on stdout, as prompt_props's where they mean the same (VALUE shortened in `property`
 * lines only; HEX: the whole bytes):
 *   property NAME = VALUE                 every property of list-properties, in its order
 *   value NAME HEX                        general.architecture, <arch>.context_length, temp, n-predict
 *   error WHAT CODE                       get-unknown, set-unknown, set-temp-hot, set-backend
 *                                         (CODE: the wasi:nn error-code name, or "ok")
 *   set NAME VALUE CODE                   set-property on the graph: temp 0, n-predict, ctx-size, threads
 *   after-set NAME HEX                    get-property of temp and n-predict after the set
 *   error ctx-set-unknown CODE            set-context-property of an unknown name (a wasi:nn context)
 *   error prompt-set-unknown TEXT         prompt context.set-property of an unknown name (TEXT: the
 *                                         error string, or "ok")
 *   text greedy HEX                       init + compute (greedy: the graph's temp 0)
 *   text seeded1 HEX, text seeded2 HEX    two prompt contexts, each set-property temp 0.8, seed 42
 *   non-text TEXT                         prompt.init on FILE.onnx's graph: its error string, or "ok"
 *   done
 * A failed compute prints "text LABEL error TEXT" instead. Exit status 0 (the test reads the
 * lines); 1 when a call the rest depends on fails ("fatal STEP ..." says which); 2 for bad
 * arguments.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wasi_nn_wit.h"
#include "wasinn_nn_ext_wit.h"
#include "wasinn_prompt_lines.h"
#include "wit_guest_util.h"

static void fatal_wit(const char* step, wnn_error err) {
  char text[1024];
  wg_error_text(err, text, sizeof text);
  printf("fatal %s %s\n", step, text);
  fflush(stdout);
  exit(1);
}

/* The error-code name of err (dropped), or "ok" for no error. */
static const char* code_of(int failed, wnn_error err) {
  if (!failed) return "ok";
  const int code = (int)wnn_error_get_code(err);
  wnn_error_drop(err);
  const char* name = wnn_error_code_name(code);
  return name ? name : "?";
}

static const char* set_graph(wnn_graph g, const char* name, const char* value) {
  wnn_error err = 0;
  return code_of(wnx_set_property(g, name, (uint32_t)strlen(name), value, (uint32_t)strlen(value), &err), err);
}

static void print_value(const char* label, wnn_graph g, const char* name) {
  wnn_string v;
  wnn_error err = 0;
  char prefix[400];
  snprintf(prefix, sizeof prefix, "%s %s", label, name);
  if (wnx_get_property(g, name, (uint32_t)strlen(name), &v, &err)) {
    printf("%s error %s\n", prefix, code_of(1, err));
    return;
  }
  prompt_print_hex(prefix, v.ptr, v.len);
  free(v.ptr);
}

/* "ok", or the error string (printed, then freed). */
static void print_string_result(const char* prefix, int failed, wnn_string* s) {
  if (!failed)
    printf("%s ok\n", prefix);
  else
    printf("%s %.*s\n", prefix, (int)s->len, s->ptr ? s->ptr : "");
  free(s->ptr);
  s->ptr = 0;
}

static void run_prompt(wnx_prompt_context c, const char* label, const char* prompt) {
  wnn_string out = {0, 0};
  char prefix[64];
  snprintf(prefix, sizeof prefix, "text %s", label);
  if (wnx_prompt_compute(c, prompt, (uint32_t)strlen(prompt), &out)) {
    printf("%s error %.*s\n", prefix, (int)out.len, out.ptr ? out.ptr : "");
  } else {
    prompt_print_hex(prefix, out.ptr, out.len);
  }
  free(out.ptr);
}

int main(int argc, char** argv) {
  struct prompt_args args;
  if (prompt_parse_args("wit_prompt", argc, argv, &args)) return 2;
  const char *name = args.name, *prompt = args.prompt, *non_text = args.non_text;

  wnn_graph g;
  wnn_error err;
  if (wnn_load_by_name(name, (uint32_t)strlen(name), &g, &err)) fatal_wit("load-by-name", err);

  wnx_string_list props = wnx_list_properties(g);
  char arch[256] = "";
  for (uint32_t i = 0; i < props.len; ++i) {
    const wnn_string* p = &props.ptr[i];
    wnn_string v;
    if (wnx_get_property(g, p->ptr, p->len, &v, &err)) {
      printf("property %.*s error %s\n", (int)p->len, p->ptr, code_of(1, err));
      continue;
    }
    prompt_print_property(p->ptr, p->len, v.ptr, v.len, arch, sizeof arch);
    free(v.ptr);
  }
  wnx_string_list_free(&props);

  char ctx_key[PROMPT_CTX_KEY_SIZE];
  const char* wanted[PROMPT_N_VALUES];
  prompt_value_names(arch, ctx_key, wanted);
  for (size_t i = 0; i < PROMPT_N_VALUES; ++i) print_value("value", g, wanted[i]);

  {
    const char* unknown = "no-such-property";
    wnn_error e = 0;
    printf("error get-unknown %s\n", code_of(wnx_get_property(g, unknown, (uint32_t)strlen(unknown), NULL, &e), e));
  }
  struct prompt_set sets[PROMPT_N_SETS];
  prompt_sets(&args, sets);
  for (int i = 0; i < PROMPT_N_SETS; ++i) prompt_print_set(&sets[i], set_graph(g, sets[i].name, sets[i].value));
  print_value("after-set", g, "temp");
  print_value("after-set", g, "n-predict");

  /* set-context-property on a wasi:nn execution context of the graph. */
  {
    wnn_context wctx;
    if (wnn_init_execution_context(g, &wctx, &err)) fatal_wit("init-execution-context", err);
    const char* unknown = "no-such-property";
    wnn_error e = 0;
    printf("error ctx-set-unknown %s\n",
           code_of(wnx_set_context_property(wctx, unknown, (uint32_t)strlen(unknown), "1", 1, &e), e));
    wnn_context_drop(wctx);
  }

  wnx_prompt_context pc;
  wnn_string why = {0, 0};
  if (wnx_prompt_init(g, &pc, &why)) {
    printf("fatal prompt.init %.*s\n", (int)why.len, why.ptr ? why.ptr : "");
    return 1;
  }
  {
    wnn_string e = {0, 0};
    const int failed = wnx_prompt_set_property(pc, "no-such-property", 16, "1", 1, &e);
    print_string_result("error prompt-set-unknown", failed, &e);
  }
  run_prompt(pc, "greedy", prompt);
  wnx_prompt_context_drop(pc);

  for (int run = 1; run <= 2; ++run) {
    if (wnx_prompt_init(g, &pc, &why)) {
      printf("fatal prompt.init %.*s\n", (int)why.len, why.ptr ? why.ptr : "");
      return 1;
    }
    for (int k = 0; k < PROMPT_N_SEEDED_SETS; ++k) {
      const char* const* set = PROMPT_SEEDED_SETS[k];
      wnn_string e = {0, 0};
      const int failed =
          wnx_prompt_set_property(pc, set[0], (uint32_t)strlen(set[0]), set[1], (uint32_t)strlen(set[1]), &e);
      char prefix[64];
      snprintf(prefix, sizeof prefix, "set-ctx %s %s", set[0], set[1]);
      print_string_result(prefix, failed, &e);
    }
    run_prompt(pc, prompt_seeded_label(run), prompt);
    wnx_prompt_context_drop(pc);
  }
  wnn_graph_drop(g);

  if (non_text) {
    wnn_graph og;
    const int r = wg_load_model("wit_prompt", non_text, WNN_ENCODING_ONNX, &og, &err);
    if (r == 1) fatal_wit("load --non-text", err);
    if (r) return 2;
    wnn_string e = {0, 0};
    const int failed = wnx_prompt_init(og, &pc, &e);
    if (!failed) wnx_prompt_context_drop(pc);
    print_string_result("non-text", failed, &e);
    wnn_graph_drop(og);
  }
  printf("done\n");
  return 0;
}
