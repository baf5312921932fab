// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "serve/oip/pipeline_scheduler.h"

#include <algorithm>
#include <chrono>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace wasinn::oip_server {
namespace {

using Clock = std::chrono::steady_clock;

uint64_t ns_between(Clock::time_point a, Clock::time_point b) {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(b - a).count());
}

std::shared_ptr<const ModelDescription> describe(const Pipeline& pipeline) {
  auto d = std::make_shared<ModelDescription>();
  d->platform = "wasinn_pipeline";
  d->backend = "wasinn_pipeline";
  for (const IoInfo& in : pipeline.inputs()) d->inputs.push_back({in.name, in.type, in.dims, false});
  for (const IoInfo& out : pipeline.outputs()) d->outputs.push_back({out.name, out.type, out.dims, false});
  return d;
}

std::vector<std::string> input_names(const ModelDescription& described) {
  std::vector<std::string> names;
  for (const DeclaredTensor& d : described.inputs) names.push_back(d.name);
  return names;
}

Status check_name(const std::string& pipeline, const std::vector<std::string>& names, std::string_view name) {
  if (std::find(names.begin(), names.end(), name) != names.end()) return {};
  return make_error(Errc::invalid_argument, fmt::format("pipeline '{}' has no input '{}' (its inputs: {})", pipeline,
                                                        name, fmt::join(names, ", ")));
}

}  // namespace

PipelineScheduler::PipelineScheduler(std::string name, std::shared_ptr<Pipeline> pipeline)
    : name_(std::move(name)), pipeline_(std::move(pipeline)), described_(describe(*pipeline_)) {}

Status PipelineScheduler::check_input_name(std::string_view name) const {
  return check_name(name_, input_names(*described_), name);
}

Status PipelineScheduler::check_request(const oip::InferRequest& request) const {
  const std::vector<std::string> names = input_names(*described_);
  for (size_t i = 0; i < request.inputs.size(); ++i) {
    const auto& in = request.inputs[i];
    if (Status known = check_name(name_, names, in.name); !known) return known;
    auto it = std::find(names.begin(), names.end(), in.name);
    for (size_t j = 0; j < i; ++j)
      if (request.inputs[j].name == in.name)
        return make_error(Errc::invalid_argument, fmt::format("input '{}' is given twice", in.name));
    const std::string want = oip_datatype(described_->inputs[it - names.begin()].type);
    if (in.datatype != want)
      return make_error(Errc::invalid_argument, fmt::format("input '{}' has datatype {}; pipeline '{}' takes {}",
                                                            in.name, in.datatype, name_, want));
  }
  for (const std::string& n : names) {
    bool given = false;
    for (const auto& in : request.inputs) given |= in.name == n;
    if (!given) return make_error(Errc::invalid_argument, fmt::format("pipeline '{}' needs the input '{}'", name_, n));
  }
  return {};
}

Result<std::vector<NamedTensor>> PipelineScheduler::compute(const oip::InferRequest&,
                                                            std::span<const NamedInput> inputs, DynamicBatcher::Ticket*,
                                                            RequestTiming& timing) {
  const auto compute_started = Clock::now();
  timing.input_ns = ns_between(timing.started, compute_started);
  auto tensors = pipeline_->infer(inputs);
  timing.compute_ns = ns_between(compute_started, Clock::now());
  return tensors;
}

}  // namespace wasinn::oip_server
