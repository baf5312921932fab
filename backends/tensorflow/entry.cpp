// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The plugin's exported entry point: the SDK builds the C table from TfBackend, TfGraph and
// TfContext (no cancel entry: TF_SessionRun cannot be stopped from outside).
#include "backend.h"
#include "context.h"
#include "graph.h"

WASINN_PLUGIN_DEFINE(wasinn::tensorflow::TfBackend)
