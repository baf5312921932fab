// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A module that keeps a realloc'ed block in a global, as Mesa's lavapipe keeps its L3-cache mask:
// unmapped by a real dlclose, the block is a leak no suppression can name.
#include <cstdlib>

static void* held = nullptr;

extern "C" __attribute__((visibility("default"))) void hold_block() { held = std::realloc(held, 128); }
