// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * wit_chat: guest/examples/chat.c through wasi:nn@0.2.0-rc-2024-10-28, as a command component.
 *
 *   wit_chat [--name NAME | --model FILE.gguf] [--config JSON] [PROMPT...]
 *
 * Loads the graph NAME with load-by-name (default "default", chat.c's), or the file FILE with
 * load(encoding ggml). With PROMPT words, answers that one prompt; without, reads one prompt per
 * line from stdin and answers each in turn, earlier turns staying in the prompt (as chat.c).
 * Each answer is one compute([("prompt", U8 tensor [len] of the conversation), ("metadata", the
 * config JSON as U8)]) on one execution context; the output named "text" (U8) is the answer.
 * WIT has no load config: the config goes in as llama.cpp's optional "metadata" input, with
 * chat.c's default {"n-predict": 128, "ctx-size": 1024}.
 *
 * stdout, as chat.c: each answer followed by a newline (WIT has no streaming: in one piece).
 * Exit 0; 2 for bad arguments; 1 for a wasi:nn error ("wit_chat: WHAT failed: CODE-NAME: DATA"
 * on stderr) or no "text" output (the names it got are listed on stderr).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wasi_nn_wit.h"
#include "wit_guest_util.h"

static void append(char** dst, size_t* len, const char* src, size_t n) {
  char* grown = realloc(*dst, *len + n + 1);
  if (!grown) abort();
  memcpy(grown + *len, src, n);
  *len += n;
  grown[*len] = '\0';
  *dst = grown;
}

/* One answer to stdout, appended to the conversation; 0 or 1 (reported). */
static int answer(wnn_context ctx, const char* config, char** conversation, size_t* len) {
  uint32_t dims[1] = {(uint32_t)*len};
  uint32_t config_dims[1] = {(uint32_t)strlen(config)};
  wnn_named_tensor inputs[2] = {
      wnn_named("prompt", wnn_tensor_new(dims, 1, WNN_TYPE_U8, *conversation, (uint32_t)*len)),
      wnn_named("metadata", wnn_tensor_new(config_dims, 1, WNN_TYPE_U8, config, config_dims[0]))};
  wnn_named_tensor_list outputs;
  wnn_error err;
  if (wnn_compute(ctx, inputs, 2, &outputs, &err)) {
    wg_report("wit_chat", "compute", err);
    return 1;
  }
  int k = wnn_find_output(&outputs, "text");
  if (k < 0) {
    fprintf(stderr, "wit_chat: no output named text among the %u outputs:", outputs.len);
    for (uint32_t i = 0; i < outputs.len; ++i)
      fprintf(stderr, " %.*s", (int)outputs.ptr[i].name_len, outputs.ptr[i].name);
    fputc('\n', stderr);
    wnn_named_tensor_list_free(&outputs);
    return 1;
  }
  wnn_bytes text = wnn_tensor_data(outputs.ptr[k].tensor);
  wnn_named_tensor_list_free(&outputs);
  fwrite(text.ptr, 1, text.len, stdout);
  putchar('\n');
  fflush(stdout);
  append(conversation, len, (const char*)text.ptr, text.len);
  append(conversation, len, "\n", 1);
  free(text.ptr);
  return 0;
}

int main(int argc, char** argv) {
  const char *name = "default", *model = NULL;
  const char* config = "{\"n-predict\": 128, \"ctx-size\": 1024}";
  int first_word = argc;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--name") && i + 1 < argc) {
      name = argv[++i];
    } else if (!strcmp(argv[i], "--model") && i + 1 < argc) {
      model = argv[++i];
    } else if (!strcmp(argv[i], "--config") && i + 1 < argc) {
      config = argv[++i];
    } else {
      first_word = i;
      break;
    }
  }
  wnn_graph graph;
  wnn_context ctx;
  wnn_error err;
  if (model) {
    int r = wg_load_model("wit_chat", model, WNN_ENCODING_GGML, &graph, &err);
    if (r == 2) return 2;
    if (r) {
      wg_report("wit_chat", "load", err);
      return 1;
    }
  } else if (wnn_load_by_name(name, (uint32_t)strlen(name), &graph, &err)) {
    wg_report("wit_chat", "load-by-name", err);
    return 1;
  }
  if (wnn_init_execution_context(graph, &ctx, &err)) {
    wg_report("wit_chat", "init-execution-context", err);
    return 1;
  }

  char* conversation = NULL;
  size_t len = 0;
  int rc = 0;
  if (first_word < argc) {
    for (int i = first_word; i < argc; ++i) {
      if (i > first_word) append(&conversation, &len, " ", 1);
      append(&conversation, &len, argv[i], strlen(argv[i]));
    }
    rc = answer(ctx, config, &conversation, &len);
  } else {
    char line[4096];
    while (!rc && fgets(line, sizeof line, stdin)) {
      append(&conversation, &len, line, strlen(line));
      rc = answer(ctx, config, &conversation, &len);
    }
  }
  free(conversation);
  wnn_context_drop(ctx);
  wnn_graph_drop(graph);
  return rc;
}
