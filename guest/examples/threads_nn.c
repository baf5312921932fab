// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * threads_nn: a wasi-threads guest whose threads share one guest's wasi-nn handles.
 *
 *   threads_nn parallel N MODEL X.f32 Y.u8 [OUT.f32]
 *                                            N threads, each on its own context of one graph,
 *                                             classify every row; outputs must equal the
 *                                             main thread's single-threaded outputs (OUT)
 *   threads_nn shared N MODEL X.f32 Y.u8     N threads on ONE context, each computing row 0
 *                                             repeatedly; counts busy answers and wrong outputs
 *   threads_nn busy MODEL X.f32 Y.u8         a thread computes in a loop; the main thread
 *                                             computes on the same context until told busy
 *   threads_nn unload N MODEL X.f32 Y.u8     N threads compute on their own contexts while the
 *                                             main thread unloads the graph and finalizes them
 *   threads_nn trap | exit CODE              a thread traps / calls proc_exit(CODE) while the
 *                                             main thread waits forever
 *   threads_nn spawn N                       spawns N threads that wait; prints how many began
 *   threads_nn foreign N                     N times, uses graph handle 0 without loading:
 *                                             another guest's handles must not be visible
 *   threads_nn repeat T ITERS MODEL IN.f32 D0 [D1..]
 *                                            T threads, each on its own context, run ITERS
 *                                             inferences of the f32 input IN (dims D0 D1 ..);
 *                                             prints the wall time (a benchmark)
 *
 * Debian's wasi-libc has no threads: the host's `wasi.thread-spawn` is called directly, only the
 * main thread calls libc, and threads use atomics and memory.atomic.wait32/notify. Each thread
 * runs on a stack the main thread allocated (wasi_thread_start switches __stack_pointer).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wasinn_guest_file.h"
#include "wasi_nn.h"

__attribute__((import_module("wasi"), import_name("thread-spawn"))) int32_t wasi_thread_spawn(void* start_arg);
__attribute__((import_module("wasi_snapshot_preview1"), import_name("proc_exit"))) _Noreturn void wasi_proc_exit(
    int32_t code);

enum { kStackBytes = 64 * 1024, kRowFloats = 64, kClasses = 10, kMaxThreads = 64 };

struct thread_arg {
  void* stack_top;  // first: wasi_thread_start reads it before anything uses the stack
  int index;
  int mode;
  wasi_nn_context ctx;
  size_t computes;   // written by the thread
  int32_t last_err;  // the error that ended its loop, or 0
  int busy_seen;
  int wrong;
};

enum { MODE_PARALLEL, MODE_SHARED, MODE_BUSY, MODE_UNLOAD, MODE_TRAP, MODE_EXIT, MODE_SPAWN, MODE_REPEAT };

static const float* g_x;
static size_t g_rows;
static float* g_logits;         // rows x 10, from the single-threaded pass
static float* g_thread_logits;  // threads x rows x 10 (MODE_PARALLEL)
static int g_shared_iterations = 200;
static int32_t g_exit_code;
static volatile int32_t g_done;     // threads finished
static volatile int32_t g_stop;     // set by main: threads end their loops
static volatile int32_t g_release;  // MODE_SPAWN: threads may return

// MODE_REPEAT: one f32 input, its dims, and each thread's last output.
static wasi_nn_tensor g_input;
static int g_iterations;
enum { kRepeatOutputBytes = 1 << 20 };
static uint8_t* g_repeat_outputs;  // threads x kRepeatOutputBytes
static uint32_t g_repeat_written;

static void wait_until_at_least(volatile int32_t* addr, int32_t want) {
  for (;;) {
    const int32_t v = __atomic_load_n(addr, __ATOMIC_SEQ_CST);
    if (v >= want) return;
    __builtin_wasm_memory_atomic_wait32((int32_t*)addr, v, -1);
  }
}

static void bump_and_notify(volatile int32_t* addr) {
  __atomic_fetch_add(addr, 1, __ATOMIC_SEQ_CST);
  __builtin_wasm_memory_atomic_notify((int32_t*)addr, UINT32_MAX);
}

// Sets input row `row` on ctx, computes and reads the 10 logits.
static int32_t classify(wasi_nn_context ctx, size_t row, float* out) {
  const uint32_t dims[2] = {1, kRowFloats};
  wasi_nn_tensor t = {
      dims, 2, WASI_NN_TYPE_F32, {0, 0, 0}, (const uint8_t*)(g_x + row * kRowFloats), kRowFloats * sizeof(float)};
  int32_t e = wasi_nn_set_input(ctx, 0, &t);
  if (e == 0) e = wasi_nn_compute(ctx);
  uint32_t written = 0;
  if (e == 0) e = wasi_nn_get_output(ctx, 0, (uint8_t*)out, kClasses * sizeof(float), &written);
  if (e == 0 && written != kClasses * sizeof(float)) e = WASI_NN_RUNTIME_ERROR;
  return e;
}

