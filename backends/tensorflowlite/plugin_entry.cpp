// The C entry points of the TensorFlow Lite plugin and its wasinn_backend_api table.
//
// Every entry point is noexcept and wraps its body in guarded(): LiteRT's C API does not throw,
// but std::bad_alloc and nlohmann::json can, and an exception unwinding into the C host is
// undefined behaviour.
#include <exception>
#include <memory>
#include <new>
#include <string>

#include "tfl_backend.h"
#include "tfl_context.h"
#include "tfl_graph.h"
#include "wasinn/backend_plugin.h"

namespace wasinn_tfl {
namespace {

template <typename F>
int guarded(wasinn_diag *diag, F &&body) noexcept {
  try {
    return report(diag, body());
  } catch (const std::bad_alloc &) {
    wasinn_diag_set(diag, "tensorflowlite backend: out of memory");
  } catch (const std::exception &e) {
    const std::string msg = std::string("tensorflowlite backend: ") + e.what();
    wasinn_diag_set(diag, msg.c_str());
  } catch (...) {
    wasinn_diag_set(diag, "tensorflowlite backend: unknown exception");
  }
  return WASINN_RUNTIME_ERROR;
}

// libLiteRt.so exports no version query; the version is the one scripts/deps pinned.
const char *framework_version() noexcept { return "LiteRT " WASINN_LITERT_VERSION; }

int backend_create(const char *config, size_t config_length, wasinn_backend **out,
                   wasinn_diag *diag) noexcept {
  return guarded(diag, [&]() -> Error {
    if (!out) return invalid("backend_create: out is NULL");
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
    if (!out) return invalid("graph_load: out is NULL");
    std::unique_ptr<wasinn_graph> g;
    if (Error e = load_graph(backend, request, g)) return e;
    *out = g.release();
    return {};
  });
}

void graph_release(wasinn_graph *graph) noexcept { delete graph; }

size_t graph_io_count(const wasinn_graph *graph, int is_output) noexcept {
  return graph ? graph->io(is_output != 0).size() : 0;
}

int graph_io_info(const wasinn_graph *graph, int is_output, size_t index,
                  wasinn_io_info *out) noexcept {
  if (!graph || !out) return WASINN_INVALID_ARGUMENT;
  const auto &io = graph->io(is_output != 0);
  if (index >= io.size()) return WASINN_INVALID_ARGUMENT;  // no diag in this signature
  const IoDesc &d = io[index];
  out->name = d.name.c_str();
  out->type = d.type;
  out->rank = d.rank;
  out->dims = d.rank > 0 ? d.dims.data() : nullptr;
  return WASINN_OK;
}

int context_create(wasinn_graph *graph, wasinn_context **out, wasinn_diag *diag) noexcept {
  return guarded(diag, [&]() -> Error {
    if (!graph || !out) return invalid("context_create: NULL argument");
    std::unique_ptr<wasinn_context> c;
    if (Error e = create_context(graph, c)) return e;
    *out = c.release();
    return {};
  });
}

void context_release(wasinn_context *context) noexcept { delete context; }

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

void cancel_entry(wasinn_context *context) noexcept {
  if (context) cancel(*context);  // an atomic store
}

constexpr wasinn_backend_api kApi = {
    WASINN_PLUGIN_ABI_VERSION,
    sizeof(wasinn_backend_api),
    "tensorflowlite",
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
    nullptr,  // compute_single: no token streaming
    nullptr,  // get_output_single
    nullptr,  // fini_single
    cancel_entry,
};

}  // namespace
}  // namespace wasinn_tfl

extern "C" WASINN_PLUGIN_EXPORT const wasinn_backend_api *wasinn_backend_api_v1(void) {
  return &wasinn_tfl::kApi;
}
