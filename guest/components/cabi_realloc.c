// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/* cabi_realloc: the allocator the host calls (canonical ABI) to place the lists and strings it
 * returns in the guest's memory. A plain realloc, so the guest free()s what it gets. Alignment:
 * malloc's 16 covers every canonical-ABI alignment (at most 8). Out of memory traps, as the
 * canonical ABI expects of a realloc that cannot allocate. */
#include <stdlib.h>

__attribute__((export_name("cabi_realloc"))) void* cabi_realloc(void* old_ptr, size_t old_size, size_t align,
                                                                size_t new_size) {
  (void)old_size;
  (void)align;
  /* Never null, even for an empty list or string, so that free() takes whatever was returned. */
  void* p = realloc(old_ptr, new_size ? new_size : 1);
  if (!p) __builtin_trap();
  return p;
}
