// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * wasi_logging: calls `log` of module "wasi:logging/logging" as LlamaEdge's llama-api-server
 * does (WasmEdge's wasi-logging for core modules), then the bad calls a guest could make.
 *
 *   wasi_logging            one line per level, trace (0) to critical (5), context "probe"
 *   wasi_logging bad        a context and a message outside memory, level 9: each dropped
 *                           with a warning, then "after" at info; the guest goes on either way
 *   wasi_logging file       context "/tmp/wasinn-logging-file": WasmEdge writes there, wasinn
 *                           must not
 * Prints "done" on stdout at the end.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

__attribute__((import_module("wasi:logging/logging"), import_name("log"))) void wasi_logging_log(
    int32_t level, const char* context, size_t context_len, const char* message, size_t message_len);

static void say(int32_t level, const char* context, const char* message) {
  wasi_logging_log(level, context, strlen(context), message, strlen(message));
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "levels";
  if (!strcmp(mode, "bad")) {
    wasi_logging_log(2, (const char*)0xfffffff0u, 100, "message", 7);
    wasi_logging_log(2, "probe", 5, (const char*)0xfffffff0u, 100);
    say(9, "probe", "level nine");
    say(2, "probe", "after");
  } else if (!strcmp(mode, "file")) {
    say(2, "/tmp/wasinn-logging-file", "not into a file");
  } else {
    const char* names[] = {"trace line", "debug line", "info line", "warn line", "error line", "critical line\n"};
    for (int32_t level = 0; level < 6; ++level) say(level, "probe", names[level]);
    say(2, "", "no context");
  }
  printf("done\n");
  return 0;
}
