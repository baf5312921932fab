// The operations behind the plugin's C table, over the opaque plugin objects. plugin_entry.cpp
// includes only this, so it compiles without libtorch's heavy headers.
#pragma once

#include <cstddef>

#include "torch_error.h"
#include "wasinn/backend_plugin.h"

namespace wasinn_torch {

const char *framework_version();

Error create_backend(const char *config, size_t config_length, wasinn_backend **out);
void destroy_backend(wasinn_backend *backend);

Error load_graph(wasinn_backend *backend, const wasinn_load_request *request, wasinn_graph **out);
void release_graph(wasinn_graph *graph);
size_t io_count(const wasinn_graph &graph, bool is_output);
// WASINN_INVALID_ARGUMENT for an index out of range.
int io_info(const wasinn_graph &graph, bool is_output, size_t index, wasinn_io_info &out);

Error create_context(wasinn_graph &graph, wasinn_context **out);
void release_context(wasinn_context *context);
Error set_input(wasinn_context &context, const wasinn_tensor_id *id, const wasinn_tensor *tensor);
Error compute(wasinn_context &context);
Error get_output(wasinn_context &context, const wasinn_tensor_id *id, wasinn_tensor &out);

}  // namespace wasinn_torch