static int same_logits(const float* a, const float* b) { return memcmp(a, b, kClasses * sizeof(float)) == 0; }

// Runs on the thread's own stack. noinline: its frame must be made after the stack switch.
__attribute__((noinline)) static void thread_body(struct thread_arg* a) {
  float out[kClasses];  // on this thread's stack: proves the switch worked
  switch (a->mode) {
    case MODE_PARALLEL:
      for (size_t r = 0; r < g_rows; ++r) {
        a->last_err = classify(a->ctx, r, g_thread_logits + ((size_t)a->index * g_rows + r) * kClasses);
        if (a->last_err) break;
        ++a->computes;
      }
      break;
    case MODE_SHARED:
      for (int i = 0; i < g_shared_iterations; ++i) {
        const int32_t e = classify(a->ctx, 0, out);
        if (e == WASI_NN_BUSY) {
          ++a->busy_seen;
        } else if (e) {
          a->last_err = e;
          break;
        } else {
          ++a->computes;
          if (!same_logits(out, g_logits)) ++a->wrong;
        }
      }
      break;
    case MODE_BUSY:
    case MODE_UNLOAD:
      while (!__atomic_load_n(&g_stop, __ATOMIC_SEQ_CST)) {
        const int32_t e = a->mode == MODE_BUSY ? wasi_nn_compute(a->ctx) : classify(a->ctx, 0, out);
        if (e == WASI_NN_BUSY && a->mode == MODE_BUSY) {  // the main thread holds the context: expected
          ++a->busy_seen;
          continue;
        }
        if (e) {
          a->last_err = e;
          break;
        }
        ++a->computes;
        if (a->mode == MODE_UNLOAD && !same_logits(out, g_logits)) ++a->wrong;
      }
      break;
    case MODE_REPEAT:
      for (int i = 0; i < g_iterations && !a->last_err; ++i) {
        uint32_t written = 0;
        a->last_err = wasi_nn_set_input(a->ctx, 0, &g_input);
        if (!a->last_err) a->last_err = wasi_nn_compute(a->ctx);
        if (!a->last_err) {
          a->last_err = wasi_nn_get_output(a->ctx, 0, g_repeat_outputs + (size_t)a->index * kRepeatOutputBytes,
                                           kRepeatOutputBytes, &written);
        }
        if (!a->last_err) ++a->computes;
      }
      break;
    case MODE_TRAP: __builtin_trap();
    case MODE_EXIT: wasi_proc_exit(g_exit_code);
    case MODE_SPAWN: wait_until_at_least(&g_release, 1); break;
  }
  bump_and_notify(&g_done);
}

__attribute__((export_name("wasi_thread_start"))) void wasi_thread_start(int32_t tid, struct thread_arg* a) {
  (void)tid;
  void* sp = a->stack_top;
  __asm__ volatile("local.get %0\n\tglobal.set __stack_pointer" : : "r"(sp));
  thread_body(a);
}

static struct thread_arg* new_thread_arg(int index, int mode) {
  struct thread_arg* a = calloc(1, sizeof *a);
  unsigned char* stack = malloc(kStackBytes);
  if (!a || !stack) {
    fprintf(stderr, "threads_nn: out of memory\n");
    exit(2);
  }
  a->stack_top = (void*)(((uintptr_t)stack + kStackBytes) & ~(uintptr_t)15);
  a->index = index;
  a->mode = mode;
  return a;
}

static int spawn(struct thread_arg* a) {
  const int32_t tid = wasi_thread_spawn(a);
  if (tid <= 0) fprintf(stderr, "threads_nn: thread-spawn returned %d\n", tid);
  return tid;
}

static int fail(const char* what, int32_t e) {
  fprintf(stderr, "threads_nn: %s failed with wasi-nn errno %d\n", what, e);
  return 1;
}

