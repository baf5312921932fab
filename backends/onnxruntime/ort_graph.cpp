// graph_load: builder and target checks, session creation, and the io description cache.
#include "ort_graph.h"

#include <cstddef>
#include <string_view>

#include "ort_backend.h"
#include "ort_types.h"

namespace wasinn_ort {
namespace {

// The load request may come from a host built with an older, shorter struct; a field is present
// only if it lies wholly inside the host's struct_size.
#define WASINN_REQUEST_HAS(req, field) \
  ((req)->struct_size >= offsetof(wasinn_load_request, field) + sizeof((req)->field))

const char *kind_name(ONNXType kind) {
  switch (kind) {
    case ONNX_TYPE_SEQUENCE: return "a sequence";
    case ONNX_TYPE_MAP: return "a map";
    case ONNX_TYPE_OPAQUE: return "an opaque value";
    case ONNX_TYPE_SPARSETENSOR: return "a sparse tensor";
    case ONNX_TYPE_OPTIONAL: return "an optional";
    default: return "of unknown kind";
  }
}

Error describe_tensor(const OrtTypeInfo *info, IoDesc &d) {
  const OrtApi *api = ort_api();
  const OrtTensorTypeAndShapeInfo *t = nullptr;  // owned by info
  if (Error e = take_status(api->CastTypeInfoToTensorInfo(info, &t), "reading tensor info"))
    return e;
  if (!t) return {};
  if (Error e = take_status(api->GetTensorElementType(t, &d.onnx_type), "reading element type"))
    return e;
  d.type = to_wasinn_type(d.onnx_type);
  if (!api->TensorTypeAndShape_HasShape(t)) return {};  // rank stays -1: any shape goes
  size_t rank = 0;
  if (Error e = take_status(api->GetDimensionsCount(t, &rank), "reading rank")) return e;
  d.dims.resize(rank);
  if (Error e = take_status(api->GetDimensions(t, d.dims.data(), rank), "reading dims")) return e;
  for (int64_t &v : d.dims)
    if (v < 0) v = -1;  // symbolic ("batch") and unknown dims alike
  d.rank = static_cast<int32_t>(rank);
  return {};
}

Error read_io(const OrtSession *session, bool is_output, std::vector<IoDesc> &out) {
  const OrtApi *api = ort_api();
  const char *what = is_output ? "reading model outputs" : "reading model inputs";
  size_t count = 0;
  if (Error e = take_status(is_output ? api->SessionGetOutputCount(session, &count)
                                      : api->SessionGetInputCount(session, &count),
                            what))
    return e;
  OrtAllocator *alloc = nullptr;
  if (Error e = take_status(api->GetAllocatorWithDefaultOptions(&alloc), what)) return e;

  out.resize(count);
  for (size_t i = 0; i < count; ++i) {
    IoDesc &d = out[i];
    char *name = nullptr;
    if (Error e = take_status(is_output ? api->SessionGetOutputName(session, i, alloc, &name)
                                        : api->SessionGetInputName(session, i, alloc, &name),
                              what))
      return e;
    d.name = name ? name : "";
    if (name) (void)take_status(api->AllocatorFree(alloc, name), what);

    OrtTypeInfo *raw = nullptr;
    if (Error e = take_status(is_output ? api->SessionGetOutputTypeInfo(session, i, &raw)
                                        : api->SessionGetInputTypeInfo(session, i, &raw),
                              what))
      return e;
    TypeInfoPtr info(raw);
    if (Error e = take_status(api->GetOnnxTypeFromTypeInfo(info.get(), &d.kind), what)) return e;
    if (d.kind == ONNX_TYPE_TENSOR)
      if (Error e = describe_tensor(info.get(), d)) return e;
  }
  return {};
}

Error check_target(int32_t target) {
  switch (target) {
    case WASINN_TARGET_CPU:
    case WASINN_TARGET_AUTO:
      return {};  // the CPU execution provider is ORT's default: nothing to append
    case WASINN_TARGET_GPU:
    case WASINN_TARGET_TPU:
      // Never fall back to CPU silently: a guest asking for an accelerator should learn it has
      // none rather than get a slow run it did not ask for.
      return {WASINN_UNSUPPORTED_OPERATION,
              std::string("target ") + (target == WASINN_TARGET_GPU ? "gpu" : "tpu") +
                  " is not available: this ONNX Runtime build has only the CPU execution "
                  "provider"};
    default:
      return {WASINN_INVALID_ARGUMENT, "unknown execution target " + std::to_string(target)};
  }
}

}  // namespace

std::string IoDesc::describe() const {
  if (kind != ONNX_TYPE_TENSOR) return std::string("not a tensor but ") + kind_name(kind);
  std::string t = type == WASINN_TYPE_UNKNOWN
                      ? std::string("ONNX ") + onnx_type_name(onnx_type) + " (no wasinn type)"
                      : wasinn_type_name(type);
  return rank < 0 ? t + " of any shape" : t + " " + format_dims(dims);
}

std::string io_label(const wasinn_graph &graph, bool is_output, size_t index) {
  return std::string(is_output ? "output " : "input ") + std::to_string(index) + " (\"" +
         graph.io(is_output)[index].name + "\")";
}

Error resolve_id(const wasinn_graph &graph, bool is_output, const wasinn_tensor_id *id,
                 size_t &index) {
  const auto &io = graph.io(is_output);
  const char *noun = is_output ? "output" : "input";
  if (!id) return {WASINN_INVALID_ARGUMENT, std::string("no ") + noun + " id given"};
  if (!id->name) {
    if (id->index < io.size()) {
      index = id->index;
      return {};
    }
    std::string valid = io.empty() ? std::string("the model has no ") + noun + "s"
                        : io.size() == 1
                            ? std::string("the only valid index is 0")
                            : "valid indices are 0.." + std::to_string(io.size() - 1);
    return {WASINN_INVALID_ARGUMENT,
            std::string(noun) + " index " + std::to_string(id->index) + " is out of range: " + valid};
  }
  const std::string_view wanted(id->name, id->name_length);
  for (size_t i = 0; i < io.size(); ++i)
    if (io[i].name == wanted) {
      index = i;
      return {};
    }
  std::string names;
  for (const IoDesc &d : io) names += (names.empty() ? "\"" : ", \"") + d.name + "\"";
  return {WASINN_INVALID_ARGUMENT, std::string("no ") + noun + " named \"" + std::string(wanted) +
                                       "\": the model's " + noun + "s are " +
                                       (names.empty() ? std::string("none") : names)};
}

Error load_graph(wasinn_backend *backend, const wasinn_load_request *req,
                 std::unique_ptr<wasinn_graph> &out) {
  const OrtApi *api = ort_api();
  if (!backend || !req || !WASINN_REQUEST_HAS(req, builder_count))
    return {WASINN_INVALID_ARGUMENT, "malformed load request"};
  if (req->encoding && std::string_view(req->encoding) != "onnx")
    return {WASINN_INVALID_ENCODING,
            std::string("the onnxruntime backend loads only \"onnx\", not \"") + req->encoding +
                "\""};
  if (req->builder_count != 1 || !req->builders)
    return {WASINN_INVALID_ARGUMENT,
            "the onnx encoding expects exactly one graph builder (the .onnx model bytes), got " +
                std::to_string(req->builders ? req->builder_count : 0)};
  if (Error e = check_target(req->target)) return e;
  const wasinn_bytes &model = req->builders[0];
  if (!model.data || model.length == 0)
    return {WASINN_INVALID_ARGUMENT, "the ONNX model is empty (0 bytes)"};

  SessionConfig graph_cfg;
  if (WASINN_REQUEST_HAS(req, config_length))
    if (Error e = parse_session_config(req->config, req->config_length, "graph config", graph_cfg))
      return e;

  OrtSessionOptions *raw_opts = nullptr;
  if (Error e = take_status(api->CreateSessionOptions(&raw_opts), "creating session options"))
    return e;
  SessionOptionsPtr opts(raw_opts);
  if (Error e = apply_session_config(backend->defaults.merged_with(graph_cfg), opts.get()))
    return e;
  // Bytes loaded from memory have no directory, so a model with external weights could not find
  // them. When the host tells us the file, point ORT at its folder.
  if (WASINN_REQUEST_HAS(req, paths) && req->paths && req->paths[0]) {
    std::string dir(req->paths[0]);
    const size_t slash = dir.find_last_of('/');
    dir = slash == std::string::npos ? "." : dir.substr(0, slash == 0 ? 1 : slash);
    if (Error e = take_status(
            api->AddSessionConfigEntry(opts.get(),
                                       "session.model_external_initializers_file_folder_path",
                                       dir.c_str()),
            "setting the external data folder"))
      return e;
  }

  auto graph = std::make_unique<wasinn_graph>();
  graph->backend = backend;
  OrtSession *session = nullptr;
  if (Error e = take_status(api->CreateSessionFromArray(backend->env.get(), model.data,
                                                        model.length, opts.get(), &session),
                            "loading the ONNX model"))
    return e;
  graph->session.reset(session);

  if (Error e = read_io(session, false, graph->inputs)) return e;
  if (Error e = read_io(session, true, graph->outputs)) return e;
  // Taken only now: the vectors above no longer grow, so the c_str() pointers stay put.
  for (const IoDesc &d : graph->inputs) graph->input_names.push_back(d.name.c_str());
  for (const IoDesc &d : graph->outputs) graph->output_names.push_back(d.name.c_str());
  out = std::move(graph);
  return {};
}

}  // namespace wasinn_ort
