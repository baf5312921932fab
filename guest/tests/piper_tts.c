// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * piper_tts: WasmEdge's Piper example (wasmedge-piper) as a C guest, with every mistake such a
 * guest can make in between: each refused call printed as "CASE errno N", and after them the
 * same guest still speaks. The WAV files it writes are compared with piper-tts's by
 * tests/backends/piper.
 *
 *   wasinn run --backend-config 'piper={"allow-host-paths":true}' --dir OUT::/out
 *       piper_tts.wasm VOICE.onnx /out
 *
 * VOICE.onnx is a host path, as WasmEdge's run config takes it (its .onnx.json beside it).
 * Writes /out/welcome.wav (plain text, before the mistakes), /out/welcome-after.wav (the same,
 * after them) and /out/noise.wav (JSON input with noise_scale 0.3).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wasi_nn.h"

static const char* kWelcome = "Welcome to the world of speech synthesis!";
static char config_buf[2048];
static const char* voice;

static void report(const char* name, int32_t rc) { printf("%s errno %d\n", name, (int)rc); }

static int32_t load_json(const char* json, uint32_t encoding, wasi_nn_graph* g) {
  wasi_nn_graph_builder b = {(const uint8_t*)json, (uint32_t)strlen(json)};
  return wasi_nn_load(&b, 1, encoding, WASI_NN_TARGET_CPU, g);
}

/* The run config of the example, with `extra` keys ("" or ", \"k\": v"). */
static const char* config(const char* extra) {
  snprintf(config_buf, sizeof config_buf, "{\"model\": \"%s\"%s}", voice, extra);
  return config_buf;
}

static int32_t set_text(wasi_nn_context ctx, const char* text, uint32_t len) {
  uint32_t dims[1] = {len};
  wasi_nn_tensor t = {dims, 1, WASI_NN_TYPE_U8, {0, 0, 0}, (const uint8_t*)text, len};
  return wasi_nn_set_input(ctx, 0, &t);
}

static uint8_t out[1 << 20];

/* set_input, compute, get_output and the WAV into `path`; 0 or the failing call's errno. */
static int32_t speak(wasi_nn_context ctx, const char* text, const char* path) {
  uint32_t size = 0;
  int32_t rc = set_text(ctx, text, (uint32_t)strlen(text));
  if (!rc) rc = wasi_nn_compute(ctx);
  if (!rc) rc = wasi_nn_get_output(ctx, 0, out, sizeof out, &size);
  if (rc) return rc;
  FILE* f = fopen(path, "wb");
  if (!f || fwrite(out, 1, size, f) != size) {
    fprintf(stderr, "piper_tts: cannot write %s\n", path);
    exit(1);
  }
  fclose(f);
  printf("wrote %s: %u bytes\n", path, (unsigned)size);
  return 0;
}

static char path_buf[512];
static const char* at(const char* dir, const char* name) {
  snprintf(path_buf, sizeof path_buf, "%s/%s", dir, name);
  return path_buf;
}

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: piper_tts VOICE.onnx OUT_DIR\n");
    return 2;
  }
  voice = argv[1];
  const char* dir = argv[2];
  wasi_nn_graph g, bad;
  wasi_nn_context ctx;

  /* The example: load the run config, speak, write the WAV. */
  int32_t rc = load_json(config(""), WASI_NN_ENCODING_PIPER, &g);
  if (!rc) rc = wasi_nn_init_execution_context(g, &ctx);
  if (rc) {
    report("load-example", rc);
    return 1;
  }
  rc = speak(ctx, kWelcome, at(dir, "welcome.wav"));
  if (rc) {
    report("speak-example", rc);
    return 1;
  }

  /* Loads the host refuses, each with the reason in its log. */
  report("load-malformed-json", load_json("{\"model\": ", WASI_NN_ENCODING_PIPER, &bad));
  report("load-unknown-key", load_json(config(", \"modle\": \"x\""), WASI_NN_ENCODING_PIPER, &bad));
  report("load-missing-espeak-data",
         load_json(config(", \"espeak_data\": \"/no/such/espeak-ng-data\""), WASI_NN_ENCODING_PIPER, &bad));
  report("load-missing-voice", load_json("{\"model\": \"/no/such/voice.onnx\"}", WASI_NN_ENCODING_PIPER, &bad));
  report("load-chattts", load_json(config(""), WASI_NN_ENCODING_CHATTTS, &bad));
  /* As WasmEdge's prebuilt ChatTTS example loads: no builders at all. */
  report("load-chattts-no-builders", wasi_nn_load(NULL, 0, WASI_NN_ENCODING_CHATTTS, WASI_NN_TARGET_CPU, &bad));
  report("load-as-onnx", load_json(config(""), WASI_NN_ENCODING_ONNX, &bad));

  /* Inputs and calls a context refuses. */
  wasi_nn_context fresh;
  rc = wasi_nn_init_execution_context(g, &fresh);
  if (rc) {
    report("init", rc);
    return 1;
  }
  uint32_t size = 0;
  report("compute-without-text", wasi_nn_compute(fresh));
  report("output-before-compute", wasi_nn_get_output(fresh, 0, out, sizeof out, &size));
  static char long_text[70000];
  memset(long_text, 'a', sizeof long_text);
  report("text-too-long", set_text(ctx, long_text, sizeof long_text));
  report("text-not-utf8", set_text(ctx, "caf\xC3\x28", 5));
  report("input-1",
         wasi_nn_set_input(ctx, 1,
                           &(wasi_nn_tensor){(uint32_t[]){1}, 1, WASI_NN_TYPE_U8, {0, 0, 0}, (const uint8_t*)"a", 1}));
  /* The example's output again, into a buffer too small for it (the refused inputs above kept it). */
  report("output-64-bytes", wasi_nn_get_output(ctx, 0, out, 64, &size));

  /* JSON input, as the example's json_input schema. */
  wasi_nn_graph jg;
  wasi_nn_context jc;
  rc = load_json(config(", \"json_input\": true"), WASI_NN_ENCODING_PIPER, &jg);
  if (!rc) rc = wasi_nn_init_execution_context(jg, &jc);
  if (rc) {
    report("load-json-input", rc);
    return 1;
  }
  report("json-malformed", set_text(jc, "{\"text\": ", 9));
  report("json-no-text", set_text(jc, "{\"noise_scale\": 0.3}", 20));
  report("json-unknown-key", set_text(jc, "{\"text\": \"hi\", \"volume\": 2}", 27));
  char noise[256];
  snprintf(noise, sizeof noise, "{\"text\": \"%s\", \"noise_scale\": 0.3}", kWelcome);
  rc = speak(jc, noise, at(dir, "noise.wav"));
  if (rc) {
    report("speak-json", rc);
    return 1;
  }

  /* After all of that, the first context speaks as before. */
  rc = speak(ctx, kWelcome, at(dir, "welcome-after.wav"));
  if (rc) {
    report("speak-after", rc);
    return 1;
  }
  printf("done\n");
  return 0;
}