static int nn_mode(int mode, int n, char** argv) {
  uint32_t model_len = 0, x_len = 0, y_len = 0;
  unsigned char* model = guest_read_file(argv[0], &model_len);
  g_x = (const float*)guest_read_file(argv[1], &x_len);
  unsigned char* y = guest_read_file(argv[2], &y_len);
  if (x_len != y_len * kRowFloats * sizeof(float)) {
    fprintf(stderr, "threads_nn: cannot read the model, N x 64 floats and N labels\n");
    return 2;
  }
  g_rows = y_len;
  wasi_nn_graph graph;
  wasi_nn_graph_builder builder = {model, model_len};
  int32_t e = wasi_nn_load(&builder, 1, WASI_NN_ENCODING_ONNX, WASI_NN_TARGET_CPU, &graph);
  if (e) return fail("load", e);
  wasi_nn_context main_ctx;
  if ((e = wasi_nn_init_execution_context(graph, &main_ctx))) return fail("init_execution_context", e);
  g_logits = malloc(g_rows * kClasses * sizeof(float));
  size_t correct = 0;
  for (size_t r = 0; r < g_rows; ++r) {  // the single-threaded answer every thread must match
    if ((e = classify(main_ctx, r, g_logits + r * kClasses))) return fail("compute on the main thread", e);
    int best = 0;
    for (int k = 1; k < kClasses; ++k)
      if (g_logits[r * kClasses + k] > g_logits[r * kClasses + best]) best = k;
    correct += best == y[r];
  }
  printf("single thread: accuracy %zu/%zu\n", correct, g_rows);
  if (argv[3]) {
    FILE* f = fopen(argv[3], "wb");
    if (!f || fwrite(g_logits, sizeof(float), g_rows * kClasses, f) != g_rows * kClasses || fclose(f) != 0) {
      fprintf(stderr, "threads_nn: cannot write %s\n", argv[3]);
      return 2;
    }
  }

  struct thread_arg* args[kMaxThreads];
  if (mode == MODE_BUSY) n = 1;
  if (mode == MODE_PARALLEL) g_thread_logits = malloc((size_t)n * g_rows * kClasses * sizeof(float));
  wasi_nn_context shared_ctx = 0;
  if (mode == MODE_SHARED || mode == MODE_BUSY) {
    if ((e = wasi_nn_init_execution_context(graph, &shared_ctx))) return fail("init_execution_context", e);
    if (mode == MODE_BUSY) {
      float out[kClasses];
      if ((e = classify(shared_ctx, 0, out))) return fail("compute", e);
    }
  }
  for (int i = 0; i < n; ++i) {
    args[i] = new_thread_arg(i, mode);
    args[i]->ctx = shared_ctx;
    if (mode == MODE_PARALLEL || mode == MODE_UNLOAD) {
      if ((e = wasi_nn_init_execution_context(graph, &args[i]->ctx))) return fail("init_execution_context", e);
    }
  }
  for (int i = 0; i < n; ++i) {
    if (spawn(args[i]) <= 0) return 1;
  }

  if (mode == MODE_BUSY) {
    // The thread computes on shared_ctx in a loop; so does this thread, until one is refused.
    int tries = 0;
    while (tries < 1000000 && (e = wasi_nn_compute(shared_ctx)) != WASI_NN_BUSY) {
      if (e) return fail("compute on the shared context", e);
      ++tries;
    }
    __atomic_store_n(&g_stop, 1, __ATOMIC_SEQ_CST);
    wait_until_at_least(&g_done, 1);
    printf("busy: %s after %d computes of the main thread; the other thread computed %zu times (last errno %d)\n",
           e == WASI_NN_BUSY ? "told busy" : "never told busy", tries, args[0]->computes, args[0]->last_err);
    return e == WASI_NN_BUSY && args[0]->last_err == 0 ? 0 : 1;
  }
  if (mode == MODE_UNLOAD) {
    for (int i = 0; i < n; ++i) {  // let every thread be computing first
      while (__atomic_load_n(&args[i]->computes, __ATOMIC_SEQ_CST) < 10 && !args[i]->last_err) {
      }
    }
    if ((e = wasi_nn_unload(graph))) return fail("unload", e);
    for (int i = 0; i < n; ++i) {
      if ((e = wasi_nn_finalize_execution_context(args[i]->ctx))) return fail("finalize_execution_context", e);
    }
    __atomic_store_n(&g_stop, 1, __ATOMIC_SEQ_CST);
  }
  wait_until_at_least(&g_done, n);

  int bad = 0;
  size_t computes = 0;
  int busy = 0, wrong = 0;
  for (int i = 0; i < n; ++i) {
    computes += args[i]->computes;
    busy += args[i]->busy_seen;
    wrong += args[i]->wrong;
    if (mode == MODE_PARALLEL) {
      if (args[i]->last_err ||
          memcmp(g_thread_logits + (size_t)i * g_rows * kClasses, g_logits, g_rows * kClasses * sizeof(float)) != 0) {
        fprintf(stderr, "threads_nn: thread %d: errno %d, outputs %s\n", i, args[i]->last_err,
                args[i]->last_err ? "incomplete" : "differ from the single-threaded ones");
        bad = 1;
      }
    } else if (mode == MODE_SHARED && args[i]->last_err) {
      fprintf(stderr, "threads_nn: thread %d stopped with errno %d\n", i, args[i]->last_err);
      bad = 1;
    } else if (mode == MODE_UNLOAD && args[i]->last_err != 0 && args[i]->last_err != WASI_NN_INVALID_ARGUMENT &&
               args[i]->last_err != WASI_NN_NOT_FOUND) {
      fprintf(stderr, "threads_nn: thread %d stopped with unexpected errno %d\n", i, args[i]->last_err);
      bad = 1;
    }
  }
  if (mode == MODE_PARALLEL) {
    printf("parallel: %d threads, %zu computes, every output equal to the single-threaded one: %s\n", n, computes,
           bad ? "no" : "yes");
  } else if (mode == MODE_SHARED) {
    printf("shared: %d threads x %d computes on one context: %zu done, busy %d, wrong %d\n", n, g_shared_iterations,
           computes, busy, wrong);
  } else {
    printf("unload: %d threads computed %zu times, wrong %d; graph unloaded and contexts finalized under them\n", n,
           computes, wrong);
    // The host still serves this guest: a fresh load computes the same answer.
    if ((e = wasi_nn_load(&builder, 1, WASI_NN_ENCODING_ONNX, WASI_NN_TARGET_CPU, &graph))) return fail("reload", e);
    wasi_nn_context ctx;
    float out[kClasses];
    if ((e = wasi_nn_init_execution_context(graph, &ctx)) || (e = classify(ctx, 0, out))) return fail("recompute", e);
    printf("after unload: a new graph computes %s\n",
           same_logits(out, g_logits) ? "the same answer" : "a wrong answer");
    bad |= !same_logits(out, g_logits);
  }
  return bad || wrong;
}

