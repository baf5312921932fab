// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "serve/oip/graph_scheduler.h"

#include <chrono>

#include <fmt/format.h>

namespace wasinn::oip_server {
namespace {

using Clock = std::chrono::steady_clock;

uint64_t ns_between(Clock::time_point a, Clock::time_point b) {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(b - a).count());
}

// A settable knob of the graph: what a request parameter may set for its own compute.
bool is_knob(const Graph& graph, std::string_view name) {
  for (const auto& p : graph.properties())
    if (p.settable && p.name == name) return true;
  return false;
}

ModelDescription describe(const Graph& graph) {
  ModelDescription d;
  d.platform = fmt::format("wasinn_{}", encoding_name(graph.encoding()));
  d.backend = std::string(graph.plugin().name());
  for (const IoInfo& in : graph.inputs()) d.inputs.push_back({in.name, in.type, in.dims, is_optional_input(in)});
  for (size_t i = 0; i < graph.outputs().size(); ++i) {
    const IoInfo& out = graph.outputs()[i];
    d.outputs.push_back({output_name(graph, i), out.type, out.dims, false});
  }
  return d;
}

}  // namespace

GraphScheduler::GraphScheduler(SchedulerHost& model, std::shared_ptr<NnEnvironment> env, std::string name,
                               std::string config, size_t max_idle, BatchingOptions batching)
    : model_(model),
      env_(env),
      name_(std::move(name)),
      config_(std::move(config)),
      pool_(model, std::move(env), name_, config_, max_idle) {
  if (!batching.enabled()) return;
  // A batch computes on a runner of its own, as one request would.
  auto compute = [this](std::span<const NamedInput> inputs) -> Result<std::vector<NamedTensor>> {
    auto runner = pool_.take(false);
    if (!runner) return runner.take_error();
    auto tensors = runner->session->compute_named(runner->context, inputs, oip_type_name);
    pool_.give_back(std::move(*runner));
    return tensors;
  };
  auto executed = [this](const BatchExecution& b) {
    if (b.ok)
      model_.stats_recorder().count_execution(b.rows, b.input_ns, b.compute_ns, b.output_ns);  // else its requests fail
  };
  batcher_ = std::make_unique<DynamicBatcher>(batching, std::move(compute), std::move(executed));
}

Status GraphScheduler::load() {
  // The first runner loads the graph (the registry shares it with every later one).
  NnSession session(env_);
  auto graph = session.load_by_name(name_, config_);
  if (!graph) return graph.take_error();
  auto shared = session.graph(*graph);
  if (!shared) return shared.take_error();
  if (batcher_)
    if (Status fits = check_batch_dimension(**shared, batcher_->options()); !fits) return fits;
  auto described = std::make_shared<const ModelDescription>(describe(**shared));
  {
    std::lock_guard lock(mu_);
    graph_ = std::move(*shared);
    described_ = std::move(described);
  }
  pool_.retire_all();
  return {};
}

void GraphScheduler::unload() { pool_.retire_all(); }

std::shared_ptr<const ModelDescription> GraphScheduler::description() const {
  std::lock_guard lock(mu_);
  return described_;
}

BatchingOptions GraphScheduler::batching() const { return batcher_ ? batcher_->options() : BatchingOptions{}; }

std::shared_ptr<const Graph> GraphScheduler::loaded_graph() const {
  std::lock_guard lock(mu_);
  return graph_;
}

Status GraphScheduler::check_input_name(std::string_view name) const {
  const std::shared_ptr<const Graph> graph = loaded_graph();
  if (!graph) return {};  // not loaded: infer says so
  return wasinn::check_input_name(*graph, name, oip_type_name);
}

std::vector<std::pair<std::string, std::string>> GraphScheduler::knobs_of(const oip::InferRequest& request) const {
  std::vector<std::pair<std::string, std::string>> knobs;
  const std::shared_ptr<const Graph> graph = loaded_graph();
  if (!graph) return knobs;
  for (const auto& [key, value] : request.parameters)
    if (is_knob(*graph, key)) knobs.emplace_back(key, value);
  return knobs;
}

DynamicBatcher::Ticket GraphScheduler::join_batch(const oip::InferRequest& request,
                                                  std::span<const NamedInput> inputs) {
  if (!batcher_ || !model_.check_ready() || !loaded_graph()) return {};
  if (!knobs_of(request).empty()) return {};  // a context of its own, set for it alone
  return batcher_->join(inputs);
}

Result<std::vector<NamedTensor>> GraphScheduler::compute(const oip::InferRequest& request,
                                                         std::span<const NamedInput> inputs,
                                                         DynamicBatcher::Ticket* batch, RequestTiming& timing) {
  if (batch && *batch && batcher_) {  // join_batch gave it no knobs
    timing.input_ns = ns_between(timing.started, Clock::now());
    return take_batch(*batch, timing);
  }
  if (batcher_ && !request.inputs.empty() && !request.inputs[0].shape.empty())
    timing.batch_size = static_cast<uint64_t>(request.inputs[0].shape[0]);
  const auto knobs = knobs_of(request);
  auto runner = pool_.take(!knobs.empty());
  if (!runner) return runner.take_error();
  for (const auto& [key, value] : knobs)
    if (Status set = runner->session->set_context_property(runner->context, key, value); !set) return set.take_error();
  const auto compute_started = Clock::now();
  timing.input_ns = ns_between(timing.started, compute_started);
  auto tensors = runner->session->compute_named(runner->context, inputs, oip_type_name);
  timing.compute_ns = ns_between(compute_started, Clock::now());
  if (knobs.empty()) pool_.give_back(std::move(*runner));
  return tensors;
}

// The request's rows of its batch's outputs. Its wait for the batch counts as queueing, as
// Triton counts a dynamic batcher's delay; its compute is the batch's.
Result<std::vector<NamedTensor>> GraphScheduler::take_batch(DynamicBatcher::Ticket& ticket, RequestTiming& timing) {
  const auto asked = Clock::now();
  auto rows = batcher_->take(ticket);
  if (!rows) return rows.take_error();
  const BatchExecution& ex = rows->execution;
  const uint64_t waited = ns_between(asked, Clock::now());
  const uint64_t batch_ns = ex.input_ns + ex.compute_ns + ex.output_ns;
  timing.batch_wait_ns = waited > batch_ns ? waited - batch_ns : 0;
  timing.input_ns += ex.input_ns;
  timing.compute_ns = ex.compute_ns;
  timing.batched = true;
  return std::move(rows->tensors);
}

void GraphScheduler::count_output_bytes(uint64_t bytes) {
  if (auto graph = loaded_graph(); graph) graph->metrics().add_output_bytes(bytes);
}

}  // namespace wasinn::oip_server
