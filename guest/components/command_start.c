// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/* _start of the command component guests, linked with -nostartfiles in place of wasi-libc's
 * crt1-command.o. With crt1-command.o, wasm-ld 14 wraps every export other than _start (here
 * cabi_realloc, which the host calls in the middle of compute) in __wasm_call_ctors and
 * __wasm_call_dtors, flushing and tearing down stdio on each call. Defining _start ourselves
 * makes wasm-ld emit no wrappers. exit() flushes stdio and ends through proc_exit, which the
 * preview1 adapter turns into wasi:cli/exit (a non-zero status reaches the host as 1). */
#include <stdlib.h>

void __wasm_call_ctors(void);
int __main_void(void); /* wasi-libc: reads the arguments and calls main */

void _start(void) {
  __wasm_call_ctors();
  exit(__main_void());
}
