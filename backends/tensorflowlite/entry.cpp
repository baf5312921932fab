// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The plugin's exported entry point: the SDK builds the C table from TfliteBackend, TfliteGraph
// and TfliteContext (with cancel: TfliteContext has it).
#include "backend.h"
#include "context.h"
#include "graph.h"

WASINN_PLUGIN_DEFINE(wasinn::tensorflowlite::TfliteBackend)
