// graph_load: request checks, target -> device, compilation (through OpenVINO's model cache),
// and the io description cache.
#include "ov_graph.h"

#include <cstddef>
#include <cstring>
#include <string_view>

#include <openvino/runtime/properties.hpp>

#include "ov_backend.h"
#include "ov_model_source.h"
#include "ov_types.h"

namespace wasinn_ov {
namespace {

// The load request may come from a host built with an older, shorter struct; a field is present
// only if it lies wholly inside the host's struct_size.
#define WASINN_REQUEST_HAS(req, field) \
  ((req)->struct_size >= offsetof(wasinn_load_request, field) + sizeof((req)->field))

IoDesc describe_port(const ov::Output<const ov::Node> &port) {
  IoDesc d;
  for (const std::string &n : port.get_names()) d.names.push_back(n);
  // get_names() is an unordered set; get_any_name() is OpenVINO's stable pick among them.
  if (!d.names.empty()) d.name = port.get_any_name();
  d.ov_type = port.get_element_type();
  d.type = to_wasinn_type(d.ov_type);
  const ov::PartialShape &shape = port.get_partial_shape();
  d.declared = describe(d.ov_type, shape);
  if (shape.rank().is_dynamic()) return d;
  d.rank = static_cast<int32_t>(shape.rank().get_length());
  for (const ov::Dimension &dim : shape) {
    d.dims.push_back(dim.is_static() ? dim.get_length() : -1);
    d.min_dims.push_back(dim.get_min_length());
    d.max_dims.push_back(dim.get_max_length());  // -1 when unbounded
  }
  return d;
}

// Why compile_model failed: the bytes (INVALID_ARGUMENT) or the device (RUNTIME_ERROR). Reading
// the model again is the only way to tell, and costs nothing on the success path.
Error classify_failure(ov::Core &core, const ModelSource &src, const std::string &device,
                       const std::exception &compile_error) {
  try {
    (void)core.read_model(src.model, src.weights);
  } catch (const std::exception &read_error) {
    return from_exception(WASINN_INVALID_ARGUMENT,
                          src.is_ir ? "load: the OpenVINO IR cannot be read"
                                    : "load: OpenVINO cannot read the model (one builder: ONNX expected)",
                          read_error);
  }
  return from_exception(WASINN_RUNTIME_ERROR, "load: compiling for " + device + " failed", compile_error);
}

}  // namespace

bool IoDesc::accepts(int32_t t, const uint32_t *d, uint32_t r) const {
  if (t != type) return false;
  if (rank < 0) return true;
  if (r != static_cast<uint32_t>(rank)) return false;
  for (uint32_t i = 0; i < r; ++i) {
    const int64_t v = d[i];
    if (v < min_dims[i] || (max_dims[i] >= 0 && v > max_dims[i])) return false;
  }
  return true;
}

Error load_graph(wasinn_backend *backend, const wasinn_load_request *request,
                 std::unique_ptr<wasinn_graph> &out) {
  if (!backend || !request) return invalid("load: NULL backend or request");
  if (!WASINN_REQUEST_HAS(request, builder_count))
    return invalid("load: request struct of " + std::to_string(request->struct_size) + " bytes is too short");
  if (request->encoding && std::strcmp(request->encoding, "openvino") != 0)
    return {WASINN_INVALID_ENCODING,
            std::string("load: the openvino backend serves encoding openvino, not ") + request->encoding};
  const std::string device = device_for_target(request->target);
  if (device.empty())
    return invalid("load: unknown execution target " + std::to_string(request->target) +
                   " (cpu 0, gpu 1, tpu 2, auto 3)");

  Config graph_cfg;
  if (WASINN_REQUEST_HAS(request, config_length))
    if (Error e = parse_config(request->config, request->config_length, "graph config", graph_cfg)) return e;
  const Config cfg = backend->defaults.merged_with(graph_cfg);

  ModelSource src;
  if (Error e = read_model_source(request->builders, request->builder_count, src)) return e;
  if (Error e = backend->devices.check(backend->core, request->target, device)) return e;
  ov::AnyMap props;
  if (Error e = compile_properties(cfg, device, props)) return e;

  auto g = std::make_unique<wasinn_graph>();
  g->backend = backend;
  g->device = device;
  g->cancellable = cfg.cancellable.value_or(true);
  try {
    // From memory, so that with a cache directory a cached model skips parsing as well as
    // compiling: OpenVINO keys the cache by a hash of the XML, the weights and the properties.
    g->compiled = backend->core.compile_model(src.model, src.weights, device, props);
  } catch (const std::exception &e) {
    return classify_failure(backend->core, src, device, e);
  }
  // A model imported from the cache was built from the compiled blob and references none of
  // the weights; a freshly compiled one may share them, so it keeps them.
  bool from_cache = false;
  try {
    from_cache = g->compiled.get_property(ov::loaded_from_cache);
  } catch (const std::exception &) {
    // A device that cannot say keeps the weights, which is always safe.
  }
  if (!from_cache) g->weights = std::move(src.weights);
  for (const auto &port : g->compiled.inputs()) g->inputs.push_back(describe_port(port));
  for (const auto &port : g->compiled.outputs()) g->outputs.push_back(describe_port(port));
  out = std::move(g);
  return {};
}

Error resolve_id(const wasinn_graph &graph, bool is_output, const wasinn_tensor_id *id, size_t &index) {
  const auto &io = graph.io(is_output);
  const char *kind = is_output ? "output" : "input";
  if (!id) return invalid(std::string("no ") + kind + " id given");
  if (!id->name) {
    if (id->index < io.size()) {
      index = id->index;
      return {};
    }
    return invalid(std::string(kind) + " index " + std::to_string(id->index) + " is out of range: the model has " +
                   std::to_string(io.size()) + " " + kind + (io.size() == 1 ? "" : "s"));
  }
  const std::string_view want(id->name, id->name_length);
  for (size_t i = 0; i < io.size(); ++i)
    for (const std::string &n : io[i].names)
      if (n == want) {
        index = i;
        return {};
      }
  std::string known;
  for (const auto &d : io) known += (known.empty() ? "\"" : ", \"") + d.name + "\"";
  return invalid(std::string("no ") + kind + " named \"" + std::string(want) + "\"; the model's " + kind +
                 "s are " + (known.empty() ? "unnamed" : known));
}

std::string io_label(const wasinn_graph &graph, bool is_output, size_t index) {
  const auto &d = graph.io(is_output)[index];
  std::string s = std::string(is_output ? "output " : "input ") + std::to_string(index);
  if (!d.name.empty()) s += " (\"" + d.name + "\")";
  return s;
}

}  // namespace wasinn_ov
