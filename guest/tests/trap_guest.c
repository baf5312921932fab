// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * trap_guest: prints a line, then traps (`unreachable`) two calls deep, in functions with
 * distinctive names, so a test can check that the host reports a wasm backtrace naming them.
 */
#include <stdio.h>

/* noinline keeps each function its own frame, and so its own line in the backtrace. */
__attribute__((noinline)) static void wasinn_test_deliberate_trap(volatile int* armed) {
  if (*armed) __builtin_trap();
}

__attribute__((noinline)) static void wasinn_test_trap_caller(volatile int* armed) {
  wasinn_test_deliberate_trap(armed);
  printf("unreachable: the trap did not happen\n");
}

int main(void) {
  volatile int armed = 1;
  printf("about to trap\n");
  fflush(stdout);
  wasinn_test_trap_caller(&armed);
  return 0;
}
