// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "core/nn_session.h"

#include <algorithm>
#include <atomic>
#include <climits>
#include <utility>

#include <fmt/format.h>

namespace wasinn {

NnSession::NnSession(std::shared_ptr<NnEnvironment> env)
    : env_(std::move(env)),
      async_(std::make_shared<AsyncCalls>(env_->async_calls())),
      graphs_("graph", env_->limits().max_graphs, "--max-graphs"),
      contexts_("execution context", env_->limits().max_contexts, "--max-contexts") {}

Result<uint32_t> NnSession::load(std::span<const std::span<const uint8_t>> builders, Encoding encoding, Target target) {
  if (builders.empty()) return make_error(Errc::invalid_argument, "load: no graph builders given");
  if (Status room = graphs_.check_room(); !room) return room.error();
  auto graph = env_->load_graph(encoding, target, builders, {}, {}, {}, deadline_);
  env_->count_load(graph, encoding);
  if (!graph) return graph.take_error();
  return graphs_.insert(std::move(*graph));
}

Result<uint32_t> NnSession::load_by_name(std::string_view name, std::string_view config) {
  if (name.size() > env_->limits().max_name_bytes) {
    return make_error(Errc::invalid_argument, fmt::format("model name of {} bytes exceeds the limit of {}", name.size(),
                                                          env_->limits().max_name_bytes));
  }
  if (Status room = graphs_.check_room(); !room) return room.error();
  auto graph = env_->load_named(name, config, deadline_);
  env_->count_load(graph, Encoding::autodetect, name);
  if (!graph) return graph.take_error();
  return graphs_.insert(std::move(*graph));
}

Result<uint32_t> NnSession::init_execution_context(uint32_t graph_handle) {
  auto graph = graphs_.get(graph_handle);
  if (!graph) return graph.take_error();
  auto ctx = (*graph)->create_context();
  if (!ctx) return ctx.take_error();
  std::vector<std::pair<std::string, std::string>> knobs;
  {
    std::lock_guard lock(settings_mu_);
    if (auto it = settings_.find(graph_handle); it != settings_.end()) knobs = it->second;
  }
  for (const auto& [name, value] : knobs) {
    if (Status set = (*ctx)->set_property(name, value); !set) return set.take_error();
  }
  if ((isolate_cache_ || !cache_partition_.empty()) && (*graph)->plugin().facts().text_model) {
    static std::atomic<uint64_t> isolated{0};
    const std::string partition =
        isolate_cache_ ? fmt::format("context:{}", isolated.fetch_add(1, std::memory_order_relaxed)) : cache_partition_;
    (*ctx)->set_cache_partition(partition);
  }
  return contexts_.insert(std::move(*ctx));
}

namespace {
// The host's own knob: a guest that set it could reuse (and time) another key's prompts.
Status refuse_host_knob(std::string_view name) {
  if (name != WASINN_PROPERTY_CACHE_PARTITION) return {};
  return make_error(Errc::invalid_argument,
                    fmt::format("property \"{}\" is set by the host only", WASINN_PROPERTY_CACHE_PARTITION));
}
}  // namespace

namespace {
thread_local AsyncCall* t_async_call = nullptr;

Error cancelled_error() { return make_error(Errc::timeout, "compute was cancelled"); }
}  // namespace

NnSession::AsyncScope::AsyncScope(NnSession& session, AsyncCall& call)
    : session_(session), entered_(session.async_->enter()), before_(t_async_call) {
  if (entered_) t_async_call = &call;
}

NnSession::AsyncScope::~AsyncScope() {
  if (!entered_) return;
  t_async_call = before_;
  session_.async_->leave();
}

Result<std::pair<std::shared_ptr<ExecutionContext>, ExecutionContext::Lease>> NnSession::hold(uint32_t handle) {
  AsyncCall* call = t_async_call;
  auto ctx = contexts_.get(handle);
  if (!ctx) return ctx.take_error();
  const bool wait = call || env_->limits().wait_for_busy_context;
  auto lease = (*ctx)->acquire(wait, call ? call->holder() : ExecutionContext::Holder{});
  if (!lease) return lease.take_error();
  // Cancelled while it waited: a cancel aimed at this call found no lease of it to stop.
  if (call && call->cancelled()) return cancelled_error();
  return std::pair{std::move(*ctx), std::move(*lease)};
}

template <class Fn>
auto NnSession::with_context(uint32_t handle, Fn&& fn) -> decltype(fn(std::declval<ExecutionContext&>())) {
  if (AsyncCall* call = t_async_call) {
    if (call->cancelled()) return cancelled_error();
    // A generation's step: the context is the generation's already.
    if (ExecutionContext* held = call->claimed(handle)) return fn(*held);
  }
  auto held = hold(handle);
  if (!held) return held.take_error();
  return fn(*held->first);
}

Status NnSession::set_input(uint32_t context, const TensorId& id, const TensorView& tensor) {
  if (tensor.dims.size() > env_->limits().max_rank) {
    return make_error(Errc::invalid_argument, fmt::format("input {}: rank {} exceeds the limit of {}", id.describe(),
                                                          tensor.dims.size(), env_->limits().max_rank));
  }
  return with_context(context, [&](ExecutionContext& c) { return set_bounded_input(c, id, tensor); });
}

Status NnSession::set_bounded_input(ExecutionContext& c, const TensorId& id, const TensorView& tensor) {
  // A backend's set_input does bounded work (each decoder is checked before its library sees the
  // bytes) that no cancel reaches; the deadline decides whether it starts and whether its result counts.
  if (deadline_ && std::chrono::steady_clock::now() >= *deadline_)
    return make_error(Errc::timeout, "the request's deadline has passed; no set_input starts after it");
  Status status = c.set_input(id, tensor, env_->limits().max_tensor_bytes);
  if (status.ok() && deadline_ && std::chrono::steady_clock::now() > *deadline_)
    return make_error(Errc::timeout, fmt::format("set_input of input {} ran past the request's deadline (the backend "
                                                 "cannot be interrupted; it finished late)",
                                                 id.describe()));
  return status;
}

Status NnSession::run_bounded(uint32_t context, Status (ExecutionContext::*run)()) {
  return with_context(context, [&](ExecutionContext& c) { return run_bounded(c, run); });
}

Status NnSession::run_bounded(ExecutionContext& c, Status (ExecutionContext::*run)()) {
  auto budget = std::chrono::milliseconds(env_->limits().max_compute_ms);
  // Started before the watch, so a compute the watchdog stops is timed at no less than its budget.
  const auto started = std::chrono::steady_clock::now();
  bool deadline_first = false;  // the request's end comes before max_compute_ms: it words the error
  if (deadline_) {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(*deadline_ - started);
    if (left <= std::chrono::milliseconds(0))
      return make_error(Errc::timeout, "the request's deadline has passed; no compute starts after it");
    deadline_first = budget.count() == 0 || left < budget;
    if (deadline_first) budget = left;
  }
  auto watch = env_->watchdog().watch(c, budget);
  // After the watch: a cancel from now on is repeated (ComputeWatchdog::hurry) until it lands.
  if (c.cancelling()) return cancelled_error();
  Status status = (c.*run)();
  if (watch.overran(std::chrono::steady_clock::now())) {
    const char* late = status.ok() ? " (the backend cannot be interrupted; it finished late)" : "";
    status = make_error(
        Errc::timeout,
        deadline_first ? fmt::format("compute ran past the request's deadline and was stopped{}", late)
                       : fmt::format("compute exceeded its budget of {} ms and was stopped{}", budget.count(), late));
  }
  c.graph().metrics().count_compute(status, std::chrono::steady_clock::now() - started);
  return status;
}

Status NnSession::cancel(uint32_t context) {
  // No lease: the context is busy with the very compute this stops.
  AsyncCall* call = t_async_call;
  if (call) call->cancel();
  auto ctx = contexts_.get(context);
  if (!ctx) return ctx.take_error();
  if ((*ctx)->cancel(call)) env_->watchdog().hurry(**ctx);
  return {};
}

void NnSession::close_async_calls() {
  async_->close([this] {
    contexts_.for_each([this](ExecutionContext& c) {
      if (c.cancel()) env_->watchdog().hurry(c);
    });
  });
  contexts_.clear();
  graphs_.clear();
  std::lock_guard lock(settings_mu_);
  settings_.clear();
  pieces_.clear();
}

Status NnSession::compute(uint32_t context) { return run_bounded(context, &ExecutionContext::compute); }

Status NnSession::compute_single(uint32_t context) { return run_bounded(context, &ExecutionContext::compute_single); }

Result<std::vector<NamedTensor>> NnSession::compute_named(uint32_t context, std::span<const NamedInput> inputs,
                                                          TypeNamer type_names) {
  using Outputs = Result<std::vector<NamedTensor>>;
  return with_context(context, [&](ExecutionContext& c) -> Outputs {
    const Graph& graph = c.graph();
    if (Status named = check_named_inputs(graph, inputs, type_names); !named) return named.take_error();
    for (const auto& in : inputs) {
      if (in.tensor.dims.size() > env_->limits().max_rank) {
        return make_error(Errc::invalid_argument, fmt::format("input '{}': rank {} exceeds the limit of {}", in.name,
                                                              in.tensor.dims.size(), env_->limits().max_rank));
      }
      Status set = set_bounded_input(c, input_id(graph, in.name), in.tensor);
      if (!set) {
        Error e = set.take_error();
        if (e.code == Errc::invalid_argument) e.detail += "; " + describe_inputs(graph, type_names);
        return e;
      }
    }
    if (Status run = run_bounded(c, &ExecutionContext::compute); !run) return run.take_error();
    // Outputs the model declares; a backend that learns them at compute (a TorchScript dict)
    // is asked by index until it has no more.
    const size_t declared = graph.outputs().size();
    constexpr size_t kMaxProbed = 4096;
    std::vector<NamedTensor> outputs;
    for (size_t i = 0; i < (declared ? declared : kMaxProbed); ++i) {
      auto view = c.get_output(TensorId{static_cast<uint32_t>(i), std::nullopt});
      if (!view) {
        if (declared == 0 && i > 0 && view.error().code == Errc::invalid_argument) break;
        return view.take_error();
      }
      outputs.push_back(NamedTensor{
          output_name(graph, i),
          OwnedTensor{view->type, {view->dims.begin(), view->dims.end()}, {view->data.begin(), view->data.end()}}});
    }
    return outputs;
  });
}

Status NnSession::fini_single(uint32_t context) {
  return with_context(context, [](ExecutionContext& c) { return c.fini_single(); });
}

namespace {
template <class Get>
Result<HeldOutput> hold_output(Result<std::shared_ptr<ExecutionContext>> ctx, bool wait, Get&& get) {
  if (!ctx) return ctx.take_error();
  auto lease = (*ctx)->acquire(wait);
  if (!lease) return lease.take_error();
  auto view = get(**ctx);
  if (!view) return view.take_error();
  return HeldOutput{std::move(*ctx), std::move(*lease), *view};
}
}  // namespace

Result<HeldOutput> NnSession::get_output(uint32_t context, const TensorId& id) {
  return hold_output(contexts_.get(context), env_->limits().wait_for_busy_context,
                     [&](ExecutionContext& c) { return c.get_output(id); });
}

Result<HeldOutput> NnSession::get_output_single(uint32_t context, const TensorId& id) {
  return hold_output(contexts_.get(context), env_->limits().wait_for_busy_context,
                     [&](ExecutionContext& c) { return c.get_output_single(id); });
}

Result<std::shared_ptr<const Graph>> NnSession::graph(uint32_t graph) const {
  auto g = graphs_.get(graph);
  if (!g) return g.take_error();
  return std::shared_ptr<const Graph>(std::move(*g));
}

Result<std::vector<GraphProperty>> NnSession::properties(uint32_t graph) const {
  auto g = graphs_.get(graph);
  if (!g) return g.take_error();
  std::vector<GraphProperty> out = (*g)->properties();
  std::lock_guard lock(settings_mu_);
  if (auto it = settings_.find(graph); it != settings_.end()) {
    for (const auto& [name, value] : it->second) {
      for (auto& p : out) {
        if (p.name == name) p.value = value;
      }
    }
  }
  return out;
}

Result<std::string> NnSession::get_property(uint32_t graph, std::string_view name) const {
  auto g = graphs_.get(graph);
  if (!g) return g.take_error();
  auto p = (*g)->property(name);  // or the error, with its "did you mean"
  if (!p) return p.take_error();
  std::lock_guard lock(settings_mu_);
  if (auto it = settings_.find(graph); it != settings_.end()) {
    for (const auto& [knob, value] : it->second) {
      if (knob == name) return value;
    }
  }
  return (*p)->value;
}

Status NnSession::set_graph_property(uint32_t graph, std::string_view name, std::string_view value) {
  auto g = graphs_.get(graph);
  if (!g) return g.take_error();
  WASINN_TRY(refuse_host_knob(name));
  WASINN_TRY((*g)->check_setting(name, value));
  std::lock_guard lock(settings_mu_);
  auto& knobs = settings_[graph];
  auto same = std::find_if(knobs.begin(), knobs.end(), [&](const auto& k) { return k.first == name; });
  if (same != knobs.end()) knobs.erase(same);
  knobs.emplace_back(std::string(name), std::string(value));
  return {};
}

Status NnSession::set_context_property(uint32_t context, std::string_view name, std::string_view value) {
  WASINN_TRY(refuse_host_knob(name));
  return with_context(context, [&](ExecutionContext& c) { return c.set_property(name, value); });
}

namespace {
// The one rule of which graphs prompt serves.
Status require_text_model(const Graph& g) {
  if (g.plugin().facts().text_model) return {};
  return make_error(Errc::unsupported_operation, fmt::format("prompt: the graph is {}, not a text model (prompt "
                                                             "serves ggml graphs)",
                                                             encoding_name(g.encoding())));
}

// A text model's output as text, valid while the view is.
std::string_view text_of(const TensorView& view) {
  return {reinterpret_cast<const char*>(view.data.data()), view.data.size()};
}
}  // namespace

Status NnSession::set_text(ExecutionContext& c, const TensorId& id, std::string_view text) {
  const uint32_t dims[1] = {static_cast<uint32_t>(std::min<size_t>(text.size(), UINT32_MAX))};
  const TensorView in{TensorType::u8, dims, {reinterpret_cast<const uint8_t*>(text.data()), text.size()}};
  return set_bounded_input(c, id, in);
}

Result<uint32_t> NnSession::init_prompt_context(uint32_t graph_handle) {
  auto g = graphs_.get(graph_handle);
  if (!g) return g.take_error();
  WASINN_TRY(require_text_model(**g));
  return init_execution_context(graph_handle);
}

Result<std::string> NnSession::prompt(uint32_t context, std::string_view text) {
  return with_context(context, [&](ExecutionContext& c) -> Result<std::string> {
    WASINN_TRY(require_text_model(c.graph()));
    WASINN_TRY(set_text(c, TensorId{0, std::nullopt}, text));
    WASINN_TRY(run_bounded(c, &ExecutionContext::compute));
    auto out = c.get_output(TensorId{0, std::nullopt});
    if (!out) return out.take_error();
    c.graph().metrics().add_output_bytes(out->data.size());
    return std::string(text_of(*out));
  });
}

Status NnSession::prompt_start(uint32_t context, std::string_view input, std::string_view text) {
  if (input != "prompt" && input != "messages") {
    return make_error(
        Errc::invalid_argument,
        fmt::format("prompt: input '{}' is neither \"prompt\" (text) nor \"messages\" (a JSON chat)", input));
  }
  auto start = [&](ExecutionContext& c) -> Status {
    WASINN_TRY(require_text_model(c.graph()));
    // A new input ends a generation in progress; the first prompt_next starts this one.
    WASINN_TRY(set_text(c, TensorId{0, input}, text));
    std::lock_guard lock(settings_mu_);
    pieces_[context] = Utf8Pieces();
    return {};
  };
  AsyncCall* call = t_async_call;
  if (!call) return with_context(context, start);
  // An async generation holds its context until its end (prompt_next), so no other call's step
  // comes between two of its tokens.
  if (call->cancelled()) return cancelled_error();
  call->end_generation();  // the call's own earlier one, whose lease it would wait for
  auto held = hold(context);
  if (!held) return held.take_error();
  WASINN_TRY(start(*held->first));
  call->claim(context, std::move(held->first), std::move(held->second));
  return {};
}

Result<std::optional<std::string>> NnSession::prompt_next(uint32_t context) {
  AsyncCall* call = t_async_call;
  if (!call) return next_piece(context);
  if (!call->claimed(context)) {
    return make_error(
        call->cancelled() ? Errc::timeout : Errc::invalid_argument,
        call->cancelled() ? "compute was cancelled" : "prompt: no generation was started on this context");
  }
  auto piece = next_piece(context);
  if (!piece || !*piece) call->end_generation();
  return piece;
}

Result<std::optional<std::string>> NnSession::next_piece(uint32_t context) {
  return with_context(context, [&](ExecutionContext& c) -> Result<std::optional<std::string>> {
    WASINN_TRY(require_text_model(c.graph()));
    if (Status step = run_bounded(c, &ExecutionContext::compute_single); !step) {
      const Errc code = step.error().code;
      if (code != Errc::end_of_sequence && code != Errc::context_full) return step.take_error();
      // The end: what an unfinished character held back, then none.
      std::lock_guard lock(settings_mu_);
      std::string rest = pieces_[context].finish();
      if (rest.empty()) return std::optional<std::string>();
      return std::optional<std::string>(std::move(rest));
    }
    auto piece = c.get_output_single(TensorId{0, std::nullopt});
    if (!piece) return piece.take_error();
    c.graph().metrics().add_output_bytes(piece->data.size());
    std::lock_guard lock(settings_mu_);
    return std::optional<std::string>(pieces_[context].take(text_of(*piece)));
  });
}

Result<std::string> NnSession::prompt_metadata(uint32_t context) {
  return with_context(context, [&](ExecutionContext& c) -> Result<std::string> {
    WASINN_TRY(require_text_model(c.graph()));
    auto meta = c.get_output_single(TensorId{1, std::nullopt});
    if (!meta) return meta.take_error();
    return std::string(text_of(*meta));
  });
}

Status NnSession::check_context(uint32_t context) const {
  auto c = contexts_.get(context);
  if (!c) return c.take_error();
  return {};
}

void NnSession::count_output_bytes(uint32_t context, uint64_t bytes) const {
  if (auto c = contexts_.get(context); c) (*c)->graph().metrics().add_output_bytes(bytes);
}

Status NnSession::unload(uint32_t graph) {
  auto g = graphs_.erase(graph);
  if (!g) return g.take_error();
  std::lock_guard lock(settings_mu_);
  settings_.erase(graph);
  return {};
}

Status NnSession::finalize_execution_context(uint32_t context) {
  auto c = contexts_.erase(context);
  if (!c) return c.take_error();
  std::lock_guard lock(settings_mu_);
  pieces_.erase(context);
  return {};
}

}  // namespace wasinn
