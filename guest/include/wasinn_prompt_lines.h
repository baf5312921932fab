// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * wasinn_prompt_lines.h: what the two prompt test guests share (core module
 * guest/tests/prompt_props.c, component guest/components/wit_prompt.c): their command line and
 * the stdout lines they print alike.
 */
#ifndef WASINN_PROMPT_LINES_H_
#define WASINN_PROMPT_LINES_H_

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* How much of a value a `property` line shows. */
#define PROMPT_SHOWN 72

struct prompt_args {
  const char *name, *prompt, *n_predict, *ctx_size, *threads, *non_text;
};

/* PROG --name NAME [--prompt TEXT] [--n-predict N] [--ctx-size N] [--threads N]
 * [--non-text FILE.onnx]: 0, or 2 after a line on stderr. */
static inline int prompt_parse_args(const char* prog, int argc, char** argv, struct prompt_args* a) {
  *a = (struct prompt_args){NULL, "The quick brown fox jumps over the lazy dog. Once upon a time", "24", "128", "1",
                            NULL};
  for (int i = 1; i + 1 < argc; i += 2) {
    const char* v = argv[i + 1];
    if (!strcmp(argv[i], "--name"))
      a->name = v;
    else if (!strcmp(argv[i], "--prompt"))
      a->prompt = v;
    else if (!strcmp(argv[i], "--n-predict"))
      a->n_predict = v;
    else if (!strcmp(argv[i], "--ctx-size"))
      a->ctx_size = v;
    else if (!strcmp(argv[i], "--threads"))
      a->threads = v;
    else if (!strcmp(argv[i], "--non-text"))
      a->non_text = v;
    else {
      fprintf(stderr, "%s: unknown argument %s\n", prog, argv[i]);
      return 2;
    }
  }
  if (!a->name || argc % 2 == 0) {
    fprintf(stderr,
            "usage: %s --name NAME [--prompt TEXT] [--n-predict N] [--ctx-size N] [--threads N] "
            "[--non-text FILE.onnx]\n",
            prog);
    return 2;
  }
  return 0;
}

/* The graph properties whose whole values both guests print ("value NAME ..."), in order;
 * CTX_KEY receives "<ARCH>.context_length". */
#define PROMPT_N_VALUES 4
#define PROMPT_CTX_KEY_SIZE 300
static inline void prompt_value_names(const char* arch, char ctx_key[PROMPT_CTX_KEY_SIZE],
                                      const char* names[PROMPT_N_VALUES]) {
  snprintf(ctx_key, PROMPT_CTX_KEY_SIZE, "%s.context_length", arch);
  names[0] = "general.architecture";
  names[1] = ctx_key;
  names[2] = "temp";
  names[3] = "n-predict";
}

/* The set-property calls both guests make on the graph, in order: three that must be refused
 * (printed "error WHAT RESULT"), then the settings for the prompts ("set NAME VALUE RESULT"). */
struct prompt_set {
  const char* what; /* NULL for a setting */
  const char *name, *value;
};
#define PROMPT_N_SETS 7
static inline void prompt_sets(const struct prompt_args* a, struct prompt_set sets[PROMPT_N_SETS]) {
  const struct prompt_set s[PROMPT_N_SETS] = {{"set-unknown", "no-such-property", "1"},
                                              {"set-temp-hot", "temp", "hot"},
                                              {"set-backend", "backend", "\"openvino\""},
                                              {NULL, "temp", "0"},
                                              {NULL, "n-predict", a->n_predict},
                                              {NULL, "ctx-size", a->ctx_size},
                                              {NULL, "threads", a->threads}};
  memcpy(sets, s, sizeof s);
}

static inline void prompt_print_set(const struct prompt_set* s, const char* result) {
  if (s->what)
    printf("error %s %s\n", s->what, result);
  else
    printf("set %s %s %s\n", s->name, s->value, result);
}

/* The prompt-context settings of each seeded run ("set-ctx NAME VALUE RESULT"), and its label. */
#define PROMPT_N_SEEDED_SETS 2
static const char* const PROMPT_SEEDED_SETS[PROMPT_N_SEEDED_SETS][2] = {{"temp", "0.8"}, {"seed", "42"}};
static inline const char* prompt_seeded_label(int run) {
  static char label[16];
  snprintf(label, sizeof label, "seeded%d", run);
  return label;
}

/* "PREFIX HEX" */
static inline void prompt_print_hex(const char* prefix, const char* data, uint32_t n) {
  printf("%s ", prefix);
  for (uint32_t i = 0; i < n; ++i) printf("%02x", (unsigned char)data[i]);
  printf("\n");
}

/* "property NAME = VALUE", VALUE's first PROMPT_SHOWN bytes with line breaks made spaces (in
 * place) and "... (N bytes)" after a longer one; general.architecture's whole value is kept in
 * ARCH (NUL-terminated) when it fits. */
static inline void prompt_print_property(const char* name, size_t name_len, char* value, uint32_t len, char* arch,
                                         size_t arch_size) {
  static const char kArch[] = "general.architecture";
  if (name_len == sizeof kArch - 1 && !memcmp(name, kArch, name_len) && len < arch_size) {
    if (len) memcpy(arch, value, len);
    arch[len] = '\0';
  }
  for (uint32_t k = 0; k < len && k < PROMPT_SHOWN; ++k)
    if (value[k] == '\n' || value[k] == '\r') value[k] = ' ';
  if (len > PROMPT_SHOWN)
    printf("property %.*s = %.*s... (%u bytes)\n", (int)name_len, name, PROMPT_SHOWN, value, len);
  else
    printf("property %.*s = %.*s\n", (int)name_len, name, (int)len, value ? value : "");
}

#endif /* WASINN_PROMPT_LINES_H_ */