#include <time.h>

static int repeat_mode(int threads, int iterations, int argc, char** argv) {
  uint32_t model_len = 0, in_len = 0;
  unsigned char* model = guest_read_file(argv[0], &model_len);
  unsigned char* input = guest_read_file(argv[1], &in_len);
  static uint32_t dims[8];
  const int rank = argc - 2;
  size_t elements = 1;
  for (int i = 0; i < rank; ++i) elements *= (size_t)(dims[i] = (uint32_t)atoi(argv[2 + i]));
  if (rank < 1 || rank > 8 || elements * sizeof(float) != in_len) {
    fprintf(stderr, "threads_nn: %s holds %u bytes, not the %zu f32 values of the dims given\n", argv[1], in_len,
            elements);
    return 2;
  }
  g_input = (wasi_nn_tensor){dims, (uint32_t)rank, WASI_NN_TYPE_F32, {0, 0, 0}, input, in_len};
  g_iterations = iterations;
  wasi_nn_graph graph;
  wasi_nn_graph_builder builder = {model, model_len};
  int32_t e = wasi_nn_load(&builder, 1, WASI_NN_ENCODING_ONNX, WASI_NN_TARGET_CPU, &graph);
  if (e) return fail("load", e);
  g_repeat_outputs = malloc((size_t)(threads + 1) * kRepeatOutputBytes);
  struct thread_arg* args[kMaxThreads];
  for (int i = 0; i < threads; ++i) {
    args[i] = new_thread_arg(i, MODE_REPEAT);
    if ((e = wasi_nn_init_execution_context(graph, &args[i]->ctx))) return fail("init_execution_context", e);
  }
  // One inference on the main thread first: the reference every thread's output must equal.
  wasi_nn_context ctx;
  if ((e = wasi_nn_init_execution_context(graph, &ctx)) || (e = wasi_nn_set_input(ctx, 0, &g_input)) ||
      (e = wasi_nn_compute(ctx)) ||
      (e = wasi_nn_get_output(ctx, 0, g_repeat_outputs + (size_t)threads * kRepeatOutputBytes, kRepeatOutputBytes,
                              &g_repeat_written))) {
    return fail("the reference inference", e);
  }
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (int i = 0; i < threads; ++i) {
    if (spawn(args[i]) <= 0) return 1;
  }
  wait_until_at_least(&g_done, threads);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  const double seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
  for (int i = 0; i < threads; ++i) {
    if (args[i]->last_err) return fail("an inference on a thread", args[i]->last_err);
    if (memcmp(g_repeat_outputs + (size_t)i * kRepeatOutputBytes,
               g_repeat_outputs + (size_t)threads * kRepeatOutputBytes, g_repeat_written) != 0) {
      fprintf(stderr, "threads_nn: thread %d's output differs from the main thread's\n", i);
      return 1;
    }
  }
  printf("repeat: %d threads x %d inferences in %.6f s: %.2f inferences/s\n", threads, iterations, seconds,
         (double)threads * iterations / seconds);
  return 0;
}

