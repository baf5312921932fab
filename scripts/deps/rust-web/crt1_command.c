// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/* A command's _start for Debian 12's wasi-libc, whose crt1-command.o never runs the C
 * constructors itself (so nothing learns the preopened directories): the constructors, then
 * main, then exit, which runs the atexit handlers and flushes stdio. */
extern void __wasm_call_ctors(void);
extern int __main_void(void);
extern void exit(int) __attribute__((noreturn));

__attribute__((export_name("_start"))) void _start(void) {
  __wasm_call_ctors();
  exit(__main_void());
}
