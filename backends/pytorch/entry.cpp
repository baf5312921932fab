// The plugin's exported entry point: the SDK builds the C table from TorchBackend, TorchGraph
// and TorchContext.
#include "backend.h"
#include "context.h"
#include "graph.h"

WASINN_PLUGIN_DEFINE(wasinn::pytorch::TorchBackend)
