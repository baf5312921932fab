// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * llama_probe: a test guest for the llamacpp backend. Loads a GGUF model, runs one context per
 * --prompt and writes every errno and output to a result file the test compares with native
 * llama.cpp.
 *
 *   llama_probe --load name:NAME | bytes:FILE | text:STRING  [--config JSON]
 *               [--metadata JSON] [--prompt TEXT]... [--mode compute|stream|embedding]
 *               [--dims-one] [--zero-length-buffer] [--unload-loop N] --out FILE
 *
 * --load name: uses load_by_name_with_config when --config is given, else load_by_name;
 * bytes: passes the file's bytes to load (encoding ggml), with the config as an extra builder;
 * text: passes STRING itself as builder 0 (e.g. "preload:/path").
 * --mode stream runs the contexts' compute_single loops interleaved, one token each in turn.
 * --dims-one sends the prompt with dims [1], as WasmEdge's Rust guests do.
 * --zero-length-buffer asks for the text with a buffer of declared length 0 (a large one behind it),
 * as LlamaEdge's llama-core does (an empty Vec with capacity).
 * Result lines: "load E", "ctx I set_input E", "ctx I compute E", "ctx I text HEX",
 * "ctx I metadata JSON", "ctx I piece HEX", "ctx I stream_end E", "ctx I embedding N v0 v1 ...".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wasi_nn.h"
#include "wasinn_guest_file.h"

#define MAX_CTX 4
static uint8_t buf[1 << 20];
static FILE* out;

static void hex_line(int ctx, const char* what, const uint8_t* p, uint32_t n) {
  fprintf(out, "ctx %d %s ", ctx, what);
  for (uint32_t i = 0; i < n; ++i) fprintf(out, "%02x", p[i]);
  fprintf(out, "\n");
}

static int32_t load(const char* spec, const char* config, wasi_nn_graph* g) {
  if (!strncmp(spec, "name:", 5)) {
    const char* name = spec + 5;
    if (config) return wasi_nn_load_by_name_with_config(name, strlen(name), config, strlen(config), g);
    return wasi_nn_load_by_name(name, strlen(name), g);
  }
  wasi_nn_graph_builder b[2];
  uint32_t n = 0;
  if (!strncmp(spec, "bytes:", 6)) {
    b[0].buf = guest_read_file(spec + 6, &b[0].size);
  } else {
    b[0].buf = (const uint8_t*)spec + 5;
    b[0].size = strlen(spec + 5);
  }
  n = 1;
  if (config) {
    b[1].buf = (const uint8_t*)config;
    b[1].size = strlen(config);
    n = 2;
  }
  return wasi_nn_load(b, n, WASI_NN_ENCODING_GGML, WASI_NN_TARGET_CPU, g);
}

static int32_t set_bytes(wasi_nn_context c, uint32_t index, const char* s, int dims_one) {
  static uint32_t dims[1];
  dims[0] = dims_one ? 1 : (uint32_t)strlen(s);
  wasi_nn_tensor t = {dims, 1, WASI_NN_TYPE_U8, {0, 0, 0}, (const uint8_t*)s, (uint32_t)strlen(s)};
  return wasi_nn_set_input(c, index, &t);
}

static void metadata_line(int i, wasi_nn_context c) {
  uint32_t n = 0;
  int32_t rc = wasi_nn_get_output(c, 1, buf, sizeof buf - 1, &n);
  if (rc)
    fprintf(out, "ctx %d metadata_errno %d\n", i, rc);
  else
    fprintf(out, "ctx %d metadata %.*s\n", i, (int)n, (const char*)buf);
}

