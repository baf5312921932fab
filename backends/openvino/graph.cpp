// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Loading: request checks, target -> device, compilation (through OpenVINO's model cache), and
// the io description cache.
#include "graph.h"

#include <cctype>

#include <openvino/runtime/properties.hpp>

#include <string_view>

#include "backend.h"
#include "context.h"
#include "model_source.h"
#include "types.h"

namespace wasinn::openvino {
namespace {

void describe_port(const ov::Output<const ov::Node>& port, sdk::IoDesc& d, OvPort& p) {
  for (const std::string& n : port.get_names()) p.names.push_back(n);
  // get_names() is an unordered set; get_any_name() is OpenVINO's stable pick among them.
  if (!p.names.empty()) d.name = port.get_any_name();
  const ov::element::Type type = port.get_element_type();
  const ov::PartialShape& shape = port.get_partial_shape();
  d.type = to_wasinn_type(type);
  if (d.type == WASINN_TYPE_UNKNOWN) d.not_a_tensor = "an OpenVINO " + type.get_type_name() + " tensor";
  p.declared = ov_declaration(type, shape);
  if (shape.rank().is_dynamic()) return;  // rank stays -1: any shape goes
  d.rank = static_cast<int32_t>(shape.rank().get_length());
  for (const ov::Dimension& dim : shape) {
    d.dims.push_back(dim.is_static() ? dim.get_length() : -1);
    p.min_dims.push_back(dim.get_min_length());
    p.max_dims.push_back(dim.get_max_length());  // -1 when unbounded
  }
}

void describe_ports(const std::vector<ov::Output<const ov::Node>>& ports, std::vector<sdk::IoDesc>& io,
                    std::vector<OvPort>& ov_ports) {
  io.resize(ports.size());
  ov_ports.resize(ports.size());
  for (size_t i = 0; i < ports.size(); ++i) describe_port(ports[i], io[i], ov_ports[i]);
}

// Why compile_model failed: the bytes (INVALID_ARGUMENT) or the device (RUNTIME_ERROR). Reading
// the model again is the only way to tell, and costs nothing on the success path.
Error classify_failure(ov::Core& core, const ModelSource& src, const std::string& device,
                       const std::exception& compile_error) {
  try {
    (void)core.read_model(src.model, src.weights);
  } catch (const std::exception& read_error) {
    return from_exception(WASINN_INVALID_ARGUMENT,
                          src.is_ir ? "load: the OpenVINO IR cannot be read"
                                    : "load: OpenVINO cannot read the model (one builder: ONNX expected)",
                          read_error);
  }
  return from_exception(WASINN_RUNTIME_ERROR, "load: compiling for " + device + " failed", compile_error);
}

// Where OpenVINO runs the model, lower-case and joined ("cpu"; AUTO's pick), or the device
// asked for when the plugin cannot say.
std::string execution_devices(const ov::CompiledModel& compiled, const std::string& asked) {
  std::string out;
  try {
    for (const std::string& d : compiled.get_property(ov::execution_devices)) out += (out.empty() ? "" : ",") + d;
  } catch (const std::exception&) {
    out = asked;
  }
  if (out.empty()) out = asked;
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

Error OvGraph::load(OvBackend& backend, const sdk::LoadRequest& req, std::unique_ptr<OvGraph>& out) {
  if (Error e = req.expect_encoding(OvBackend::kName, "openvino")) return e;
  const std::string device = device_for_target(req.target());
  if (device.empty())
    return sdk::invalid("load: unknown execution target " + std::to_string(req.target()) +
                        " (cpu 0, gpu 1, tpu 2, auto 3)");

  Config graph_cfg;
  if (Error e = parse_config(req.config(), "graph config", graph_cfg)) return e;
  const Config cfg = backend.defaults().merged_with(graph_cfg);

  ModelSource src;
  if (Error e = read_model_source(req.builders(), src)) return e;
  if (Error e = backend.device_list().check(backend.core(), req.target(), device)) return e;
  ov::AnyMap props;
  if (Error e = compile_properties(cfg, device, props)) return e;

  auto g = std::make_unique<OvGraph>();
  // The asynchronous path costs a thread hand-off per compute; pay it only when the host may
  // cancel (it has a compute budget) or the config asks for it.
  g->cancellable_ = cfg.cancellable.value_or(req.may_cancel());
  try {
    // From memory, so that with a cache directory a cached model skips parsing as well as
    // compiling: OpenVINO keys the cache by a hash of the XML, the weights and the properties.
    g->compiled_ = backend.core().compile_model(src.model, src.weights, device, props);
  } catch (const std::exception& e) {
    return classify_failure(backend.core(), src, device, e);
  }
  // A model imported from the cache was built from the compiled blob and references none of
  // the weights; a freshly compiled one may share them, so it keeps them.
  bool from_cache = false;
  try {
    from_cache = g->compiled_.get_property(ov::loaded_from_cache);
  } catch (const std::exception&) {
    // A device that cannot say keeps the weights, which is always safe.
  }
  if (!from_cache) g->weights_ = std::move(src.weights);
  try {
    describe_ports(g->compiled_.inputs(), g->inputs_, g->input_ports_);
    describe_ports(g->compiled_.outputs(), g->outputs_, g->output_ports_);
  } catch (const std::exception& e) {
    return from_exception(WASINN_RUNTIME_ERROR, "load: reading the model's inputs and outputs", e);
  }
  g->properties_ = {{"device", execution_devices(g->compiled_, device), false}, {"openvino.device", device, false}};
  try {
    g->properties_.push_back({"openvino.model-name", g->compiled_.get_property(ov::model_name), false});
  } catch (const std::exception&) {
    // A device that cannot say leaves the name out.
  }
  out = std::move(g);
  return {};
}

Error OvGraph::check_property(std::string_view name, std::string_view) const {
  return sdk::not_settable(OvBackend::kName, name);
}

Error OvGraph::resolve_id(sdk::Side side, const wasinn_tensor_id& id, size_t& index) const {
  if (id.name) {
    // Any of a port's names will do; the IoDesc (and so the SDK) knows only the first.
    const std::string_view wanted(id.name, id.name_length);
    const std::vector<OvPort>& ports = side == sdk::Side::input ? input_ports_ : output_ports_;
    for (size_t i = 0; i < ports.size(); ++i)
      for (const std::string& n : ports[i].names)
        if (n == wanted) {
          index = i;
          return {};
        }
  }
  return sdk::resolve_id(io(side), side, id, index);  // an index, or the detail for a bad name
}

Error OvGraph::check_input(size_t index, const wasinn_tensor& t) const {
  if (Error e = sdk::check_input(inputs_, index, t)) return e;
  // The SDK checks static dims; a dynamic one may still be bounded ("1..8").
  const OvPort& p = input_ports_[index];
  for (size_t i = 0; i < p.min_dims.size(); ++i) {
    const int64_t v = t.dims[i];
    if (v < p.min_dims[i] || (p.max_dims[i] >= 0 && v > p.max_dims[i]))
      return sdk::invalid(sdk::io_label(inputs_, sdk::Side::input, index) + ": expected " + p.declared + ", got " +
                          sdk::type_name(t.type) + " " + sdk::format_dims(t));
  }
  return {};
}

}  // namespace wasinn::openvino
