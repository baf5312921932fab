// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "oip_server/served_model.h"

#include <algorithm>
#include <chrono>

#include <fmt/format.h>

namespace wasinn::oip_server {
namespace {

using Clock = std::chrono::steady_clock;

uint64_t ns_since(Clock::time_point t) {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t).count());
}

std::string shape_text(std::span<const int64_t> dims) {
  return fmt::format("[{}]", fmt::join(dims, ", "));
}

// A settable knob of the graph: what a request parameter may set for its own compute.
bool is_knob(const Graph& graph, std::string_view name) {
  for (const auto& p : graph.properties())
    if (p.settable && p.name == name) return true;
  return false;
}

std::vector<std::string> names_of(const std::vector<IoInfo>& declared) {
  std::vector<std::string> names;
  for (const IoInfo& d : declared) names.push_back(d.name);
  return names;
}

Status check_pipeline_input_name(const std::string& model, const std::vector<std::string>& names,
                                 std::string_view name) {
  if (std::find(names.begin(), names.end(), name) != names.end()) return {};
  return make_error(Errc::invalid_argument,
                    fmt::format("pipeline '{}' has no input '{}' (its inputs: {})", model, name, fmt::join(names, ", ")));
}

// A pipeline's inputs, which no core rule checks before the guest: every declared one given
// once, with its declared datatype, and nothing else.
Status check_pipeline_inputs(const std::string& model, const std::vector<IoInfo>& declared,
                             const oip::InferRequest& request) {
  const std::vector<std::string> names = names_of(declared);
  for (size_t i = 0; i < request.inputs.size(); ++i) {
    const auto& in = request.inputs[i];
    if (Status known = check_pipeline_input_name(model, names, in.name); !known) return known;
    auto it = std::find(names.begin(), names.end(), in.name);
    for (size_t j = 0; j < i; ++j)
      if (request.inputs[j].name == in.name)
        return make_error(Errc::invalid_argument, fmt::format("input '{}' is given twice", in.name));
    const std::string want = oip_datatype(declared[it - names.begin()].type);
    if (in.datatype != want)
      return make_error(Errc::invalid_argument, fmt::format("input '{}' has datatype {}; pipeline '{}' takes {}", in.name,
                                                            in.datatype, model, want));
  }
  for (const std::string& n : names) {
    bool given = false;
    for (const auto& in : request.inputs) given |= in.name == n;
    if (!given) return make_error(Errc::invalid_argument, fmt::format("pipeline '{}' needs the input '{}'", model, n));
  }
  return {};
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

std::shared_ptr<const ModelDescription> describe(const Pipeline& pipeline) {
  auto d = std::make_shared<ModelDescription>();
  d->platform = "wasinn_pipeline";
  d->backend = "wasinn_pipeline";
  for (const IoInfo& in : pipeline.inputs()) d->inputs.push_back({in.name, in.type, in.dims, false});
  for (const IoInfo& out : pipeline.outputs()) d->outputs.push_back({out.name, out.type, out.dims, false});
  return d;
}

}  // namespace

ServedModel::ServedModel(std::shared_ptr<NnEnvironment> env, std::string name, std::string version,
                         std::string config, size_t max_idle)
    : env_(std::move(env)), name_(std::move(name)), version_(std::move(version)), config_(std::move(config)),
      max_idle_(max_idle) {}

ServedModel::ServedModel(std::shared_ptr<NnEnvironment> env, std::string name, std::string version,
                         std::shared_ptr<Pipeline> pipeline)
    : env_(std::move(env)), pipeline_(std::move(pipeline)), name_(std::move(name)), version_(std::move(version)),
      max_idle_(0), described_(describe(*pipeline_)) {}

