// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * whisper_errors: every mistake a WasmEdge whisper guest can make, one after another in one
 * guest, each printed as "CASE errno N"; then a correct transcription in the same guest, so a
 * refused call is shown to leave the host serving. tests/backends/whisper checks the errnos
 * and the host's detail lines.
 *
 *   wasinn run --nn-preload default:Whisper:AUTO:DIR/tiny-en.bin [--nn-preload tiny:GGML:AUTO:GGUF]
 *       --dir DIR::/w whisper_errors.wasm /w GGUF_FILE
 *
 * DIR holds the whisper fixtures (scripts/fixtures/export_whisper.py); GGUF_FILE is any GGUF
 * model (a model of the wrong kind for encoding 9). With a GGUF model registered as "tiny", a
 * few tokens from llama.cpp come between the errors and the transcription: the two plugins'
 * ggml builds serve one process.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wasinn_guest_file.h"
#include "wasi_nn.h"

static char path_buf[512];
static const char* dir;

static const char* at(const char* name) {
  snprintf(path_buf, sizeof path_buf, "%s/%s", dir, name);
  return path_buf;
}

static void report(const char* name, int32_t rc) { printf("%s errno %d\n", name, (int)rc); }

static int32_t load_bytes(const unsigned char* bytes, uint32_t len, const char* config, wasi_nn_graph* g) {
  wasi_nn_graph_builder b[2] = {{bytes, len}, {(const uint8_t*)config, config ? (uint32_t)strlen(config) : 0}};
  return wasi_nn_load(b, config ? 2 : 1, WASI_NN_ENCODING_WHISPER, WASI_NN_TARGET_CPU, g);
}

static int32_t load_config(const char* config, wasi_nn_graph* g) {
  return wasi_nn_load_by_name_with_config("default", 7, config, (uint32_t)strlen(config), g);
}

