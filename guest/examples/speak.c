// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * speak: text to speech through wasi-nn, making the calls WasmEdge's Piper example makes with its
 * wasmedge-wasi-nn crate: GraphBuilder(Piper, CPU).build_from_bytes([run config JSON]),
 * init_execution_context, set_input(0, U8, [len], text), compute, get_output(0) -> a WAV file.
 *
 *   wasinn run --nn-preload voice:piper:CPU:VOICE.onnx --dir DIR::/d speak.wasm
 *       voice /d/text.txt /d/speech.wav [REPEAT]
 *   wasinn run --backend-config 'piper={"allow-host-paths":true}' --dir DIR::/d speak.wasm
 *       RUN_CONFIG_JSON /d/text.txt /d/speech.wav [REPEAT]
 *
 * The first argument is a voice the host registered (load_by_name), or WasmEdge's run config
 * when it starts with '{', e.g. {"model": "/voices/en_US-lessac-medium.onnx"} (host paths, as
 * WasmEdge takes them, which the operator must allow). With REPEAT, the text is spoken REPEAT times and each compute's
 * wall time printed as "compute ms: T" (benchmarks), the WAV written once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "wasi_nn.h"
#include "wasinn_guest_file.h"

static uint8_t out[64 << 20];

static void fail(const char* step, int32_t err) {
  fprintf(stderr, "speak: %s failed with wasi-nn errno %d\n", step, err);
  exit(err ? err : 1);
}

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

int main(int argc, char** argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: speak VOICE_NAME|RUN_CONFIG_JSON TEXT_FILE OUT.wav [REPEAT]\n");
    return 2;
  }
  uint32_t text_len = 0;
  unsigned char* text = guest_read_file(argv[2], &text_len);
  if (!text) return 2;
  const int repeat = argc > 4 ? atoi(argv[4]) : 1;
  wasi_nn_graph_builder b = {(const uint8_t*)argv[1], (uint32_t)strlen(argv[1])};
  wasi_nn_graph g;
  wasi_nn_context ctx;
  int32_t rc = argv[1][0] == '{' ? wasi_nn_load(&b, 1, WASI_NN_ENCODING_PIPER, WASI_NN_TARGET_CPU, &g)
                                 : wasi_nn_load_by_name(argv[1], (uint32_t)strlen(argv[1]), &g);
  if (rc) fail("load", rc);
  if ((rc = wasi_nn_init_execution_context(g, &ctx))) fail("init_execution_context", rc);
  uint32_t dims[1] = {text_len};
  wasi_nn_tensor t = {dims, 1, WASI_NN_TYPE_U8, {0, 0, 0}, text, text_len};
  uint32_t size = 0;
  for (int i = 0; i < (repeat > 0 ? repeat : 1); ++i) {
    const double start = now_ms();
    if ((rc = wasi_nn_set_input(ctx, 0, &t))) fail("set_input", rc);
    if ((rc = wasi_nn_compute(ctx))) fail("compute", rc);
    if ((rc = wasi_nn_get_output(ctx, 0, out, sizeof out, &size))) fail("get_output", rc);
    if (argc > 4) printf("compute ms: %.3f\n", now_ms() - start);
  }
  FILE* f = fopen(argv[3], "wb");
  if (!f || fwrite(out, 1, size, f) != size) {
    fprintf(stderr, "speak: cannot write %s\n", argv[3]);
    return 1;
  }
  fclose(f);
  printf("wrote %s: %u bytes\n", argv[3], (unsigned)size);
  free(text);
  return 0;
}