Status ServedModel::load() {
  {
    std::lock_guard lock(mu_);
    if (ready_) return {};
    if (pipeline_) {  // compiled and described when it was opened: nothing more to load
      ready_ = true;
      reason_.clear();
      ++generation_;
      return {};
    }
  }
  // The first runner loads the graph (the registry shares it with every later one).
  NnSession session(env_);
  auto graph = session.load_by_name(name_, config_);
  std::lock_guard lock(mu_);
  if (!graph) {
    reason_ = graph.error().detail;
    return graph.take_error();
  }
  auto shared = session.graph(*graph);
  if (!shared) return shared.take_error();
  if (batcher_)
    if (Status fits = check_batch_dimension(**shared, batcher_->options()); !fits) {
      reason_ = fits.error().detail;
      return fits.take_error();
    }
  described_ = std::make_shared<const ModelDescription>(describe(**shared));
  graph_ = std::move(*shared);
  ready_ = true;
  reason_.clear();
  ++generation_;
  return {};
}

void ServedModel::unload() {
  std::vector<Runner> dropped;
  std::lock_guard lock(mu_);
  ready_ = false;
  reason_ = "unloaded";
  ++generation_;
  dropped.swap(idle_);
}

bool ServedModel::ready() const {
  std::lock_guard lock(mu_);
  return ready_;
}

std::string ServedModel::state_reason() const {
  std::lock_guard lock(mu_);
  return reason_;
}

oip::ModelMeta ServedModel::metadata() const {
  std::lock_guard lock(mu_);
  return model_metadata(name_, version_, described_.get());
}

ModelConfigInfo ServedModel::config() const {
  std::lock_guard lock(mu_);
  return model_config(name_, described_.get(), batcher_ ? batcher_->options() : BatchingOptions{});
}

ModelStats ServedModel::stats() const { return stats_.snapshot(); }

void ServedModel::set_batching(BatchingOptions options) {
  if (!options.enabled()) {
    batcher_.reset();
    return;
  }
  // A batch computes on a runner of its own, as one request would.
  auto compute = [this](std::span<const NamedInput> inputs) -> Result<std::vector<NamedTensor>> {
    auto runner = take_runner(false);
    if (!runner) return runner.take_error();
    auto tensors = runner->session->compute_named(runner->context, inputs, oip_type_name);
    give_back(std::move(*runner));
    return tensors;
  };
  auto executed = [this](const BatchExecution& b) {
    if (b.ok) stats_.count_execution(b.rows, b.input_ns, b.compute_ns, b.output_ns);  // else its requests fail
  };
  batcher_ = std::make_unique<DynamicBatcher>(options, std::move(compute), std::move(executed));
}

DynamicBatcher::Ticket ServedModel::join_batch(const oip::InferRequest& request) {
  if (!batcher_ || !check_inputs(request)) return {};
  {
    std::lock_guard lock(mu_);
    if (!ready_ || !graph_) return {};
    for (const auto& [key, value] : request.parameters)
      if (is_knob(*graph_, key)) return {};  // a context of its own, set for it alone
  }
  std::vector<std::vector<uint32_t>> dims(request.inputs.size());
  std::vector<NamedInput> inputs;
  for (size_t i = 0; i < request.inputs.size(); ++i) {
    const auto& in = request.inputs[i];
    dims[i].assign(in.shape.begin(), in.shape.end());
    inputs.push_back({in.name, TensorView{static_cast<TensorType>(*oip::from_datatype(in.datatype)), dims[i], in.data}});
  }
  return batcher_->join(inputs);
}

// The request's rows of its batch's outputs. Its wait for the batch counts as queueing, as
// Triton counts a dynamic batcher's delay; its compute is the batch's.
Result<std::vector<NamedTensor>> ServedModel::take_batch(DynamicBatcher::Ticket& ticket, RequestTiming& timing) {
  const auto asked = Clock::now();
  auto rows = batcher_->take(ticket);
  if (!rows) return rows.take_error();
  const BatchExecution& ex = rows->execution;
  const uint64_t waited = ns_since(asked);
  const uint64_t batch_ns = ex.input_ns + ex.compute_ns + ex.output_ns;
  timing.batch_wait_ns = waited > batch_ns ? waited - batch_ns : 0;
  timing.input_ns += ex.input_ns;
  timing.compute_ns = ex.compute_ns;
  timing.batched = true;
  return std::move(rows->tensors);
}

