// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The plugin's exported entry point: the SDK builds the C table from PiperBackend, PiperGraph
// and PiperContext.
#include "backend.h"
#include "context.h"
#include "graph.h"

WASINN_PLUGIN_DEFINE(wasinn::piper::PiperBackend)
