// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * echo_args: prints its arguments and exits, touching no wasi-nn at all. It is the "empty
 * guest" of scripts/bench-peers.sh: what a host costs to start and stop a WASI program.
 */
#include <stdio.h>

int main(int argc, char** argv) {
  for (int i = 1; i < argc; i++) printf("%s%s", i > 1 ? " " : "", argv[i]);
  printf("\n");
  return 0;
}
