// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Loading: the model (from a preloaded file or an aligned copy of the bytes), the signature, the
// io description cache, and compilation with the target's accelerators.
#include "graph.h"

#include <algorithm>
#include <cstring>
#include <string_view>

#include "backend.h"
#include "config.h"
#include "context.h"
#include "delegate_accelerator.h"
#include "litert_log.h"
#include "types.h"

namespace wasinn::tensorflowlite {

std::string TfliteIo::quantization() const {
  if (!quantized) return {};
  return " (quantized: scale " + std::to_string(scale) + ", zero point " + std::to_string(zero_point) + ")";
}

namespace {

// Everything about one tensor that set_input, get_output and io info need.
Error describe_tensor(LiteRtTensor t, const char* signature_name, sdk::IoDesc& d, TfliteIo& x) {
  const char* tensor_name = nullptr;
  if (LiteRtGetTensorName(t, &tensor_name) == kLiteRtStatusOk && tensor_name) x.tensor_name = tensor_name;
  d.name = signature_name && *signature_name ? signature_name : x.tensor_name;
  LiteRtTensorTypeId id = kLiteRtUnrankedTensorType;
  if (LiteRtStatus st = LiteRtGetTensorTypeId(t, &id)) return litert_error(st, "reading the type of tensor " + d.name);
  if (id == kLiteRtRankedTensorType) {
    if (LiteRtStatus st = LiteRtGetRankedTensorType(t, &x.ranked))
      return litert_error(st, "reading the type of tensor " + d.name);
    x.element = x.ranked.element_type;
    d.rank = static_cast<int32_t>(x.ranked.layout.rank);
    for (int32_t i = 0; i < d.rank; ++i)
      d.dims.push_back(x.ranked.layout.dimensions[i] < 0 ? -1 : x.ranked.layout.dimensions[i]);
  } else {
    LiteRtUnrankedTensorType u{};
    if (LiteRtStatus st = LiteRtGetUnrankedTensorType(t, &u))
      return litert_error(st, "reading the type of tensor " + d.name);
    x.element = u.element_type;
  }
  d.type = to_wasinn_type(x.element);
  if (d.type == WASINN_TYPE_UNKNOWN) d.not_a_tensor = "a TensorFlow Lite " + litert_type_name(x.element) + " tensor";
  LiteRtQuantizationTypeId q = kLiteRtQuantizationNone;
  LiteRtQuantizationPerTensor pq{};
  if (LiteRtGetQuantizationTypeId(t, &q) == kLiteRtStatusOk && q == kLiteRtQuantizationPerTensor &&
      LiteRtGetPerTensorQuantization(t, &pq) == kLiteRtStatusOk) {
    x.quantized = true;
    x.scale = pq.scale;
    x.zero_point = pq.zero_point;
  }
  return {};
}

using CountFn = LiteRtStatus (*)(LiteRtSubgraph, LiteRtParamIndex*);
using TensorFn = LiteRtStatus (*)(LiteRtSubgraph, LiteRtParamIndex, LiteRtTensor*);
using SigCountFn = LiteRtStatus (*)(LiteRtSignature, LiteRtParamIndex*);
using SigNameFn = LiteRtStatus (*)(LiteRtSignature, LiteRtParamIndex, const char**);
using SigTensorFn = LiteRtStatus (*)(LiteRtSignature, LiteRtParamIndex, LiteRtTensor*);

// Inputs or outputs in subgraph order, each with its position among the signature's buffers
// (found by tensor identity: the signature may list them in another order).
Error describe_side(LiteRtSignature sig, LiteRtSubgraph sub, const char* side, CountFn count, TensorFn tensor,
                    SigCountFn sig_count, SigNameFn sig_name, SigTensorFn sig_tensor, std::vector<sdk::IoDesc>& descs,
                    std::vector<TfliteIo>& details) {
  LiteRtParamIndex n_sig = 0, n_sub = 0;
  if (LiteRtStatus st = sig_count(sig, &n_sig))
    return litert_error(st, std::string("counting signature ") + side + "s");
  if (LiteRtStatus st = count(sub, &n_sub)) return litert_error(st, std::string("counting subgraph ") + side + "s");
  std::vector<LiteRtTensor> sig_tensors(n_sig);
  std::vector<const char*> sig_names(n_sig, nullptr);
  for (LiteRtParamIndex i = 0; i < n_sig; ++i) {
    if (LiteRtStatus st = sig_tensor(sig, i, &sig_tensors[i]))
      return litert_error(st, std::string("reading signature ") + side);
    sig_name(sig, i, &sig_names[i]);
  }
  auto add = [&](LiteRtTensor t, LiteRtParamIndex position) -> Error {
    sdk::IoDesc d;
    TfliteIo x;
    if (Error e = describe_tensor(t, sig_names[position], d, x)) return e;
    x.position = position;
    descs.push_back(std::move(d));
    details.push_back(std::move(x));
    return {};
  };
  std::vector<bool> used(n_sig, false);
  for (LiteRtParamIndex i = 0; i < n_sub; ++i) {
    LiteRtTensor t = nullptr;
    if (LiteRtStatus st = tensor(sub, i, &t)) return litert_error(st, std::string("reading subgraph ") + side);
    for (LiteRtParamIndex j = 0; j < n_sig; ++j) {
      if (sig_tensors[j] != t || used[j]) continue;
      if (Error e = add(t, j)) return e;
      used[j] = true;
      break;
    }
  }
  // A signature tensor that is no subgraph input/output would be a malformed model; keep it
  // addressable after the others rather than drop it.
  for (LiteRtParamIndex j = 0; j < n_sig; ++j)
    if (!used[j])
      if (Error e = add(sig_tensors[j], j)) return e;
  return {};
}

// LiteRT verifies the flatbuffer itself; this only turns "not TFLite at all" into a clear detail.
Error check_identifier(const wasinn_bytes& b) {
  if (!b.data || b.length < 8 || std::memcmp(b.data + 4, "TFL3", 4) != 0)
    return sdk::invalid("not a TensorFlow Lite model: no \"TFL3\" flatbuffer identifier at byte 4 of " +
                        std::to_string(b.length) + " bytes");
  return {};
}

Error create_model(TfliteBackend& b, const sdk::LoadRequest& req, HostMemory& bytes, ModelPtr& model) {
  const wasinn_bytes& builder = req.builders()[0];
  if (Error e = check_identifier(builder)) return e;
  LiteRtModel m = nullptr;
  const char* path = req.path(0);
  if (path && *path) {
    // A preloaded file: LiteRT maps it itself, so the model costs no copy.
    if (LiteRtStatus st = LiteRtCreateModelFromFile(b.env(), path, &m))
      return litert_error(st, std::string("parsing ") + path, WASINN_INVALID_ARGUMENT);
  } else {
    // The guest's bytes are gone after this call, and LiteRT reads the buffer for the model's
    // whole life: keep an aligned copy.
    size_t capacity = 0;
    bytes = allocate_host(builder.length, capacity);
    if (!bytes) return {WASINN_TOO_LARGE, "no memory for a model of that size"};
    std::memcpy(bytes.get(), builder.data, builder.length);
    if (LiteRtStatus st = LiteRtCreateModelFromBuffer(b.env(), bytes.get(), builder.length, &m))
      return litert_error(st, "parsing the model", WASINN_INVALID_ARGUMENT);
  }
  model.reset(m);
  return {};
}

}  // namespace

Error TfliteGraph::pick_signature(const std::string& wanted) {
  LiteRtParamIndex n = 0;
  if (LiteRtStatus st = LiteRtGetNumModelSignatures(model_.get(), &n))
    return litert_error(st, "counting the model's signatures");
  if (n == 0) return sdk::invalid("the model has no subgraph to run");
  std::string keys;
  for (LiteRtParamIndex i = 0; i < n; ++i) {
    LiteRtSignature sig = nullptr;
    const char* key = nullptr;
    if (LiteRtStatus st = LiteRtGetModelSignature(model_.get(), i, &sig))
      return litert_error(st, "reading the model's signatures");
    LiteRtGetSignatureKey(sig, &key);
    const std::string k = key ? key : "";
    if (wanted.empty() || k == wanted) {
      signature_ = i;
      signature_key_ = k;
      return {};
    }
    keys += (keys.empty() ? "\"" : ", \"") + k + "\"";
  }
  return {WASINN_NOT_FOUND, "no signature \"" + wanted + "\" in the model (it has " + keys + ")"};
}

Error TfliteGraph::describe_io() {
  LiteRtSignature sig = nullptr;
  LiteRtSubgraph sub = nullptr;
  if (LiteRtStatus st = LiteRtGetModelSignature(model_.get(), signature_, &sig))
    return litert_error(st, "reading signature " + signature_key_);
  if (LiteRtStatus st = LiteRtGetSignatureSubgraph(sig, &sub))
    return litert_error(st, "reading the subgraph of signature " + signature_key_);
  if (Error e = describe_side(sig, sub, "input", LiteRtGetNumSubgraphInputs, LiteRtGetSubgraphInput,
                              LiteRtGetNumSignatureInputs, LiteRtGetSignatureInputName,
                              LiteRtGetSignatureInputTensorByIndex, inputs_, input_details_))
    return e;
  return describe_side(sig, sub, "output", LiteRtGetNumSubgraphOutputs, LiteRtGetSubgraphOutput,
                       LiteRtGetNumSignatureOutputs, LiteRtGetSignatureOutputName,
                       LiteRtGetSignatureOutputTensorByIndex, outputs_, output_details_);
}

Error TfliteGraph::compile(CompiledModelPtr& out, std::string* report) {
  OptionsPtr options;
  LiteRtOptions o = nullptr;
  if (LiteRtStatus st = LiteRtCreateOptions(&o)) return litert_error(st, "creating options");
  options.reset(o);
  if (LiteRtStatus st = LiteRtSetOptionsHardwareAccelerators(o, placement_.hardware))
    return litert_error(st, "choosing accelerators");
  DelegateRequest request;
  request.library = delegate_;
  LiteRtErrorCapture errors;
  LiteRtCompiledModel cm = nullptr;
  LiteRtStatus st;
  {
    std::lock_guard lock(backend_->compile_mutex());
    ScopedDelegateRequest serving(request);
    st = LiteRtCreateCompiledModel(backend_->env(), model_.get(), o, &cm);
  }
  CompiledModelPtr compiled(cm);
  const std::string logged = errors.text().empty() ? "" : " (LiteRT: " + errors.text() + ")";
  if (delegate_) {
    const std::string who = label(delegate_->spec());
    if (st)  // creating it, its Prepare, or its kernels' prepare
      return sdk::runtime_error(who + ": " +
                                (request.error.empty() ? "compiling the model with it failed" : request.error) +
                                logged + ", " + status_name(st));
    if (request.claimed_nodes == 0)
      return sdk::invalid(who + " took none of the " + std::to_string(request.offered_nodes) +
                          " nodes of the model's graph (it supports none of its operations); "
                          "use another target, or \"fallback\": \"cpu\"");
    if (report)
      *report = who + " took " + std::to_string(request.claimed_nodes) + " of " +
                std::to_string(request.offered_nodes) + " nodes";
  }
  if (st) {
    // On CPU this means an op the runtime lacks (a custom or TF-select op); elsewhere, a model
    // the accelerator cannot take.
    const bool cpu_only = placement_.hardware == kLiteRtHwAcceleratorCpu;
    const std::string what = cpu_only ? "compiling the model for the CPU (is every op a TFLite builtin?)"
                                      : "compiling the model for the requested accelerator (a GPU/NPU accelerator is "
                                        "registered, but found no device it could open or cannot take this model; use "
                                        "target cpu)";
    return litert_error(st, what + logged, cpu_only ? WASINN_INVALID_ARGUMENT : WASINN_UNSUPPORTED_OPERATION);
  }
  out = std::move(compiled);
  return {};
}

Error TfliteGraph::compile_first(int32_t target) {
  if (!placement_.delegate) {
    Error e = compile(spare_);
    // auto means "whatever works here": a registered GPU accelerator without a usable device
    // (WebGPU finds no adapter on a headless machine) must not fail a model the CPU can run.
    if (!e || target != WASINN_TARGET_AUTO || placement_.hardware == kLiteRtHwAcceleratorCpu) return e;
    placement_.hardware = kLiteRtHwAcceleratorCpu;
    return compile(spare_);
  }
  Error e = backend_->open_delegate(*placement_.delegate, delegate_);
  if (!e) e = compile(spare_, &delegate_report_);
  if (!e) {
    if (sdk::log_enabled(WASINN_LOG_INFO)) sdk::log(WASINN_LOG_INFO, delegate_report_);
    return {};
  }
  if (!placement_.fallback_cpu) return e;
  // The configuration asked for a CPU fallback: say why once, then run as if no delegate were
  // configured.
  sdk::log_own(WASINN_LOG_WARN, e.detail + "; running the model on the CPU (\"fallback\": \"cpu\")");
  delegate_ = nullptr;
  placement_ = Placement{};
  delegate_report_.clear();
  return compile(spare_);
}

Error TfliteGraph::load(TfliteBackend& backend, const sdk::LoadRequest& req, std::unique_ptr<TfliteGraph>& out) {
  if (Error e = req.expect_one_builder("a TensorFlow Lite model is one graph builder (the .tflite bytes)")) return e;
  GraphConfig config;
  if (Error e = parse_graph_config(req.config(), config)) return e;

  auto g = std::make_unique<TfliteGraph>();
  g->backend_ = &backend;
  if (Error e = backend.place(req.target(), config, g->placement_)) return e;
  if (Error e = create_model(backend, req, g->bytes_, g->model_)) return e;
  if (Error e = g->pick_signature(config.signature)) return e;
  if (Error e = g->describe_io()) return e;
  if (Error e = g->compile_first(req.target())) return e;
  const LiteRtHwAcceleratorSet hw = g->placement_.hardware;
  std::string device = g->delegate_                     ? "delegate:" + g->delegate_->spec().name
                       : (hw & kLiteRtHwAcceleratorGpu) ? "gpu: WebGPU (Vulkan) " + backend.gpu_device()
                       : (hw & kLiteRtHwAcceleratorNpu) ? "npu"
                                                        : "cpu";
  bool fully = false;
  if ((hw & kLiteRtHwAcceleratorGpu) && g->spare_ &&
      LiteRtCompiledModelIsFullyAccelerated(g->spare_.get(), &fully) == kLiteRtStatusOk && !fully)
    device += ", with the CPU for the nodes it cannot take";
  g->properties_ = {{"device", device, false}, {"tflite.signature", g->signature_key_, false}};
  out = std::move(g);
  return {};
}

Error TfliteGraph::check_property(std::string_view name, std::string_view) const {
  return sdk::not_settable(TfliteBackend::kName, name);
}

Error TfliteGraph::take_compiled_model(CompiledModelPtr& out) {
  {
    std::lock_guard lock(spare_mu_);
    if (spare_) {
      out = std::move(spare_);
      return {};
    }
  }
  return compile(out);
}

Error TfliteGraph::resolve(sdk::Side side, const wasinn_tensor_id& id, size_t& index) const {
  const auto declared = io(side);
  if (id.name) {
    // A tensor name is the fallback, for a name no signature name matches.
    const std::string_view wanted(id.name, id.name_length);
    if (std::none_of(declared.begin(), declared.end(), [&](const sdk::IoDesc& d) { return d.name == wanted; })) {
      const auto& details = side == sdk::Side::input ? input_details_ : output_details_;
      for (size_t i = 0; i < details.size(); ++i)
        if (details[i].tensor_name == wanted) {
          index = i;
          return {};
        }
    }
  }
  return sdk::resolve_id(declared, side, id, index);
}

}  // namespace wasinn::tensorflowlite
