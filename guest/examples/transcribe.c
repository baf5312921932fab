// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * transcribe: speech to text through wasi-nn, making the calls WasmEdge's whisper example makes
 * with its wasmedge-wasi-nn crate: GraphBuilder(Whisper, target).build_from_cache(name) or
 * build_from_bytes([model, config]), init_execution_context, set_input(0, F32, [1, len], wav),
 * compute, get_output(0), then unload and finalize_execution_context.
 *
 *   wasinn run --nn-preload default:Whisper:AUTO:model.bin --dir DIR transcribe.wasm
 *       [--name NAME | --model FILE] [--config JSON] [--metadata JSON] [--output N]
 *       [--stream] [--repeat N] AUDIO.wav...
 *
 * --config: the load config (load_by_name_with_config, or builder 1 with --model).
 * --metadata: JSON on input 1 before each compute (overrides the config for that context).
 * --output N: print output N (1 srt, 2 lrc, 3 json) after the transcript.
 * --stream: segments through compute_single/get_output_single/fini_single instead of compute.
 * --repeat N: transcribe each file N times (for timing; the transcript is printed once).
 * Each transcript is printed between "--- transcript FILE ---" and "--- end ---" lines.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wasi_nn.h"
#include "wasinn_guest_file.h"

static unsigned char out[1 << 20];

static void fail(const char* step, int32_t err) {
  fprintf(stderr, "transcribe: %s failed with wasi-nn errno %d\n", step, err);
  exit(err ? err : 1);
}

static void set_bytes(wasi_nn_context ctx, uint32_t index, uint8_t type, const unsigned char* data, uint32_t len) {
  uint32_t dims[2] = {1, len}; /* WasmEdge's guests: one file as a [1, bytes] tensor */
  wasi_nn_tensor t = {dims, 2, type, {0, 0, 0}, data, len};
  int32_t rc = wasi_nn_set_input(ctx, index, &t);
  if (rc) fail(index == 0 ? "set_input(audio)" : "set_input(metadata)", rc);
}

static void stream(wasi_nn_context ctx) {
  for (;;) {
    int32_t rc = wasi_nn_compute_single(ctx);
    if (rc == WASI_NN_END_OF_SEQUENCE) break;
    if (rc) fail("compute_single", rc);
    uint32_t n = 0;
    rc = wasi_nn_get_output_single(ctx, 0, out, sizeof out, &n);
    if (rc) fail("get_output_single", rc);
    fwrite(out, 1, n, stdout);
  }
  int32_t rc = wasi_nn_fini_single(ctx);
  if (rc) fail("fini_single", rc);
}

static void print_output(wasi_nn_context ctx, uint32_t index) {
  uint32_t n = 0;
  int32_t rc = wasi_nn_get_output(ctx, index, out, sizeof out, &n);
  if (rc) fail("get_output", rc);
  fwrite(out, 1, n, stdout);
}

int main(int argc, char** argv) {
  const char *name = "default", *model = NULL, *config = NULL, *metadata = NULL;
  int output = -1, streaming = 0, repeat = 1, i = 1;
  for (; i < argc && strncmp(argv[i], "--", 2) == 0; ++i) {
    if (!strcmp(argv[i], "--stream")) {
      streaming = 1;
    } else if (i + 1 < argc && !strcmp(argv[i], "--name")) {
      name = argv[++i];
    } else if (i + 1 < argc && !strcmp(argv[i], "--model")) {
      model = argv[++i];
    } else if (i + 1 < argc && !strcmp(argv[i], "--config")) {
      config = argv[++i];
    } else if (i + 1 < argc && !strcmp(argv[i], "--metadata")) {
      metadata = argv[++i];
    } else if (i + 1 < argc && !strcmp(argv[i], "--output")) {
      output = atoi(argv[++i]);
    } else if (i + 1 < argc && !strcmp(argv[i], "--repeat")) {
      repeat = atoi(argv[++i]);
    } else {
      fprintf(stderr, "transcribe: unknown option %s\n", argv[i]);
      return 2;
    }
  }
  if (i >= argc) {
    fprintf(stderr,
            "usage: transcribe [--name NAME | --model FILE] [--config JSON] [--metadata JSON] "
            "[--output N] [--stream] [--repeat N] AUDIO.wav...\n");
    return 2;
  }

  wasi_nn_graph graph;
  int32_t rc;
  if (model) {
    uint32_t len = 0;
    unsigned char* bytes = guest_read_file(model, &len);
    wasi_nn_graph_builder builders[2] = {{bytes, len}, {(const uint8_t*)config, config ? (uint32_t)strlen(config) : 0}};
    rc = wasi_nn_load(builders, config ? 2 : 1, WASI_NN_ENCODING_WHISPER, WASI_NN_TARGET_AUTO, &graph);
    free(bytes);
  } else if (config) {
    rc = wasi_nn_load_by_name_with_config(name, (uint32_t)strlen(name), config, (uint32_t)strlen(config), &graph);
  } else {
    rc = wasi_nn_load_by_name(name, (uint32_t)strlen(name), &graph);
  }
  if (rc) fail("load", rc);
  wasi_nn_context ctx;
  rc = wasi_nn_init_execution_context(graph, &ctx);
  if (rc) fail("init_execution_context", rc);

  for (; i < argc; ++i) {
    uint32_t len = 0;
    unsigned char* wav = guest_read_file(argv[i], &len);
    set_bytes(ctx, 0, WASI_NN_TYPE_F32, wav, len); /* WasmEdge's example says F32; the type is ignored */
    if (metadata) set_bytes(ctx, 1, WASI_NN_TYPE_U8, (const unsigned char*)metadata, (uint32_t)strlen(metadata));
    printf("--- transcript %s ---\n", argv[i]);
    if (streaming) {
      stream(ctx);
    } else {
      for (int r = 0; r < repeat; ++r) {
        rc = wasi_nn_compute(ctx);
        if (rc) fail("compute", rc);
      }
      print_output(ctx, 0);
    }
    printf("--- end ---\n");
    if (output > 0) {
      printf("--- output %d ---\n", output);
      print_output(ctx, (uint32_t)output);
      printf("--- end ---\n");
    }
    free(wav);
  }
  rc = wasi_nn_finalize_execution_context(ctx);
  if (rc) fail("finalize_execution_context", rc);
  rc = wasi_nn_unload(graph);
  if (rc) fail("unload", rc);
  return 0;
}
