// The C entry points of the plugin and its wasinn_backend_api table.
//
// Every entry point is noexcept and runs its body in guarded(): llama.cpp's C API does not
// throw, but allocation and the JSON parser can, and an exception unwinding into the C host is
// undefined behaviour.
#include <exception>
#include <memory>
#include <new>
#include <string>

#include "llm_context.h"
#include "llm_graph.h"
#include "wasinn/backend_plugin.h"

#ifndef WASINN_LLAMA_BUILD_NUMBER
#define WASINN_LLAMA_BUILD_NUMBER 0
#endif
#ifndef WASINN_LLAMA_COMMIT
#define WASINN_LLAMA_COMMIT "unknown"
#endif
#define WASINN_STR2(x) #x
#define WASINN_STR(x) WASINN_STR2(x)

namespace wasinn_llama {
namespace {

template <typename F>
int guarded(wasinn_diag *diag, F &&body) noexcept {
  try {
    return report(diag, body());
  } catch (const std::bad_alloc &) {
    wasinn_diag_set(diag, "llamacpp backend: out of memory");
  } catch (const std::exception &e) {
    const std::string msg = std::string("llamacpp backend: ") + e.what();
    wasinn_diag_set(diag, msg.c_str());
  } catch (...) {
    wasinn_diag_set(diag, "llamacpp backend: unknown exception");
  }
  return WASINN_RUNTIME_ERROR;
}

const char *framework_version() noexcept {
  return "llama.cpp b" WASINN_STR(WASINN_LLAMA_BUILD_NUMBER) " (" WASINN_LLAMA_COMMIT ")";
}

int backend_create(const char *config, size_t config_length, wasinn_backend **out, wasinn_diag *diag) noexcept {
  return guarded(diag, [&]() -> Error {
    if (!out) return {WASINN_INVALID_ARGUMENT, "backend_create: out is NULL"};
    std::unique_ptr<wasinn_backend> b;
    if (Error e = create_backend(config, config_length, b)) return e;
    *out = b.release();
    return {};
  });
}

void backend_destroy(wasinn_backend *backend) noexcept { delete backend; }

int graph_load(wasinn_backend *backend, const wasinn_load_request *request, wasinn_graph **out,
               wasinn_diag *diag) noexcept {
  return guarded(diag, [&]() -> Error {
    if (!backend || !request || !out) return {WASINN_INVALID_ARGUMENT, "graph_load: NULL argument"};
    std::unique_ptr<wasinn_graph> g;
    if (Error e = load_graph(*backend, *request, g)) return e;
    *out = g.release();
    return {};
  });
}

// Frees the weights at once: the host releases a graph only after all of its contexts.
void graph_release(wasinn_graph *graph) noexcept { delete graph; }

size_t graph_io_count(const wasinn_graph *graph, int is_output) noexcept { return graph ? io_count(is_output != 0) : 0; }

int graph_io_info(const wasinn_graph *graph, int is_output, size_t index, wasinn_io_info *out) noexcept {
  if (!graph || !out) return WASINN_INVALID_ARGUMENT;
  return io_info(is_output != 0, index, *out).status;
}

int context_create(wasinn_graph *graph, wasinn_context **out, wasinn_diag *diag) noexcept {
  return guarded(diag, [&]() -> Error {
    if (!graph || !out) return {WASINN_INVALID_ARGUMENT, "context_create: NULL argument"};
    std::unique_ptr<wasinn_context> c;
    if (Error e = create_context(*graph, c)) return e;
    *out = c.release();
    return {};
  });
}

void context_release(wasinn_context *context) noexcept { delete context; }

int set_input_entry(wasinn_context *context, const wasinn_tensor_id *id, const wasinn_tensor *tensor,
                    wasinn_diag *diag) noexcept {
  return guarded(diag, [&]() -> Error {
    if (!context || !tensor) return {WASINN_INVALID_ARGUMENT, "set_input: NULL argument"};
    return set_input(*context, id, *tensor);
  });
}

int compute_entry(wasinn_context *context, wasinn_diag *diag) noexcept {
  return guarded(diag, [&]() -> Error {
    if (!context) return {WASINN_INVALID_ARGUMENT, "compute: context is NULL"};
    return compute(*context);
  });
}

int get_output_entry(wasinn_context *context, const wasinn_tensor_id *id, wasinn_tensor *out,
                     wasinn_diag *diag) noexcept {
  return guarded(diag, [&]() -> Error {
    if (!context || !out) return {WASINN_INVALID_ARGUMENT, "get_output: NULL argument"};
    return get_output(*context, id, *out);
  });
}

int compute_single_entry(wasinn_context *context, wasinn_diag *diag) noexcept {
  return guarded(diag, [&]() -> Error {
    if (!context) return {WASINN_INVALID_ARGUMENT, "compute_single: context is NULL"};
    return compute_single(*context);
  });
}

int get_output_single_entry(wasinn_context *context, const wasinn_tensor_id *id, wasinn_tensor *out,
                            wasinn_diag *diag) noexcept {
  return guarded(diag, [&]() -> Error {
    if (!context || !out) return {WASINN_INVALID_ARGUMENT, "get_output_single: NULL argument"};
    return get_output_single(*context, id, *out);
  });
}

int fini_single_entry(wasinn_context *context, wasinn_diag *diag) noexcept {
  return guarded(diag, [&]() -> Error {
    if (!context) return {WASINN_INVALID_ARGUMENT, "fini_single: context is NULL"};
    return fini_single(*context);
  });
}

void cancel_entry(wasinn_context *context) noexcept {
  if (context) context->cancel_requested.store(true);  // llama_decode polls it between graph nodes
}

constexpr wasinn_backend_api kApi = {
    WASINN_PLUGIN_ABI_VERSION,
    sizeof(wasinn_backend_api),
    "llamacpp",
    framework_version,
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
    compute_single_entry,
    get_output_single_entry,
    fini_single_entry,
    cancel_entry,
};

}  // namespace
}  // namespace wasinn_llama

extern "C" WASINN_PLUGIN_EXPORT const wasinn_backend_api *wasinn_backend_api_v1(void) { return &wasinn_llama::kApi; }
