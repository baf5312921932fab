// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/* A shared library that is not a wasinn backend (it lacks wasinn_backend_api_v1), so the
   catalog's "not a backend" error can be tested with a real dlopen. */
int wasinn_unit_not_a_backend(void) { return 42; }
