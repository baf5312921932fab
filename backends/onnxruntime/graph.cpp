// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Loading: builder checks, the target's placement, session creation, and the io description cache.
#include "graph.h"

#include <cstddef>
#include <limits>
#include <string_view>

#include "backend.h"
#include "context.h"
#include "placement.h"
#include "types.h"

namespace wasinn::onnxruntime {
const char* kind_name(ONNXType kind) {
  switch (kind) {
    case ONNX_TYPE_SEQUENCE: return "a sequence";
    case ONNX_TYPE_MAP: return "a map";
    case ONNX_TYPE_OPAQUE: return "an opaque value";
    case ONNX_TYPE_SPARSETENSOR: return "a sparse tensor";
    case ONNX_TYPE_OPTIONAL: return "an optional";
    default: return "a value of unknown kind";
  }
}

namespace {

Error describe_tensor(const OrtTypeInfo* info, sdk::IoDesc& d, OrtIo& k) {
  const OrtApi* api = ort_api();
  const OrtTensorTypeAndShapeInfo* t = nullptr;  // owned by info
  if (Error e = take_status(api->CastTypeInfoToTensorInfo(info, &t), "reading tensor info")) return e;
  if (!t) return {};
  if (Error e = take_status(api->GetTensorElementType(t, &k.onnx_type), "reading element type")) return e;
  d.type = to_wasinn_type(k.onnx_type);
  if (d.type == WASINN_TYPE_UNKNOWN) d.not_a_tensor = std::string("an ONNX ") + onnx_type_name(k.onnx_type) + " tensor";
  if (!api->TensorTypeAndShape_HasShape(t)) return {};  // rank stays -1: any shape goes
  size_t rank = 0;
  if (Error e = take_status(api->GetDimensionsCount(t, &rank), "reading rank")) return e;
  d.dims.resize(rank);
  if (Error e = take_status(api->GetDimensions(t, d.dims.data(), rank), "reading dims")) return e;
  for (int64_t& v : d.dims)
    if (v < 0) v = -1;  // symbolic ("batch") and unknown dims alike
  d.rank = static_cast<int32_t>(rank);
  return {};
}

Error read_io(const OrtSession* session, bool is_output, std::vector<sdk::IoDesc>& out, std::vector<OrtIo>& kinds) {
  const OrtApi* api = ort_api();
  const char* what = is_output ? "reading model outputs" : "reading model inputs";
  size_t count = 0;
  if (Error e = take_status(
          is_output ? api->SessionGetOutputCount(session, &count) : api->SessionGetInputCount(session, &count), what))
    return e;
  OrtAllocator* alloc = nullptr;
  if (Error e = take_status(api->GetAllocatorWithDefaultOptions(&alloc), what)) return e;

  out.resize(count);
  kinds.resize(count);
  for (size_t i = 0; i < count; ++i) {
    sdk::IoDesc& d = out[i];
    OrtIo& k = kinds[i];
    char* name = nullptr;
    if (Error e = take_status(is_output ? api->SessionGetOutputName(session, i, alloc, &name)
                                        : api->SessionGetInputName(session, i, alloc, &name),
                              what))
      return e;
    d.name = name ? name : "";
    if (name) (void)take_status(api->AllocatorFree(alloc, name), what);

    OrtTypeInfo* raw = nullptr;
    if (Error e = take_status(is_output ? api->SessionGetOutputTypeInfo(session, i, &raw)
                                        : api->SessionGetInputTypeInfo(session, i, &raw),
                              what))
      return e;
    TypeInfoPtr info(raw);
    if (Error e = take_status(api->GetOnnxTypeFromTypeInfo(info.get(), &k.kind), what)) return e;
    if (k.kind != ONNX_TYPE_TENSOR)
      d.not_a_tensor = kind_name(k.kind);
    else if (Error e = describe_tensor(info.get(), d, k))
      return e;
  }
  return {};
}

// The ONNX model's metadata as properties; ORT allocates each string, freed here at once.
Error read_metadata(OrtSession* session, const std::string& device, std::vector<sdk::Property>& out) {
  const OrtApi* api = ort_api();
  OrtAllocator* alloc = nullptr;
  if (Error e = take_status(api->GetAllocatorWithDefaultOptions(&alloc), "getting ORT's allocator")) return e;
  OrtModelMetadata* raw = nullptr;
  if (Error e = take_status(api->SessionGetModelMetadata(session, &raw), "reading the model's metadata")) return e;
  Handle<OrtModelMetadata, &OrtApi::ReleaseModelMetadata> meta(raw);
  // One of ORT's string getters: the call first, then its value (argument order is unspecified).
  auto text = [&](auto getter, const char* name) -> Error {
    char* value = nullptr;
    if (Error e = take_status((api->*getter)(raw, alloc, &value), std::string("reading the model's ") + name)) return e;
    if (value) {
      if (*value) out.push_back({name, value, false});
      (void)take_status(api->AllocatorFree(alloc, value), "freeing a metadata string");
    }
    return {};
  };
  if (Error e = text(&OrtApi::ModelMetadataGetProducerName, "onnx.producer-name")) return e;
  if (Error e = text(&OrtApi::ModelMetadataGetGraphName, "onnx.graph-name")) return e;
  if (Error e = text(&OrtApi::ModelMetadataGetDomain, "onnx.domain")) return e;
  if (Error e = text(&OrtApi::ModelMetadataGetDescription, "onnx.description")) return e;
  int64_t version = 0;
  if (Error e = take_status(api->ModelMetadataGetVersion(raw, &version), "reading the model's version")) return e;
  // INT64_MAX is ORT's word for a model that sets no model_version.
  if (version != std::numeric_limits<int64_t>::max()) out.push_back({"onnx.version", std::to_string(version), false});
  char** keys = nullptr;
  int64_t n = 0;
  if (Error e =
          take_status(api->ModelMetadataGetCustomMetadataMapKeys(raw, alloc, &keys, &n), "reading metadata_props"))
    return e;
  Error failed;
  for (int64_t i = 0; i < n; ++i) {
    char* value = nullptr;
    if (!failed) {
      failed =
          take_status(api->ModelMetadataLookupCustomMetadataMap(raw, alloc, keys[i], &value), "reading metadata_props");
      if (!failed && value) out.push_back({std::string("onnx.metadata.") + keys[i], value, false});
    }
    // take_status releases the OrtStatus a failed free would return (a plain (void) would leak it).
    if (value) (void)take_status(api->AllocatorFree(alloc, value), "freeing a metadata string");
    (void)take_status(api->AllocatorFree(alloc, keys[i]), "freeing a metadata key");
  }
  if (keys) (void)take_status(api->AllocatorFree(alloc, keys), "freeing the metadata keys");
  if (failed) return failed;
  out.push_back({"device", device, false});
  return {};
}

}  // namespace

Error OrtGraph::load(OrtBackend& backend, const sdk::LoadRequest& req, std::unique_ptr<OrtGraph>& out) {
  const OrtApi* api = ort_api();
  if (Error e = req.expect_encoding(OrtBackend::kName, "onnx")) return e;
  if (Error e = req.expect_one_builder("the onnx encoding expects exactly one graph builder (the .onnx model bytes)"))
    return e;
  SessionConfig graph_cfg;
  if (Error e = parse_session_config(req.config(), "graph config", graph_cfg)) return e;
  const SessionConfig cfg = backend.defaults().merged_with(graph_cfg);
  const bool fallback_cpu = cfg.fallback_cpu.value_or(false);
  Placement placement;
  if (Error e = plan_placement(backend, req.target(), fallback_cpu, placement)) return e;
  const wasinn_bytes& model = req.builders()[0];
  if (!model.data || model.length == 0) return sdk::invalid("the ONNX model is empty (0 bytes)");

  OrtSessionOptions* raw_opts = nullptr;
  if (Error e = take_status(api->CreateSessionOptions(&raw_opts), "creating session options")) return e;
  SessionOptionsPtr opts(raw_opts);
  if (Error e = apply_session_config(cfg, opts.get())) return e;
  if (Error e = apply_placement(backend, placement, opts.get())) return e;
  // Bytes loaded from memory have no directory, so a model with external weights could not find
  // them. When the host tells us the file, point ORT at its folder.
  if (const char* path = req.path(0)) {
    std::string dir(path);
    const size_t slash = dir.find_last_of('/');
    dir = slash == std::string::npos ? "." : dir.substr(0, slash == 0 ? 1 : slash);
    if (Error e = take_status(
            api->AddSessionConfigEntry(opts.get(), "session.model_external_initializers_file_folder_path", dir.c_str()),
            "setting the external data folder"))
      return e;
  }

  auto graph = std::make_unique<OrtGraph>();
  graph->backend_ = &backend;
  OrtSession* session = nullptr;
  if (Error e = take_status(api->CreateSessionFromArray(backend.env(), model.data, model.length, opts.get(), &session),
                            "loading the ONNX model"))
    return e;
  graph->session_.reset(session);
  if (Error e = check_placement(backend, req.target(), fallback_cpu, session, placement)) return e;
  graph->description_ = placement.description;
  sdk::log_own(WASINN_LOG_DEBUG, std::string("target ") + sdk::target_name(req.target()) + ": the graph runs on " +
                                     placement.device +
                                     (placement.description.empty() ? "" : " (" + placement.description + ")"));

  std::vector<OrtIo> output_kinds;
  if (Error e = read_io(session, false, graph->inputs_, graph->input_kinds_)) return e;
  if (Error e = read_io(session, true, graph->outputs_, output_kinds)) return e;
  // Taken only now: the vectors above no longer grow, so the c_str() pointers stay put.
  for (const sdk::IoDesc& d : graph->inputs_) graph->input_names_.push_back(d.name.c_str());
  for (const sdk::IoDesc& d : graph->outputs_) graph->output_names_.push_back(d.name.c_str());
  if (Error e = read_metadata(session, placement.device, graph->properties_)) return e;
  out = std::move(graph);
  return {};
}

Error OrtGraph::check_property(std::string_view name, std::string_view) const {
  return sdk::not_settable(OrtBackend::kName, name);
}

}  // namespace wasinn::onnxruntime
