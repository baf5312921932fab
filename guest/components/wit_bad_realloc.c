// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * wit_bad_realloc: a guest whose exported cabi_realloc misbehaves while the host returns
 * compute's outputs (wasi:nn@0.2.0-rc-2024-10-28, command component). The host must trap or
 * fail the call, never crash or write outside the guest's memory.
 *
 *   wit_bad_realloc MODE MODEL|name:NAME X.f32
 *
 * Loads MODEL (onnx) and builds the input tensor ("input", FP32 [1, 64], row 0 of X) with a
 * normal allocator, prints "armed MODE", switches cabi_realloc into MODE, and calls compute:
 *   trap        cabi_realloc executes `unreachable` (__builtin_trap)
 *   oob         cabi_realloc returns 0xFFFFFFF0 (out of bounds for any size)
 *   misaligned  cabi_realloc returns an odd address for requests with align >= 2 (the named-tensor
 *               list, align 4); strings (align 1) are allocated normally
 *   ok          cabi_realloc stays correct (the control case)
 * If compute returns, cabi_realloc goes back to normal and the guest prints what it got:
 *   compute: ok, N outputs, first NAME, class C
 *   compute: error CODE-NAME: DATA
 * and then "realloc calls: K" (K calls while armed). Exit 0 after printing (for ok: only when the
 * compute succeeded); 1 on a load error; 2 for bad arguments.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wasi_nn_wit.h"
#include "wit_digits.h"
#include "wit_guest_util.h"

enum mode { MODE_NORMAL, MODE_TRAP, MODE_OOB, MODE_MISALIGNED };
static volatile enum mode realloc_mode = MODE_NORMAL;
static volatile int armed;
static volatile unsigned armed_calls;

__attribute__((export_name("cabi_realloc"))) void* cabi_realloc(void* old_ptr, size_t old_size, size_t align,
                                                                size_t new_size) {
  (void)old_size;
  if (armed) ++armed_calls;
  switch (realloc_mode) {
    case MODE_TRAP: __builtin_trap();
    case MODE_OOB: return (void*)(uintptr_t)0xFFFFFFF0u;
    case MODE_MISALIGNED:
      if (align >= 2) {
        /* One past a malloc'ed (16-aligned) block with room to spare: odd, and inside memory. */
        unsigned char* p = malloc(new_size + 16);
        if (!p) __builtin_trap();
        return p + 1;
      }
      break;
    case MODE_NORMAL: break;
  }
  void* p = realloc(old_ptr, new_size ? new_size : 1);
  if (!p) __builtin_trap();
  return p;
}

int main(int argc, char** argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: wit_bad_realloc trap|oob|misaligned|ok MODEL|name:NAME X.f32\n");
    return 2;
  }
  enum mode mode;
  if (!strcmp(argv[1], "trap"))
    mode = MODE_TRAP;
  else if (!strcmp(argv[1], "oob"))
    mode = MODE_OOB;
  else if (!strcmp(argv[1], "misaligned"))
    mode = MODE_MISALIGNED;
  else if (!strcmp(argv[1], "ok"))
    mode = MODE_NORMAL;
  else {
    fprintf(stderr, "wit_bad_realloc: unknown mode %s (trap oob misaligned ok)\n", argv[1]);
    return 2;
  }
  float* x;
  size_t rows;
  wnn_graph graph;
  wnn_context ctx;
  wnn_error err;
  int r = wg_open_digits("wit_bad_realloc", argv[2], argv[3], &x, &rows, &graph, &ctx);
  if (r) return r;
  wnn_named_tensor in = wg_digits_input(x);
  printf("armed %s\n", argv[1]);
  fflush(stdout);

  armed = 1;
  realloc_mode = mode;
  wnn_named_tensor_list outputs;
  int failed = wnn_compute(ctx, &in, 1, &outputs, &err);
  realloc_mode = MODE_NORMAL;
  armed = 0;

  int rc = 0;
  if (failed) {
    char text[1024];
    wg_error_text(err, text, sizeof text);
    printf("compute: error %s\n", text);
    rc = mode == MODE_NORMAL;
  } else {
    /* Read through the pointers the host wrote: for a bad mode they may be anywhere, so only
     * the count and, when the list lies in memory, the first name and class. */
    printf("compute: ok, %u outputs", outputs.len);
    if (mode == MODE_NORMAL && outputs.len > 0) {
      printf(", first %.*s, class %d", (int)outputs.ptr[0].name_len, outputs.ptr[0].name,
             wg_digits_first_class(&outputs));
      wnn_named_tensor_list_free(&outputs);
    }
    putchar('\n');
  }
  printf("realloc calls: %u\n", armed_calls);
  return rc;
}
