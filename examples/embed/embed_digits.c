// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * embed_digits: a host program embedding wasinn through its C API (wasinn/wasinn.h).
 *
 *   embed_digits CLASSIFY_DIGITS_WASM DIGITS_DIR [THREADS [RUNS [ISOLATE_LOADS]]]
 *
 * One host, one named model ("digits", DIGITS_DIR/model.onnx, loaded once and shared), and
 * THREADS threads (default 4) that each run the classify_digits guest RUNS times (default 3)
 * on the 450 held-out digits, capturing its stdout. Every run must exit 0 and report the same
 * accuracy; the program prints that line once and exits 0, or says what differed and exits 1.
 * wasinn's log goes to a callback, which counts the model loads it reports. ISOLATE_LOADS
 * (auto, always, never) is the host's isolate_loads: "always" checks the model's load in
 * wasinn-load-check, the child process libwasinn finds in its prefix's bin/.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <wasinn/wasinn.h>

typedef struct {
  wasinn_host_t* host;
  const wasinn_program_t* program;
  int runs;
  char accuracy[128]; /* the guest's "accuracy: ..." line, the same in every run */
  char failure[512];  /* empty unless a run failed */
} worker_t;

/* wasinn's log lines come here instead of stderr (one call at a time). Warnings are shown; model
 * loads ("loaded NAME ... with BACKEND in ...", info) are counted: the shared model loads once. */
static void on_log(void* user_data, wasinn_log_level_t level, const char* message, size_t length) {
  if (level >= WASINN_LEVEL_WARN) fprintf(stderr, "embed_digits: wasinn says: %.*s\n", (int)length, message);
  if (level == WASINN_LEVEL_INFO && length > 7 && memcmp(message, "loaded ", 7) == 0) ++*(int*)user_data;
}

/* The "accuracy: ..." line of the guest's output, or "" if there is none. */
static void accuracy_line(const char* out, char* line, size_t size) {
  const char* at = strstr(out, "accuracy: ");
  size_t n = at ? strcspn(at, "\n") : 0;
  if (n >= size) n = size - 1;
  memcpy(line, at ? at : "", n);
  line[n] = '\0';
}

static void* work(void* arg) {
  worker_t* w = (worker_t*)arg;
  for (int i = 0; i < w->runs && !w->failure[0]; ++i) {
    wasinn_result_t* r = wasinn_host_run(w->host, w->program);
    if (!r) {
      snprintf(w->failure, sizeof w->failure, "out of memory");
      break;
    }
    char line[128];
    accuracy_line(wasinn_result_stdout(r, NULL), line, sizeof line);
    if (wasinn_result_exit_code(r) != 0) {
      snprintf(w->failure, sizeof w->failure, "run %d exited with %d: %s", i, wasinn_result_exit_code(r),
               wasinn_result_message(r));
    } else if (!line[0]) {
      snprintf(w->failure, sizeof w->failure, "run %d printed no accuracy line", i);
    } else if (w->accuracy[0] && strcmp(line, w->accuracy) != 0) {
      snprintf(w->failure, sizeof w->failure, "run %d says '%s', an earlier one '%s'", i, line, w->accuracy);
    } else {
      strcpy(w->accuracy, line);
    }
    wasinn_result_destroy(r);
  }
  return NULL;
}

static unsigned char* read_file(const char* path, size_t* length) {
  FILE* f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char* buf = n > 0 ? malloc((size_t)n) : NULL;
  if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
    free(buf);
    buf = NULL;
  }
  fclose(f);
  *length = buf ? (size_t)n : 0;
  return buf;
}

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: embed_digits CLASSIFY_DIGITS_WASM DIGITS_DIR [THREADS [RUNS [ISOLATE_LOADS]]]\n");
    return 2;
  }
  const int threads = argc > 3 ? atoi(argv[3]) : 4;
  const int runs = argc > 4 ? atoi(argv[4]) : 3;
  if (threads < 1 || threads > 64 || runs < 1) {
    fprintf(stderr, "embed_digits: THREADS must be 1 to 64 and RUNS at least 1\n");
    return 2;
  }
  printf("wasinn %s\n", wasinn_version());

  wasinn_options_t* options = wasinn_options_create();
  char preload[4096];
  snprintf(preload, sizeof preload, "digits:onnx:cpu:%s/model.onnx", argv[2]);
  wasinn_options_add_preload(options, preload);
  wasinn_options_set_backend_config(options, "onnxruntime", "{\"intra_op_threads\": 1}");
  if (argc > 5) wasinn_options_set_isolate_loads(options, argv[5]);
  int model_loads = 0;
  wasinn_options_set_log_callback(options, on_log, &model_loads);
  char* error = NULL;
  wasinn_host_t* host = wasinn_host_create(options, &error);
  wasinn_options_destroy(options);
  if (!host) {
    fprintf(stderr, "embed_digits: %s\n", error);
    wasinn_free(error);
    return 1;
  }

  /* The plugins are found beside libwasinn, wherever this program is. */
  wasinn_backend_list_t* backends = wasinn_host_list_backends(host);
  for (size_t i = 0; backends && i < wasinn_backend_list_count(backends); ++i) {
    if (strcmp(wasinn_backend_list_name(backends, i), "onnxruntime") == 0) {
      printf("backend onnxruntime (%s): %s\n", wasinn_backend_list_encodings(backends, i),
             wasinn_backend_list_found(backends, i) ? "found" : "library missing");
    }
  }
  wasinn_backend_list_destroy(backends);

  size_t wasm_length = 0;
  unsigned char* wasm = read_file(argv[1], &wasm_length);
  if (!wasm) {
    fprintf(stderr, "embed_digits: cannot read %s\n", argv[1]);
    wasinn_host_destroy(host);
    return 1;
  }
  wasinn_program_t* program = wasinn_program_create_bytes(wasm, wasm_length, "classify_digits");
  free(wasm);
  wasinn_program_add_dir(program, argv[2], "/digits");
  wasinn_program_add_arg(program, "name:digits");
  wasinn_program_add_arg(program, "/digits/test_x.f32");
  wasinn_program_add_arg(program, "/digits/test_y.u8");
  wasinn_program_capture_output(program, 1, 0);

  worker_t workers[64];
  pthread_t ids[64];
  for (int t = 0; t < threads; ++t) {
    workers[t] = (worker_t){host, program, runs, "", ""};
    pthread_create(&ids[t], NULL, work, &workers[t]);
  }
  int failed = 0;
  for (int t = 0; t < threads; ++t) pthread_join(ids[t], NULL);
  for (int t = 0; t < threads; ++t) {
    if (workers[t].failure[0]) {
      fprintf(stderr, "embed_digits: thread %d: %s\n", t, workers[t].failure);
      failed = 1;
    } else if (strcmp(workers[t].accuracy, workers[0].accuracy) != 0) {
      fprintf(stderr, "embed_digits: thread %d says '%s', thread 0 '%s'\n", t, workers[t].accuracy,
              workers[0].accuracy);
      failed = 1;
    }
  }
  if (!failed) printf("%d threads x %d runs, every run: %s\n", threads, runs, workers[0].accuracy);
  wasinn_program_destroy(program);
  wasinn_host_destroy(host);
  printf("model loads logged: %d\n", model_loads);
  return failed;
}
