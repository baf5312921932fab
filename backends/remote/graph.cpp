// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "graph.h"

#include "backend.h"
#include "context.h"

namespace wasinn::remote {

void describe_io(const std::vector<TensorMeta>& meta, std::vector<sdk::IoDesc>& out) {
  out.clear();
  for (const TensorMeta& m : meta) {
    sdk::IoDesc d;
    d.name = m.name;
    d.rank = static_cast<int32_t>(m.shape.size());
    for (int64_t dim : m.shape) d.dims.push_back(dim < 0 ? -1 : dim);
    if (auto t = from_datatype(m.datatype))
      d.type = *t;
    else
      d.not_a_tensor = "a v2 " + m.datatype + " tensor";
    d.framework_type = "v2 " + m.datatype;
    out.push_back(std::move(d));
  }
}

Error RemoteGraph::load(RemoteBackend& backend, const sdk::LoadRequest& request, std::unique_ptr<RemoteGraph>& out) {
  if (request.target() != WASINN_TARGET_CPU && request.target() != WASINN_TARGET_AUTO)
    return sdk::unsupported(std::string("remote: target ") + sdk::target_name(request.target()) +
                            " is the server's choice, not the guest's; load with cpu or auto");
  const auto builders = request.builders();
  if (builders.size() != 1)
    return sdk::invalid(
        "remote: a remote model is registered by the host (--nn-remote NAME=URL) "
        "and reached by load_by_name; expected 1 builder holding its spec, got " +
        std::to_string(builders.size()));
  const std::string_view spec(reinterpret_cast<const char*>(builders[0].data), builders[0].length);
  auto g = std::make_unique<RemoteGraph>();
  if (Error e = backend.model_target(spec, g->target_)) return e;

  if (Error e = g->target_.url.protocol == Protocol::grpc ? make_grpc_transport(g->target_, g->transport_)
                                                          : make_rest_transport(g->target_, g->transport_))
    return e;
  ModelMeta meta;
  if (Error e = g->transport_->model_metadata(meta)) return e;
  describe_io(meta.inputs, g->inputs_);
  describe_io(meta.outputs, g->outputs_);
  for (const TensorMeta& m : meta.inputs) g->input_datatypes_.push_back(m.datatype);
  for (const TensorMeta& m : meta.outputs) g->output_names_.push_back(m.name);
  g->description_ = g->transport_->describe() + (meta.platform.empty() ? "" : ", platform " + meta.platform) +
                    (meta.versions.empty() ? "" : ", versions " + [&] {
                      std::string v;
                      for (const auto& s : meta.versions) v += (v.empty() ? "" : " ") + s;
                      return v;
                    }());
  out = std::move(g);
  return {};
}

Error RemoteGraph::create_context(std::unique_ptr<RemoteContext>& out) {
  out = std::make_unique<RemoteContext>(*this);
  return {};
}

}  // namespace wasinn::remote
