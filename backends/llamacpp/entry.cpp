// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The plugin's exported entry point: the SDK builds the C table from LlamaBackend, LlamaGraph
// and LlamaContext (with its cancel and the streaming trio).
#include "backend.h"
#include "context.h"
#include "graph.h"

WASINN_PLUGIN_DEFINE(wasinn::llamacpp::LlamaBackend)
