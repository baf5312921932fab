// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * remote_loop: computes in a loop through one context and goes on after a failure, so a test
 * can stop a remote model's server, start it again, and see the same guest (and host) recover.
 *
 *   remote_loop NAME ITERATIONS SLEEP_MS LENGTH [RECOVERED]
 *
 * NAME is a model registered by the host whose input 0 and output 0 are f32 [-1] and whose
 * output equals its input (identity_fp32 of the remote tests). Each iteration sets [i, i+1, ...]
 * of LENGTH floats, computes, reads output 0 back and checks it, then sleeps SLEEP_MS. Prints one
 * line per iteration, "iter I ok" or "iter I errno E in STEP" (or "iter I wrong output"), and at
 * the end "ok K failed F". With RECOVERED, the loop ends early once RECOVERED computes in a row
 * have succeeded after a failure (a test then waits only as long as the outage lasts). Exit status 0 unless the load
 * fails (its errno) or an argument is bad (2).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "wasi_nn.h"

int main(int argc, char** argv) {
  if (argc != 5 && argc != 6) {
    fprintf(stderr, "usage: remote_loop NAME ITERATIONS SLEEP_MS LENGTH [RECOVERED]\n");
    return 2;
  }
  const char* name = argv[1];
  const int iterations = atoi(argv[2]);
  const int sleep_ms = atoi(argv[3]);
  const uint32_t length = (uint32_t)atoi(argv[4]);
  const int recovered = argc == 6 ? atoi(argv[5]) : 0;
  if (iterations <= 0 || sleep_ms < 0 || length == 0 || recovered < 0) return 2;
  wasi_nn_graph graph;
  int32_t rc = wasi_nn_load_by_name(name, (uint32_t)strlen(name), &graph);
  if (rc) {
    printf("errno %d in load_by_name\n", rc);
    return rc;
  }
  wasi_nn_context ctx;
  rc = wasi_nn_init_execution_context(graph, &ctx);
  if (rc) {
    printf("errno %d in init_execution_context\n", rc);
    return rc;
  }
  float *in = malloc(length * sizeof(float)), *out = malloc(length * sizeof(float));
  int ok = 0, failed = 0, ok_in_a_row = 0;
  for (int i = 0; i < iterations; ++i) {
    for (uint32_t k = 0; k < length; ++k) in[k] = (float)(i + k);
    const uint32_t dims[1] = {length};
    wasi_nn_tensor t = {dims, 1, WASI_NN_TYPE_F32, {0}, (const uint8_t*)in, length * 4};
    const char* step = "set_input";
    rc = wasi_nn_set_input(ctx, 0, &t);
    if (!rc) {
      step = "compute";
      rc = wasi_nn_compute(ctx);
    }
    uint32_t written = 0;
    if (!rc) {
      step = "get_output";
      rc = wasi_nn_get_output(ctx, 0, (uint8_t*)out, length * 4, &written);
    }
    if (rc) {
      printf("iter %d errno %d in %s\n", i, rc, step);
      ++failed;
      ok_in_a_row = 0;
    } else if (written != length * 4 || memcmp(in, out, length * 4) != 0) {
      printf("iter %d wrong output\n", i);
      ++failed;
      ok_in_a_row = 0;
    } else {
      printf("iter %d ok\n", i);
      ++ok;
      ++ok_in_a_row;
    }
    fflush(stdout);
    if (recovered && failed && ok_in_a_row >= recovered) break;
    struct timespec ts = {sleep_ms / 1000, (sleep_ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
  }
  printf("ok %d failed %d\n", ok, failed);
  return 0;
}