static int32_t set(wasi_nn_context ctx, uint32_t index, uint32_t d0, const unsigned char* data, uint32_t len) {
  uint32_t dims[2] = {d0, len};
  wasi_nn_tensor t = {dims, 2, WASI_NN_TYPE_F32, {0, 0, 0}, data, len};
  return wasi_nn_set_input(ctx, index, &t);
}

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: whisper_errors DIR GGUF_FILE\n");
    return 2;
  }
  dir = argv[1];
  wasi_nn_graph g;
  uint32_t len = 0;

  /* Models that are not whisper models. */
  unsigned char* gguf = guest_read_file(argv[2], &len);
  report("load-gguf-as-whisper", load_bytes(gguf, len > 4096 ? 4096 : len, NULL, &g));
  free(gguf);
  report("load-text-as-whisper", load_bytes((const unsigned char*)"hello, whisper", 14, NULL, &g));
  unsigned char* truncated = guest_read_file(at("truncated.bin"), &len);
  report("load-truncated-model", load_bytes(truncated, len, NULL, &g));
  free(truncated);
  report("load-gpu-target", wasi_nn_load((wasi_nn_graph_builder[]){{(const uint8_t*)"x", 1}}, 1,
                                         WASI_NN_ENCODING_WHISPER, WASI_NN_TARGET_GPU, &g));

  /* Configs a load refuses. */
  report("config-unknown-key", load_config("{\"no-such-option\": 1}", &g));
  report("config-wrong-type", load_config("{\"threads\": \"two\"}", &g));
  report("config-out-of-range", load_config("{\"beam-size\": 1000}", &g));
  report("config-malformed", load_config("{\"language\": ", &g));
  report("config-unknown-language", load_config("{\"language\": \"xx\"}", &g));
  report("config-processors", load_config("{\"processors\": 2}", &g));
  report("config-output-file", load_config("{\"output-srt\": true, \"output-file\": \"/tmp/x\"}", &g));

  /* Inputs a context refuses. */
  int32_t rc = load_config("{\"threads\": 2, \"beam-size\": 1, \"best-of\": 1, \"temperature-inc\": 0}", &g);
  if (rc) {
    report("load-good", rc);
    return 1;
  }
  wasi_nn_context ctx;
  rc = wasi_nn_init_execution_context(g, &ctx);
  if (rc) {
    report("init", rc);
    return 1;
  }
  report("compute-without-audio", wasi_nn_compute(ctx));
  uint32_t out_len = 0;
  static unsigned char out[1 << 16];
  report("output-before-compute", wasi_nn_get_output(ctx, 0, out, sizeof out, &out_len));
  unsigned char* speech = guest_read_file(at("speech.wav"), &len);
  report("audio-not-riff", set(ctx, 0, 1, (const unsigned char*)"not a wave file at all", 22));
  report("audio-empty", set(ctx, 0, 1, speech, 0));
  report("audio-truncated", set(ctx, 0, 1, speech, len / 2));
  /* A header that promises nothing: RIFF size 36, an empty data chunk. */
  unsigned char header[44];
  memcpy(header, speech, 44);
  header[4] = 36, header[5] = header[6] = header[7] = 0;
  header[40] = header[41] = header[42] = header[43] = 0;
  report("audio-no-samples", set(ctx, 0, 1, header, 44));
  unsigned char* wav8k = guest_read_file(at("rate-8k.wav"), &out_len);
  report("audio-8khz", set(ctx, 0, 1, wav8k, out_len));
  free(wav8k);
  unsigned char* wav8bit = guest_read_file(at("pcm-8bit.wav"), &out_len);
  report("audio-8bit", set(ctx, 0, 1, wav8bit, out_len));
  free(wav8bit);
  report("audio-two-files", set(ctx, 0, 2, speech, len));
  report("metadata-unknown-key", set(ctx, 1, 1, (const unsigned char*)"{\"beam\": 2}", 11));
  report("metadata-wrong-type", set(ctx, 1, 1, (const unsigned char*)"{\"translate\": 1}", 16));
  report("metadata-not-json", set(ctx, 1, 1, (const unsigned char*)"beam-size=2", 11));
  report("input-2", set(ctx, 2, 1, speech, len));

  /* llama.cpp in the same process (its ggml is another build than whisper.cpp's): a few greedy
   * tokens from the model the host registered as "tiny", if it did. */
  wasi_nn_graph lg;
  const char* llama_config = "{\"temp\": 0, \"n-predict\": 4, \"ctx-size\": 64, \"threads\": 1}";
  if (wasi_nn_load_by_name_with_config("tiny", 4, llama_config, (uint32_t)strlen(llama_config), &lg) == 0) {
    wasi_nn_context lc;
    uint32_t pdims[1] = {16};
    wasi_nn_tensor prompt = {pdims, 1, WASI_NN_TYPE_U8, {0, 0, 0}, (const uint8_t*)"Once upon a time", 16};
    rc = wasi_nn_init_execution_context(lg, &lc);
    if (!rc) rc = wasi_nn_set_input(lc, 0, &prompt);
    if (!rc) rc = wasi_nn_compute(lc);
    if (!rc) rc = wasi_nn_get_output(lc, 0, out, sizeof out, &out_len);
    report("llama-beside-whisper", rc);
    if (!rc) printf("llama text: %.*s\n", (int)out_len, out);
    wasi_nn_unload(lg);
  }

  /* And then it works, in the same guest and context. */
  rc = set(ctx, 0, 1, speech, len);
  if (!rc) rc = wasi_nn_compute(ctx);
  if (!rc) rc = wasi_nn_get_output(ctx, 0, out, sizeof out, &out_len);
  report("transcribe", rc);
  if (!rc) {
    printf("--- transcript ---\n");
    fwrite(out, 1, out_len, stdout);
    printf("--- end ---\n");
  }
  free(speech);
  wasi_nn_finalize_execution_context(ctx);
  wasi_nn_unload(g);
  return rc ? 1 : 0;
}