int main(int argc, char** argv) {
  const char *spec = NULL, *config = NULL, *metadata = NULL, *mode = "compute", *out_path = NULL;
  const char* prompts[MAX_CTX];
  int n_prompts = 0, dims_one = 0, zero_length = 0, unload_loop = 1;
  for (int i = 1; i < argc; ++i) {
    const char* v = i + 1 < argc ? argv[i + 1] : "";
    if (!strcmp(argv[i], "--zero-length-buffer")) {
      zero_length = 1;
      continue;
    }
    if (!strcmp(argv[i], "--dims-one")) {
      dims_one = 1;
      continue;
    }
    if (!strcmp(argv[i], "--load"))
      spec = v;
    else if (!strcmp(argv[i], "--config"))
      config = v;
    else if (!strcmp(argv[i], "--metadata"))
      metadata = v;
    else if (!strcmp(argv[i], "--prompt") && n_prompts < MAX_CTX)
      prompts[n_prompts++] = v;
    else if (!strcmp(argv[i], "--mode"))
      mode = v;
    else if (!strcmp(argv[i], "--unload-loop"))
      unload_loop = atoi(v);
    else if (!strcmp(argv[i], "--out"))
      out_path = v;
    else {
      fprintf(stderr, "llama_probe: unknown option %s\n", argv[i]);
      return 2;
    }
    ++i;
  }
  if (!spec || !out_path) {
    fprintf(stderr, "llama_probe: --load and --out are required\n");
    return 2;
  }
  out = fopen(out_path, "w");
  if (!out) return 2;

  for (int round = 0; round < unload_loop; ++round) {
    wasi_nn_graph g;
    int32_t rc = load(spec, config, &g);
    fprintf(out, "load %d\n", rc);
    if (rc) break;
    wasi_nn_context ctx[MAX_CTX];
    int active[MAX_CTX] = {0};
    for (int i = 0; i < n_prompts; ++i) {
      rc = wasi_nn_init_execution_context(g, &ctx[i]);
      if (rc) {
        fprintf(out, "ctx %d init %d\n", i, rc);
        fclose(out);
        return 0;
      }
      if (metadata) fprintf(out, "ctx %d set_metadata %d\n", i, set_bytes(ctx[i], 1, metadata, dims_one));
      rc = set_bytes(ctx[i], 0, prompts[i], dims_one);
      fprintf(out, "ctx %d set_input %d\n", i, rc);
      active[i] = rc == 0;
    }
    if (!strcmp(mode, "stream")) {
      for (int any = 1; any;) {  // one token per context in turn, until each sequence ends
        any = 0;
        for (int i = 0; i < n_prompts; ++i) {
          if (!active[i]) continue;
          rc = wasi_nn_compute_single(ctx[i]);
          if (rc) {
            fprintf(out, "ctx %d stream_end %d\n", i, rc);
            active[i] = 0;
            continue;
          }
          uint32_t n = 0;
          rc = wasi_nn_get_output_single(ctx[i], 0, buf, zero_length ? 0 : sizeof buf, &n);
          if (rc) {
            fprintf(out, "ctx %d piece_errno %d\n", i, rc);
            active[i] = 0;
            continue;
          }
          hex_line(i, "piece", buf, n);
          any = 1;
        }
      }
      for (int i = 0; i < n_prompts; ++i) {
        metadata_line(i, ctx[i]);
        fprintf(out, "ctx %d fini %d\n", i, wasi_nn_fini_single(ctx[i]));
      }
    } else {
      for (int i = 0; i < n_prompts; ++i) {
        if (!active[i]) continue;
        rc = wasi_nn_compute(ctx[i]);
        fprintf(out, "ctx %d compute %d\n", i, rc);
        uint32_t n = 0;
        rc = wasi_nn_get_output(ctx[i], 0, buf, zero_length ? 0 : sizeof buf, &n);
        if (rc) {
          fprintf(out, "ctx %d output_errno %d\n", i, rc);
          continue;
        }
        if (!strcmp(mode, "embedding")) {
          float v;
          fprintf(out, "ctx %d embedding %u", i, n / 4);
          for (uint32_t k = 0; k + 4 <= n; k += 4) {
            memcpy(&v, buf + k, 4);
            fprintf(out, " %.9g", v);
          }
          fprintf(out, "\n");
        } else {
          hex_line(i, "text", buf, n);
        }
        metadata_line(i, ctx[i]);
      }
    }
    for (int i = 0; i < n_prompts; ++i) wasi_nn_finalize_execution_context(ctx[i]);
    fprintf(out, "unload %d\n", wasi_nn_unload(g));
  }
  fclose(out);
  return 0;
}
