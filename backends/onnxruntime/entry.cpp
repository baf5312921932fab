// The plugin's exported entry point: the SDK builds the C table from OrtBackend, OrtGraph and
// OrtContext.
#include "backend.h"
#include "context.h"
#include "graph.h"

WASINN_PLUGIN_DEFINE(wasinn::onnxruntime::OrtBackend)
