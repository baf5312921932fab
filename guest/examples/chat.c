// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * chat: streams a language model's answer token by token, through wasi-nn's GGML extensions
 * (load_by_name_with_config, compute_single, get_output_single, fini_single).
 *
 *   wasinn run --nn-preload default:GGML:AUTO:model.gguf chat.wasm [--name NAME]
 *       [--config JSON] [PROMPT...]
 *
 * With PROMPT words, answers that one prompt. Without, reads one prompt per line from stdin
 * and answers each in turn; earlier turns stay in the prompt, so the model sees the
 * conversation. The default config is {"n-predict": 128, "ctx-size": 1024}.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wasi_nn.h"

static char piece[4096];

static void fail(const char* step, int32_t err) {
  fprintf(stderr, "chat: %s failed with wasi-nn errno %d\n", step, err);
  exit(err);
}

/* Appends src to the growing string *dst (length *len). */
static void append(char** dst, size_t* len, const char* src, size_t n) {
  char* grown = realloc(*dst, *len + n + 1);
  if (!grown) fail("realloc", 3);
  memcpy(grown + *len, src, n);
  *len += n;
  grown[*len] = '\0';
  *dst = grown;
}

/* Streams one answer to stdout and appends it to the conversation. */
static void answer(wasi_nn_context ctx, char** conversation, size_t* len) {
  uint32_t dims[1] = {(uint32_t)*len};
  wasi_nn_tensor prompt = {dims, 1, WASI_NN_TYPE_U8, {0, 0, 0}, (const uint8_t*)*conversation, (uint32_t)*len};
  int32_t rc = wasi_nn_set_input(ctx, 0, &prompt);
  if (rc) fail("set_input", rc);
  for (;;) {
    rc = wasi_nn_compute_single(ctx);
    if (rc == WASI_NN_END_OF_SEQUENCE) break;
    if (rc == WASI_NN_CONTEXT_FULL) {
      fprintf(stderr, "\n[chat: the context is full; raise ctx-size in --config]\n");
      break;
    }
    if (rc) fail("compute_single", rc);
    uint32_t n = 0;
    rc = wasi_nn_get_output_single(ctx, 0, (uint8_t*)piece, sizeof piece, &n);
    if (rc) fail("get_output_single", rc);
    fwrite(piece, 1, n, stdout);
    fflush(stdout);
    append(conversation, len, piece, n);
  }
  putchar('\n');
  append(conversation, len, "\n", 1);
  rc = wasi_nn_fini_single(ctx);
  if (rc) fail("fini_single", rc);
}

int main(int argc, char** argv) {
  const char *name = "default", *config = "{\"n-predict\": 128, \"ctx-size\": 1024}";
  char* conversation = NULL;
  size_t len = 0;
  int first_word = argc;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--name") && i + 1 < argc)
      name = argv[++i];
    else if (!strcmp(argv[i], "--config") && i + 1 < argc)
      config = argv[++i];
    else {
      first_word = i;
      break;
    }
  }
  wasi_nn_graph graph;
  int32_t rc = wasi_nn_load_by_name_with_config(name, strlen(name), config, strlen(config), &graph);
  if (rc) fail("load_by_name_with_config", rc);
  wasi_nn_context ctx;
  rc = wasi_nn_init_execution_context(graph, &ctx);
  if (rc) fail("init_execution_context", rc);

  if (first_word < argc) {
    for (int i = first_word; i < argc; ++i) {
      if (i > first_word) append(&conversation, &len, " ", 1);
      append(&conversation, &len, argv[i], strlen(argv[i]));
    }
    answer(ctx, &conversation, &len);
  } else {
    char line[4096];
    while (fgets(line, sizeof line, stdin)) {
      append(&conversation, &len, line, strlen(line));
      answer(ctx, &conversation, &len);
    }
  }
  free(conversation);
  return 0;
}