int main(int argc, char** argv) {
  const char* usage =
      "usage: threads_nn parallel N MODEL X.f32 Y.u8 [OUT.f32] | shared|unload N MODEL X.f32 Y.u8 | "
      "busy MODEL X.f32 Y.u8 | trap | exit CODE | spawn N | foreign N | repeat T ITERS MODEL IN.f32 D0 [D1..]\n";
  if (argc < 2) {
    fputs(usage, stderr);
    return 2;
  }
  const char* m = argv[1];
  if (!strcmp(m, "busy") && argc == 5) return nn_mode(MODE_BUSY, 1, argv + 2);
  if (strcmp(m, "parallel") && argc == 7) {  // only parallel writes its outputs
    fputs(usage, stderr);
    return 2;
  }
  if (!strcmp(m, "repeat") && argc >= 7) {
    const int threads = atoi(argv[2]), iterations = atoi(argv[3]);
    if (threads < 1 || threads > kMaxThreads || iterations < 1) {
      fprintf(stderr, "threads_nn: T must be 1..%d and ITERS at least 1\n", kMaxThreads);
      return 2;
    }
    return repeat_mode(threads, iterations, argc - 4, argv + 4);
  }
  if (!strcmp(m, "foreign") && argc == 3) {
    const int n = atoi(argv[2]);
    for (int i = 0; i < n; ++i) {
      wasi_nn_context ctx;
      const int32_t e = wasi_nn_init_execution_context(0, &ctx);
      if (e != WASI_NN_INVALID_ARGUMENT) {
        fprintf(stderr, "threads_nn: graph handle 0, never loaded here, gave errno %d\n", e);
        return 1;
      }
    }
    printf("foreign: graph handle 0 refused %d times\n", n);
    return 0;
  }
  if ((!strcmp(m, "parallel") || !strcmp(m, "shared") || !strcmp(m, "unload")) && (argc == 6 || argc == 7)) {
    const int n = atoi(argv[2]);
    if (n < 1 || n > kMaxThreads) {
      fprintf(stderr, "threads_nn: N must be 1..%d\n", kMaxThreads);
      return 2;
    }
    return nn_mode(!strcmp(m, "parallel") ? MODE_PARALLEL
                   : !strcmp(m, "shared") ? MODE_SHARED
                                          : MODE_UNLOAD,
                   n, argv + 3);
  }
  if (!strcmp(m, "trap") || (!strcmp(m, "exit") && argc == 3)) {
    if (argc == 3) g_exit_code = atoi(argv[2]);
    fflush(stdout);
    if (spawn(new_thread_arg(0, !strcmp(m, "trap") ? MODE_TRAP : MODE_EXIT)) <= 0) return 1;
    wait_until_at_least(&g_stop, 1);  // never set: only the other thread can end this guest
    return 3;
  }
  if (!strcmp(m, "spawn") && argc == 3) {
    const int n = atoi(argv[2]);
    int began = 0, first_failure = 0;
    for (int i = 0; i < n && i < kMaxThreads; ++i) {
      const int32_t tid = wasi_thread_spawn(new_thread_arg(i, MODE_SPAWN));
      if (tid > 0) {
        ++began;
      } else if (!first_failure) {
        first_failure = tid;
      }
    }
    __atomic_store_n(&g_release, 1, __ATOMIC_SEQ_CST);
    __builtin_wasm_memory_atomic_notify((int32_t*)&g_release, UINT32_MAX);
    wait_until_at_least(&g_done, began);
    printf("spawn: %d of %d threads began; first failure %d\n", began, n, first_failure);
    return 0;
  }
  fputs(usage, stderr);
  return 2;
}

// -nostartfiles: wasm-ld would otherwise wrap wasi_thread_start in ctor/dtor calls (see
// guest-toolchains.md), so this guest has its own _start.
int __main_void(void);
void __wasm_call_ctors(void);
__attribute__((export_name("_start"))) void _start(void) {
  __wasm_call_ctors();
  exit(__main_void());
}
