// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "serve/oip/served_model.h"

#include <algorithm>
#include <chrono>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace wasinn::oip_server {
namespace {

using Clock = std::chrono::steady_clock;

uint64_t ns_since(Clock::time_point t) {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t).count());
}

std::string shape_text(std::span<const int64_t> dims) { return fmt::format("[{}]", fmt::join(dims, ", ")); }

// A checked request's inputs as the core's views: names and bytes view the request; the dims
// are the core's uint32_t, held here.
struct InputViews {
  std::vector<std::vector<uint32_t>> dims;
  std::vector<NamedInput> inputs;
};

InputViews input_views(const oip::InferRequest& request) {
  InputViews v;
  v.dims.resize(request.inputs.size());
  for (size_t i = 0; i < request.inputs.size(); ++i) {
    const auto& in = request.inputs[i];
    v.dims[i].assign(in.shape.begin(), in.shape.end());
    v.inputs.push_back(
        {in.name, TensorView{static_cast<TensorType>(*oip::from_datatype(in.datatype)), v.dims[i], in.data}});
  }
  return v;
}

}  // namespace

ServedModel::ServedModel(std::string name, std::string version, const MakeScheduler& make_scheduler)
    : name_(std::move(name)), version_(std::move(version)), scheduler_(make_scheduler(*this)) {}

Status ServedModel::load() {
  {
    std::lock_guard lock(mu_);
    if (ready_) return {};
  }
  // Outside the lock: a graph may take long to load, and the scheduler asks check_ready meanwhile.
  Status loaded = scheduler_->load();
  std::lock_guard lock(mu_);
  if (!loaded) {
    reason_ = loaded.error().detail;
    return loaded;
  }
  ready_ = true;
  reason_.clear();
  return {};
}

void ServedModel::unload() {
  {
    std::lock_guard lock(mu_);
    ready_ = false;
    reason_ = "unloaded";
  }
  scheduler_->unload();
}

bool ServedModel::ready() const {
  std::lock_guard lock(mu_);
  return ready_;
}

std::string ServedModel::state_reason() const {
  std::lock_guard lock(mu_);
  return reason_;
}

Status ServedModel::check_ready() const {
  std::lock_guard lock(mu_);
  if (ready_) return {};
  return make_error(Errc::busy, fmt::format("model '{}' is not ready ({})", name_, reason_));
}

oip::ModelMeta ServedModel::metadata() const {
  return model_metadata(name_, version_, scheduler_->description().get());
}

ModelConfigInfo ServedModel::config() const {
  return model_config(name_, scheduler_->description().get(), scheduler_->batching());
}

ModelStats ServedModel::stats() const { return stats_.snapshot(); }

Status ServedModel::check_input_name(std::string_view name) const { return scheduler_->check_input_name(name); }

oip::InputNameCheck input_name_check(const ServedModel& model) {
  return [&model](std::string_view name) {
    const Status known = model.check_input_name(name);
    return known ? std::string() : known.error().detail;
  };
}

Status ServedModel::check_inputs(const oip::InferRequest& request) const {
  const std::shared_ptr<const ModelDescription> described = scheduler_->description();
  if (!described) return make_error(Errc::busy, fmt::format("model '{}' is not ready", name_));
  if (Status own = scheduler_->check_request(request); !own) return own;
  std::vector<std::string> output_names;
  for (const DeclaredTensor& out : described->outputs) output_names.push_back(out.name);
  for (const auto& in : request.inputs) {
    if (!oip::from_datatype(in.datatype))
      return make_error(
          Errc::invalid_argument,
          fmt::format("input '{}' has datatype {}, which no wasinn backend takes (FP16, FP32, FP64, BF16, "
                      "UINT8, INT8, INT32, INT64)",
                      in.name, in.datatype));
    for (const DeclaredTensor& declared : described->inputs) {
      if (declared.name != in.name || !declared.dims) continue;
      const auto& dims = *declared.dims;
      bool fits = dims.size() == in.shape.size();
      for (size_t i = 0; fits && i < dims.size(); ++i) fits = dims[i] < 0 || dims[i] == in.shape[i];
      if (!fits)
        return make_error(Errc::invalid_argument,
                          fmt::format("input '{}' has shape {}; model '{}' takes {} (-1: any size)", in.name,
                                      shape_text(in.shape), name_, shape_text(dims)));
    }
    for (int64_t d : in.shape)
      if (d > UINT32_MAX)
        return make_error(Errc::invalid_argument, fmt::format("input '{}' has a dimension of {}", in.name, d));
  }
  if (!output_names.empty())
    for (const auto& want : request.outputs)
      if (std::find(output_names.begin(), output_names.end(), want.name) == output_names.end())
        return make_error(Errc::invalid_argument, fmt::format("model '{}' has no output '{}' (its outputs: {})", name_,
                                                              want.name, fmt::join(output_names, ", ")));
  return {};
}

DynamicBatcher::Ticket ServedModel::join_batch(const oip::InferRequest& request) {
  if (!scheduler_->batching().enabled() || !check_inputs(request)) return {};
  const InputViews views = input_views(request);  // the batcher keeps dims of its own
  return scheduler_->join_batch(request, views.inputs);
}

Result<InferAnswer> ServedModel::infer(const oip::InferRequest& request, uint64_t queue_ns,
                                       DynamicBatcher::Ticket* batch) {
  RequestTiming timing;
  timing.started = Clock::now();
  timing.queue_ns = queue_ns;
  if (Status ok = check_inputs(request); !ok) {
    if (ok.error().code != Errc::busy) stats_.count(false, ns_since(timing.started), timing);
    return ok.take_error();
  }
  auto failed = [&](Error e) {
    stats_.count(false, ns_since(timing.started), timing);
    return e;
  };
  const InputViews views = input_views(request);
  auto tensors = scheduler_->compute(request, views.inputs, batch, timing);
  const auto computed = Clock::now();
  if (!tensors) return failed(tensors.take_error());
  auto selected = select_outputs(request, std::move(*tensors));
  if (!selected) return failed(selected.take_error());
  uint64_t sent = 0;
  for (const auto& o : selected->outputs) sent += o.data.size();
  scheduler_->count_output_bytes(sent);
  timing.computed = true;
  timing.output_ns = ns_since(computed);
  stats_.count(true, ns_since(timing.started), timing);
  return selected;
}

Result<InferAnswer> ServedModel::select_outputs(const oip::InferRequest& request,
                                                std::vector<NamedTensor> tensors) const {
  InferAnswer answer;
  answer.tensors = std::move(tensors);
  auto add = [&](const NamedTensor& t, bool binary) {
    answer.outputs.push_back({t.name, oip_datatype(t.tensor.type),
                              std::vector<int64_t>(t.tensor.dims.begin(), t.tensor.dims.end()), t.tensor.data, binary});
  };
  if (request.outputs.empty()) {
    for (const auto& t : answer.tensors) add(t, request.binary_output);
    return answer;
  }
  for (const auto& want : request.outputs) {
    const NamedTensor* found = nullptr;
    for (const auto& t : answer.tensors)
      if (t.name == want.name) found = &t;
    if (!found)
      return make_error(Errc::invalid_argument, fmt::format("model '{}' gave no output '{}'", name_, want.name));
    add(*found, want.binary.value_or(request.binary_output));
  }
  return answer;
}

}  // namespace wasinn::oip_server
