// The C entry points of the plugin and its wasinn_backend_api table.
//
// Every entry point is noexcept and wraps its body in guarded(): libtorch reports nearly every
// failure by throwing (c10::Error and the interpreter's std::runtime_error), and an exception
// unwinding into the C host is undefined behaviour.
#include <exception>
#include <new>
#include <string>

#include "torch_ops.h"
#include "wasinn/backend_plugin.h"

namespace wasinn_torch {
namespace {

template <typename F>
int guarded(wasinn_diag *diag, F &&body) noexcept {
  try {
    return report(diag, body());
  } catch (const std::bad_alloc &) {
    wasinn_diag_set(diag, "pytorch backend: out of memory");
  } catch (const std::exception &e) {
    const std::string msg = "pytorch backend: " + exception_summary(e);
    wasinn_diag_set(diag, msg.c_str());
  } catch (...) {
    wasinn_diag_set(diag, "pytorch backend: unknown exception");
  }
  return WASINN_RUNTIME_ERROR;
}

const char *framework_version_entry() noexcept { return framework_version(); }

int backend_create(const char *config, size_t config_length, wasinn_backend **out,
                   wasinn_diag *diag) noexcept {
  return guarded(diag, [&]() -> Error {
    if (!out) return invalid("backend_create: out is NULL");
    return create_backend(config, config_length, out);
  });
}

void backend_destroy(wasinn_backend *backend) noexcept { destroy_backend(backend); }

int graph_load(wasinn_backend *backend, const wasinn_load_request *request, wasinn_graph **out,
               wasinn_diag *diag) noexcept {
  return guarded(diag, [&]() -> Error {
    if (!out) return invalid("graph_load: out is NULL");
    return load_graph(backend, request, out);
  });
}

// Destructors of torch objects do not throw; release needs no guard.
void graph_release(wasinn_graph *graph) noexcept { release_graph(graph); }

size_t graph_io_count(const wasinn_graph *graph, int is_output) noexcept {
  return graph ? io_count(*graph, is_output != 0) : 0;
}

int graph_io_info(const wasinn_graph *graph, int is_output, size_t index,
                  wasinn_io_info *out) noexcept {
  if (!graph || !out) return WASINN_INVALID_ARGUMENT;
  return io_info(*graph, is_output != 0, index, *out);
}

int context_create(wasinn_graph *graph, wasinn_context **out, wasinn_diag *diag) noexcept {
  return guarded(diag, [&]() -> Error {
    if (!graph || !out) return invalid("context_create: NULL argument");
    return create_context(*graph, out);
  });
}

void context_release(wasinn_context *context) noexcept { release_context(context); }

int set_input_entry(wasinn_context *context, const wasinn_tensor_id *id,
                    const wasinn_tensor *tensor, wasinn_diag *diag) noexcept {
  return guarded(diag, [&]() -> Error {
    if (!context) return invalid("set_input: context is NULL");
    return set_input(*context, id, tensor);
  });
}

int compute_entry(wasinn_context *context, wasinn_diag *diag) noexcept {
  return guarded(diag, [&]() -> Error {
    if (!context) return invalid("compute: context is NULL");
    return compute(*context);
  });
}

int get_output_entry(wasinn_context *context, const wasinn_tensor_id *id, wasinn_tensor *out,
                     wasinn_diag *diag) noexcept {
  return guarded(diag, [&]() -> Error {
    if (!context || !out) return invalid("get_output: NULL argument");
    return get_output(*context, id, *out);
  });
}

constexpr wasinn_backend_api kApi = {
    WASINN_PLUGIN_ABI_VERSION,
    sizeof(wasinn_backend_api),
    "pytorch",
    framework_version_entry,
    backend_create,
    backend_destroy,
    graph_load,
    graph_release,
    graph_io_count,
    graph_io_info,
    context_create,
    context_release,
    set_input_entry,
    compute_entry,
    get_output_entry,
    nullptr,  // compute_single: TorchScript modules have no token streaming
    nullptr,  // get_output_single
    nullptr,  // fini_single
    nullptr,  // cancel: libtorch cannot interrupt a running forward
};

}  // namespace
}  // namespace wasinn_torch

extern "C" WASINN_PLUGIN_EXPORT const wasinn_backend_api *wasinn_backend_api_v1(void) {
  return &wasinn_torch::kApi;
}