Result<ServedModel::Runner> ServedModel::take_runner(bool fresh) {
  uint64_t generation;
  {
    std::lock_guard lock(mu_);
    if (!ready_) return make_error(Errc::busy, fmt::format("model '{}' is not ready ({})", name_, reason_));
    generation = generation_;
    if (!fresh && !idle_.empty()) {
      Runner r = std::move(idle_.back());
      idle_.pop_back();
      return r;
    }
  }
  Runner r{std::make_unique<NnSession>(env_), 0, 0, generation};
  auto graph = r.session->load_by_name(name_, config_);
  if (!graph) return graph.take_error();
  r.graph = *graph;
  auto context = r.session->init_execution_context(r.graph);
  if (!context) return context.take_error();
  r.context = *context;
  return r;
}

void ServedModel::give_back(Runner runner) {
  std::lock_guard lock(mu_);
  if (runner.generation == generation_ && ready_ && idle_.size() < max_idle_) idle_.push_back(std::move(runner));
}

Status ServedModel::check_inputs(const oip::InferRequest& request) const {
  std::shared_ptr<const ModelDescription> described;
  {
    std::lock_guard lock(mu_);
    described = described_;
  }
  if (!described) return make_error(Errc::busy, fmt::format("model '{}' is not ready", name_));
  // A graph's input names and types are the core's to check (compute_named); a pipeline's are
  // checked here, before the guest sees them.
  if (pipeline_)
    if (Status ok = check_pipeline_inputs(name_, pipeline_->inputs(), request); !ok) return ok;
  std::vector<std::string> output_names;
  for (const DeclaredTensor& out : described->outputs) output_names.push_back(out.name);
  for (const auto& in : request.inputs) {
    if (!oip::from_datatype(in.datatype))
      return make_error(Errc::invalid_argument,
                        fmt::format("input '{}' has datatype {}, which no wasinn backend takes (FP16, FP32, FP64, BF16, "
                                    "UINT8, INT8, INT32, INT64)", in.name, in.datatype));
    for (const DeclaredTensor& declared : described->inputs) {
      if (declared.name != in.name || !declared.dims) continue;
      const auto& dims = *declared.dims;
      bool fits = dims.size() == in.shape.size();
      for (size_t i = 0; fits && i < dims.size(); ++i) fits = dims[i] < 0 || dims[i] == in.shape[i];
      if (!fits)
        return make_error(Errc::invalid_argument, fmt::format("input '{}' has shape {}; model '{}' takes {} (-1: any size)",
                                                              in.name, shape_text(in.shape), name_, shape_text(dims)));
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

Status ServedModel::check_input_name(std::string_view name) const {
  if (pipeline_) return check_pipeline_input_name(name_, names_of(pipeline_->inputs()), name);
  const std::shared_ptr<const Graph> graph = runner_graph();
  if (!graph) return {};  // not loaded: infer says so
  return wasinn::check_input_name(*graph, name, oip_type_name);
}

oip::InputNameCheck input_name_check(const ServedModel& model) {
  return [&model](std::string_view name) {
    const Status known = model.check_input_name(name);
    return known ? std::string() : known.error().detail;
  };
}

std::shared_ptr<const Graph> ServedModel::runner_graph() const {
  std::lock_guard lock(mu_);
  return graph_;
}

Result<InferAnswer> ServedModel::infer(const oip::InferRequest& request, uint64_t queue_ns,
                                       DynamicBatcher::Ticket* batch) {
  const auto started = Clock::now();
  RequestTiming timing;
  timing.queue_ns = queue_ns;
  if (Status ok = check_inputs(request); !ok) {
    if (ok.error().code != Errc::busy) stats_.count(false, ns_since(started), timing);
    return ok.take_error();
  }
  std::vector<std::vector<uint32_t>> dims(request.inputs.size());
  std::vector<NamedInput> inputs;
  for (size_t i = 0; i < request.inputs.size(); ++i) {
    const auto& in = request.inputs[i];
    dims[i].assign(in.shape.begin(), in.shape.end());
    inputs.push_back({in.name, TensorView{static_cast<TensorType>(*oip::from_datatype(in.datatype)), dims[i], in.data}});
  }
  auto failed = [&](Error e) {
    stats_.count(false, ns_since(started), timing);
    return e;
  };
  if (pipeline_) {
    const auto compute_started = Clock::now();
    timing.input_ns = static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(compute_started - started).count());
    auto tensors = pipeline_->infer(inputs);
    const auto computed = Clock::now();
    timing.compute_ns = ns_since(compute_started);
    if (!tensors) return failed(tensors.take_error());
    auto answer = select_outputs(request, std::move(*tensors));
    if (!answer) return failed(answer.take_error());
    timing.computed = true;
    timing.output_ns = ns_since(computed);
    stats_.count(true, ns_since(started), timing);
    return answer;
  }
  // Parameters naming a knob of the model are set on a context of this request's own.
  // Other parameters (the protocol's own, a client's tags) are not the model's business.
  std::vector<std::pair<std::string, std::string>> knobs;
  {
    std::lock_guard lock(mu_);
    for (const auto& [key, value] : request.parameters)
      if (graph_ && is_knob(*graph_, key)) knobs.emplace_back(key, value);
  }
  const bool batched = batch && *batch && batcher_;  // join_batch gave it no knobs
  if (batcher_ && !batched && !request.inputs.empty() && !request.inputs[0].shape.empty())
    timing.batch_size = static_cast<uint64_t>(request.inputs[0].shape[0]);
  auto runner = batched ? Result<Runner>(Runner{}) : take_runner(!knobs.empty());
  if (!runner) return failed(runner.take_error());
  for (const auto& [key, value] : knobs)
    if (Status set = runner->session->set_context_property(runner->context, key, value); !set)
      return failed(set.take_error());
  const auto compute_started = Clock::now();
  timing.input_ns = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(compute_started - started).count());
  auto tensors = batched ? take_batch(*batch, timing)
                         : runner->session->compute_named(runner->context, inputs, oip_type_name);
  const auto computed = Clock::now();
  if (!batched) timing.compute_ns = ns_since(compute_started);
  if (knobs.empty() && !batched) give_back(std::move(*runner));
  if (!tensors) return failed(tensors.take_error());

  auto selected = select_outputs(request, std::move(*tensors));
  if (!selected) return failed(selected.take_error());
  InferAnswer& answer = *selected;
  // What the client gets, counted as a guest's get-output is (compute_named itself does not).
  uint64_t sent = 0;
  for (const auto& o : answer.outputs) sent += o.data.size();
  if (auto graph = runner_graph(); graph) graph->metrics().add_output_bytes(sent);
  timing.computed = true;
  timing.output_ns = ns_since(computed);
  stats_.count(true, ns_since(started), timing);
  return selected;
}

Result<InferAnswer> ServedModel::select_outputs(const oip::InferRequest& request, std::vector<NamedTensor> tensors) const {
  InferAnswer answer;
  answer.tensors = std::move(tensors);
  auto add = [&](const NamedTensor& t, bool binary) {
    answer.outputs.push_back({t.name, oip_datatype(t.tensor.type), std::vector<int64_t>(t.tensor.dims.begin(), t.tensor.dims.end()),
                              t.tensor.data, binary});
  };
  if (request.outputs.empty()) {
    for (const auto& t : answer.tensors) add(t, request.binary_output);
    return answer;
  }
  for (const auto& want : request.outputs) {
    const NamedTensor* found = nullptr;
    for (const auto& t : answer.tensors)
      if (t.name == want.name) found = &t;
    if (!found) return make_error(Errc::invalid_argument, fmt::format("model '{}' gave no output '{}'", name_, want.name));
    add(*found, want.binary.value_or(request.binary_output));
  }
  return answer;
}

}  // namespace wasinn::oip_server
