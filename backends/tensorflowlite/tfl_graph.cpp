#include "tfl_graph.h"

#include <cstring>
#include <limits>

#include <nlohmann/json.hpp>

#include "tfl_backend.h"
#include "tfl_types.h"

namespace wasinn_tfl {

bool IoDesc::dynamic() const {
  for (int64_t d : dims)
    if (d < 0) return true;
  return false;
}

std::string IoDesc::describe() const {
  std::string s = type == WASINN_TYPE_UNKNOWN ? litert_type_name(element) : type_name(type);
  s += rank < 0 ? " (unranked)" : " " + format_dims(dims);
  if (quantized)
    s += " (quantized: scale " + std::to_string(scale) + ", zero point " +
         std::to_string(zero_point) + ")";
  return s;
}

namespace {

// Everything about one tensor that set_input, get_output and io info need.
Error describe_tensor(LiteRtTensor t, const char *signature_name, IoDesc &d) {
  const char *tensor_name = nullptr;
  if (LiteRtGetTensorName(t, &tensor_name) == kLiteRtStatusOk && tensor_name)
    d.tensor_name = tensor_name;
  d.name = signature_name && *signature_name ? signature_name : d.tensor_name;
  LiteRtTensorTypeId id = kLiteRtUnrankedTensorType;
  if (LiteRtStatus st = LiteRtGetTensorTypeId(t, &id))
    return litert_error(st, "reading the type of tensor " + d.name);
  if (id == kLiteRtRankedTensorType) {
    if (LiteRtStatus st = LiteRtGetRankedTensorType(t, &d.ranked))
      return litert_error(st, "reading the type of tensor " + d.name);
    d.element = d.ranked.element_type;
    d.rank = static_cast<int32_t>(d.ranked.layout.rank);
    for (int32_t i = 0; i < d.rank; ++i) d.dims.push_back(d.ranked.layout.dimensions[i]);
  } else {
    LiteRtUnrankedTensorType u{};
    if (LiteRtStatus st = LiteRtGetUnrankedTensorType(t, &u))
      return litert_error(st, "reading the type of tensor " + d.name);
    d.element = u.element_type;
  }
  d.type = to_wasinn_type(d.element);
  LiteRtQuantizationTypeId q = kLiteRtQuantizationNone;
  LiteRtQuantizationPerTensor pq{};
  if (LiteRtGetQuantizationTypeId(t, &q) == kLiteRtStatusOk && q == kLiteRtQuantizationPerTensor &&
      LiteRtGetPerTensorQuantization(t, &pq) == kLiteRtStatusOk) {
    d.quantized = true;
    d.scale = pq.scale;
    d.zero_point = pq.zero_point;
  }
  return {};
}

using CountFn = LiteRtStatus (*)(LiteRtSubgraph, LiteRtParamIndex *);
using TensorFn = LiteRtStatus (*)(LiteRtSubgraph, LiteRtParamIndex, LiteRtTensor *);
using SigCountFn = LiteRtStatus (*)(LiteRtSignature, LiteRtParamIndex *);
using SigNameFn = LiteRtStatus (*)(LiteRtSignature, LiteRtParamIndex, const char **);
using SigTensorFn = LiteRtStatus (*)(LiteRtSignature, LiteRtParamIndex, LiteRtTensor *);

// Inputs or outputs in subgraph order, each with its position among the signature's buffers
// (found by tensor identity: the signature may list them in another order).
Error describe_side(LiteRtSignature sig, LiteRtSubgraph sub, const char *side, CountFn count,
                    TensorFn tensor, SigCountFn sig_count, SigNameFn sig_name,
                    SigTensorFn sig_tensor, std::vector<IoDesc> &out) {
  LiteRtParamIndex n_sig = 0, n_sub = 0;
  if (LiteRtStatus st = sig_count(sig, &n_sig))
    return litert_error(st, std::string("counting signature ") + side + "s");
  if (LiteRtStatus st = count(sub, &n_sub))
    return litert_error(st, std::string("counting subgraph ") + side + "s");
  std::vector<LiteRtTensor> sig_tensors(n_sig);
  std::vector<const char *> sig_names(n_sig, nullptr);
  for (LiteRtParamIndex i = 0; i < n_sig; ++i) {
    if (LiteRtStatus st = sig_tensor(sig, i, &sig_tensors[i]))
      return litert_error(st, std::string("reading signature ") + side);
    sig_name(sig, i, &sig_names[i]);
  }
  std::vector<bool> used(n_sig, false);
  for (LiteRtParamIndex i = 0; i < n_sub; ++i) {
    LiteRtTensor t = nullptr;
    if (LiteRtStatus st = tensor(sub, i, &t))
      return litert_error(st, std::string("reading subgraph ") + side);
    for (LiteRtParamIndex j = 0; j < n_sig; ++j) {
      if (sig_tensors[j] != t || used[j]) continue;
      IoDesc d;
      if (Error e = describe_tensor(t, sig_names[j], d)) return e;
      d.position = j;
      used[j] = true;
      out.push_back(std::move(d));
      break;
    }
  }
  // A signature tensor that is no subgraph input/output would be a malformed model; keep it
  // addressable after the others rather than drop it.
  for (LiteRtParamIndex j = 0; j < n_sig; ++j) {
    if (used[j]) continue;
    IoDesc d;
    if (Error e = describe_tensor(sig_tensors[j], sig_names[j], d)) return e;
    d.position = j;
    out.push_back(std::move(d));
  }
  return {};
}

Error pick_signature(wasinn_graph &g, const std::string &wanted) {
  LiteRtParamIndex n = 0;
  if (LiteRtStatus st = LiteRtGetNumModelSignatures(g.model.get(), &n))
    return litert_error(st, "counting the model's signatures");
  if (n == 0) return {WASINN_INVALID_ARGUMENT, "the model has no subgraph to run"};
  std::string keys;
  for (LiteRtParamIndex i = 0; i < n; ++i) {
    LiteRtSignature sig = nullptr;
    const char *key = nullptr;
    if (LiteRtStatus st = LiteRtGetModelSignature(g.model.get(), i, &sig))
      return litert_error(st, "reading the model's signatures");
    LiteRtGetSignatureKey(sig, &key);
    const std::string k = key ? key : "";
    if (wanted.empty() || k == wanted) {
      g.signature = i;
      g.signature_key = k;
      return {};
    }
    keys += (keys.empty() ? "\"" : ", \"") + k + "\"";
  }
  return {WASINN_NOT_FOUND, "no signature \"" + wanted + "\" in the model (it has " + keys + ")"};
}

Error describe_io(wasinn_graph &g) {
  LiteRtSignature sig = nullptr;
  LiteRtSubgraph sub = nullptr;
  if (LiteRtStatus st = LiteRtGetModelSignature(g.model.get(), g.signature, &sig))
    return litert_error(st, "reading signature " + g.signature_key);
  if (LiteRtStatus st = LiteRtGetSignatureSubgraph(sig, &sub))
    return litert_error(st, "reading the subgraph of signature " + g.signature_key);
  if (Error e = describe_side(sig, sub, "input", LiteRtGetNumSubgraphInputs,
                              LiteRtGetSubgraphInput, LiteRtGetNumSignatureInputs,
                              LiteRtGetSignatureInputName, LiteRtGetSignatureInputTensorByIndex,
                              g.inputs))
    return e;
  return describe_side(sig, sub, "output", LiteRtGetNumSubgraphOutputs, LiteRtGetSubgraphOutput,
                       LiteRtGetNumSignatureOutputs, LiteRtGetSignatureOutputName,
                       LiteRtGetSignatureOutputTensorByIndex, g.outputs);
}

Error read_config(const wasinn_load_request &r, std::string &signature) {
  if (!r.config || !r.config_length) return {};
  const auto j = nlohmann::json::parse(r.config, r.config + r.config_length, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return invalid("model config is not a JSON object");
  for (const auto &[key, value] : j.items()) {
    if (key != "signature")
      return invalid("unknown tensorflowlite model setting \"" + key + "\" (known: signature)");
    if (!value.is_string()) return invalid("model setting \"signature\" must be a string");
    signature = value.get<std::string>();
  }
  return {};
}

// LiteRT verifies the flatbuffer itself; this only turns "not TFLite at all" into a clear detail.
Error check_identifier(const wasinn_bytes &b) {
  if (!b.data || b.length < 8 || std::memcmp(b.data + 4, "TFL3", 4) != 0)
    return invalid("not a TensorFlow Lite model: no \"TFL3\" flatbuffer identifier at byte 4 of " +
                   std::to_string(b.length) + " bytes");
  return {};
}

Error create_model(wasinn_backend &b, const wasinn_load_request &r, wasinn_graph &g) {
  if (Error e = check_identifier(r.builders[0])) return e;
  LiteRtModel m = nullptr;
  const char *path = r.paths ? r.paths[0] : nullptr;
  if (path && *path) {
    // A preloaded file: LiteRT maps it itself, so the model costs no copy.
    if (LiteRtStatus st = LiteRtCreateModelFromFile(b.env.get(), path, &m))
      return litert_error(st, std::string("parsing ") + path, WASINN_INVALID_ARGUMENT);
  } else {
    // The guest's bytes are gone after this call, and LiteRT reads the buffer for the model's
    // whole life: keep an aligned copy.
    size_t capacity = 0;
    g.bytes = allocate_host(r.builders[0].length, capacity);
    if (!g.bytes) return {WASINN_TOO_LARGE, "no memory for a model of that size"};
    std::memcpy(g.bytes.get(), r.builders[0].data, r.builders[0].length);
    if (LiteRtStatus st =
            LiteRtCreateModelFromBuffer(b.env.get(), g.bytes.get(), r.builders[0].length, &m))
      return litert_error(st, "parsing the model", WASINN_INVALID_ARGUMENT);
  }
  g.model.reset(m);
  return {};
}

Error compile(wasinn_graph &g, CompiledModelPtr &out) {
  OptionsPtr options;
  LiteRtOptions o = nullptr;
  if (LiteRtStatus st = LiteRtCreateOptions(&o)) return litert_error(st, "creating options");
  options.reset(o);
  if (LiteRtStatus st = LiteRtSetOptionsHardwareAccelerators(o, g.accelerators))
    return litert_error(st, "choosing accelerators");
  LiteRtCompiledModel cm = nullptr;
  LiteRtStatus st;
  {
    std::lock_guard lock(g.backend->compile_mu);
    st = LiteRtCreateCompiledModel(g.backend->env.get(), g.model.get(), o, &cm);
  }
  if (st) {
    // On CPU this means an op the runtime lacks (a custom or TF-select op); elsewhere, a model
    // the accelerator cannot take.
    const bool cpu_only = g.accelerators == kLiteRtHwAcceleratorCpu;
    return litert_error(st, cpu_only ? "compiling the model for the CPU (is every op a TFLite "
                                       "builtin?)"
                                     : "compiling the model for the requested accelerator (a GPU/NPU "
                                       "accelerator is registered, but found no device it could open "
                                       "or cannot take this model; use target cpu)",
                        cpu_only ? WASINN_INVALID_ARGUMENT : WASINN_UNSUPPORTED_OPERATION);
  }
  out.reset(cm);
  return {};
}

}  // namespace

Error load_graph(wasinn_backend *backend, const wasinn_load_request *request,
                 std::unique_ptr<wasinn_graph> &out) {
  if (!backend || !request) return invalid("graph_load: NULL argument");
  const wasinn_load_request &r = *request;
  if (r.struct_size < offsetof(wasinn_load_request, config_length) + sizeof(r.config_length))
    return invalid("graph_load: load request from an older host ABI");
  if (r.builder_count != 1 || !r.builders)
    return invalid("a TensorFlow Lite model is one graph builder (the .tflite bytes), got " +
                   std::to_string(r.builder_count));
  std::string signature;
  if (Error e = read_config(r, signature)) return e;

  auto g = std::make_unique<wasinn_graph>();
  g->backend = backend;
  if (Error e = accelerators_for(*backend, r.target, g->accelerators)) return e;
  if (Error e = create_model(*backend, r, *g)) return e;
  if (Error e = pick_signature(*g, signature)) return e;
  if (Error e = describe_io(*g)) return e;
  if (Error e = compile(*g, g->spare)) {
    // auto means "whatever works here": a registered GPU accelerator without a usable device
    // (WebGPU finds no adapter on a headless machine) must not fail a model the CPU can run.
    if (r.target != WASINN_TARGET_AUTO || g->accelerators == kLiteRtHwAcceleratorCpu) return e;
    g->accelerators = kLiteRtHwAcceleratorCpu;
    if (Error cpu = compile(*g, g->spare)) return cpu;
  }
  out = std::move(g);
  return {};
}

Error take_compiled_model(wasinn_graph &graph, CompiledModelPtr &out) {
  {
    std::lock_guard lock(graph.spare_mu);
    if (graph.spare) {
      out = std::move(graph.spare);
      return {};
    }
  }
  return compile(graph, out);
}

Error resolve_id(const wasinn_graph &graph, bool is_output, const wasinn_tensor_id *id,
                 size_t &index) {
  const auto &io = graph.io(is_output);
  const char *side = is_output ? "output" : "input";
  if (!id) return invalid(std::string(side) + ": no tensor id given");
  if (!id->name) {
    if (id->index >= io.size())
      return invalid(std::string(side) + " index " + std::to_string(id->index) +
                     " is out of range: the model has " + std::to_string(io.size()) + " " + side +
                     (io.size() == 1 ? "" : "s"));
    index = id->index;
    return {};
  }
  const std::string_view wanted(id->name, id->name_length);
  std::string names;
  for (size_t i = 0; i < io.size(); ++i) {
    if (io[i].name == wanted || io[i].tensor_name == wanted) {
      index = i;
      return {};
    }
    names += (i ? ", \"" : "\"") + io[i].name + "\"";
  }
  return {WASINN_NOT_FOUND,
          std::string("no ") + side + " named \"" + std::string(wanted) + "\" (" + side +
              "s: " + names + ")"};
}

std::string io_label(const wasinn_graph &graph, bool is_output, size_t index) {
  return std::string(is_output ? "output " : "input ") + std::to_string(index) + " (\"" +
         graph.io(is_output)[index].name + "\")";
}

}  // namespace wasinn_tfl
