// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "core/graph.h"

#include "core/graph_properties.h"
#include "core/plugin_call.h"

#include <fmt/format.h>

namespace wasinn {

namespace {

std::vector<IoInfo> query_io(const wasinn_backend_api& api, const wasinn_graph* graph, int is_output) {
  std::vector<IoInfo> out;
  if (!api.graph_io_count || !api.graph_io_info) return out;
  const size_t n = api.graph_io_count(graph, is_output);
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    wasinn_io_info info{};
    IoInfo io;
    if (api.graph_io_info(graph, is_output, i, &info) == WASINN_OK) {
      io.name = info.name ? info.name : "";
      if (info.type >= 0 && is_valid_type(static_cast<uint32_t>(info.type))) {
        io.type = static_cast<TensorType>(info.type);
      }
      if (info.rank >= 0 && (info.rank == 0 || info.dims)) {
        io.dims.emplace(info.dims, info.dims + info.rank);
      }
      if (WASINN_PLUGIN_HAS(api, graph_io_framework_type)) {
        if (const char* words = api.graph_io_framework_type(graph, is_output, i)) io.framework_type = words;
      }
    }
    out.push_back(std::move(io));
  }
  return out;
}

}  // namespace

Graph::Graph(std::shared_ptr<LoadedBackend> plugin, wasinn_graph* handle, Encoding encoding,
             std::vector<GraphProperty> properties, std::shared_ptr<GraphMetrics> metrics)
    : plugin_(std::move(plugin)),
      handle_(handle),
      encoding_(encoding),
      properties_(std::move(properties)),
      metrics_(std::move(metrics)) {
  metrics_->graph_opened();
  // A language model's graph lists its token series (zeros until it generates) from its load.
  if (WASINN_PLUGIN_HAS(plugin_->api(), context_take_token_stats)) metrics_->mark_counts_tokens();
  inputs_ = query_io(plugin_->api(), handle_, 0);
  outputs_ = query_io(plugin_->api(), handle_, 1);
  if (WASINN_PLUGIN_HAS(plugin_->api(), graph_description)) {
    if (const char* words = plugin_->api().graph_description(handle_)) description_ = words;
  }
}

Graph::~Graph() {
  if (handle_ && plugin_->api().graph_release) plugin_->api().graph_release(handle_);
  metrics_->graph_closed();
}

Result<std::shared_ptr<ExecutionContext>> Graph::create_context() {
  PluginDiag diag;
  wasinn_context* ctx = nullptr;
  const int status = call_plugin(plugin_->name(), "context_create",
                                 [&] { return plugin_->api().context_create(handle_, &ctx, diag.get()); });
  if (status != WASINN_OK) return diag.to_error(status, "init_execution_context");
  if (!ctx) return make_error(Errc::runtime_error, "backend returned no execution context");
  return std::make_shared<ExecutionContext>(shared_from_this(), ctx);
}

ExecutionContext::ExecutionContext(std::shared_ptr<Graph> graph, wasinn_context* handle)
    : graph_(std::move(graph)), handle_(handle) {
  graph_->metrics_->context_opened();
}

ExecutionContext::~ExecutionContext() {
  const auto& api = graph_->plugin_->api();
  if (handle_ && api.context_release) api.context_release(handle_);
  graph_->metrics_->context_closed();
}

Result<ExecutionContext::Lease> ExecutionContext::acquire(bool wait, Holder holder) {
  std::unique_lock lock(mu_);
  while (in_use_) {
    if (holder.stop && holder.stop->load(std::memory_order_acquire)) {
      return make_error(Errc::timeout, "compute was cancelled");
    }
    if (!wait && !cancelling_.load(std::memory_order_relaxed)) {
      return make_error(Errc::busy,
                        "execution context is in use by another thread (--nn-context-wait makes "
                        "the second caller wait instead)");
    }
    freed_.wait(lock);
  }
  in_use_ = true;
  holder_ = holder.tag;
  return Lease(this);
}

void ExecutionContext::release() {
  {
    std::lock_guard lock(mu_);
    in_use_ = false;
    holder_ = nullptr;
    cancelling_.store(false, std::memory_order_release);
  }
  freed_.notify_all();
}

namespace {
wasinn_tensor_id to_plugin_id(const TensorId& id) {
  wasinn_tensor_id out{id.index, nullptr, 0};
  if (id.name) {
    out.name = id.name->data();
    out.name_length = id.name->size();
  }
  return out;
}
}  // namespace

Status ExecutionContext::set_input(const TensorId& id, const TensorView& tensor, uint64_t max_tensor_bytes) {
  auto expected = tensor_byte_size(tensor.dims, tensor.type);
  if (!expected) return expected.take_error();
  // A backend whose inputs are sized by their data (BackendFacts): the data length alone counts.
  const bool bytes_input = graph_->plugin().facts().inputs_sized_by_data;
  if (*expected != tensor.data.size() && !bytes_input) {
    return make_error(Errc::invalid_argument,
                      fmt::format("input {}: {} needs {} bytes of data, got {}", id.describe(),
                                  describe_tensor(tensor.type, tensor.dims), *expected, tensor.data.size()));
  }
  const uint64_t size = bytes_input ? tensor.data.size() : *expected;
  if (size > max_tensor_bytes) {
    return make_error(Errc::too_large, fmt::format("input {}: {} bytes exceed the tensor limit of {}", id.describe(),
                                                   size, max_tensor_bytes));
  }
  const wasinn_tensor_id pid = to_plugin_id(id);
  const wasinn_tensor t{static_cast<int32_t>(tensor.type), static_cast<uint32_t>(tensor.dims.size()),
                        tensor.dims.data(), tensor.data.data(), tensor.data.size()};
  PluginDiag diag;
  const int status = call_plugin(graph_->plugin_->name(), "set_input",
                                 [&] { return graph_->plugin_->api().set_input(handle_, &pid, &t, diag.get()); });
  if (status != WASINN_OK) return diag.to_error(status, "set_input");
  graph_->metrics_->add_input_bytes(tensor.data.size());
  return {};
}

void ExecutionContext::take_token_stats() {
  const auto& api = graph_->plugin_->api();
  if (!WASINN_PLUGIN_HAS(api, context_take_token_stats)) return;
  wasinn_token_stats t{};
  t.struct_size = sizeof t;
  if (api.context_take_token_stats(handle_, &t) != WASINN_OK) return;
  if (!t.prompt_tokens && !t.generated_tokens && !t.first_tokens && !t.decode_tokens) return;
  graph_->metrics_->count_tokens(TokenCounts{t.prompt_tokens, t.generated_tokens, t.first_tokens != 0,
                                             t.first_token_nanos, t.decode_tokens, t.decode_nanos,
                                             t.cached_prompt_tokens, t.prompt_cache_hits});
}

Status ExecutionContext::compute() {
  PluginDiag diag;
  const int status = call_plugin(graph_->plugin_->name(), "compute",
                                 [&] { return graph_->plugin_->api().compute(handle_, diag.get()); });
  take_token_stats();
  if (status != WASINN_OK) return diag.to_error(status, "compute");
  return {};
}

Result<TensorView> ExecutionContext::view_of(const wasinn_tensor& t, const char* what) {
  // A plugin bug must not become an out-of-bounds copy into guest memory: check the view.
  if (t.type < 0 || !is_valid_type(static_cast<uint32_t>(t.type)) || (t.rank && !t.dims) ||
      (t.data_length && !t.data)) {
    return make_error(Errc::runtime_error, fmt::format("{}: backend returned a malformed tensor", what));
  }
  TensorView view{
      static_cast<TensorType>(t.type), {t.dims, t.rank}, {static_cast<const uint8_t*>(t.data), t.data_length}};
  auto size = tensor_byte_size(view.dims, view.type);
  if (!size || *size != t.data_length) {
    return make_error(Errc::runtime_error, fmt::format("{}: backend returned {} with {} bytes", what,
                                                       describe_tensor(view.type, view.dims), t.data_length));
  }
  return view;
}

Result<TensorView> ExecutionContext::get_output(const TensorId& id) {
  const wasinn_tensor_id pid = to_plugin_id(id);
  wasinn_tensor t{};
  PluginDiag diag;
  const int status = call_plugin(graph_->plugin_->name(), "get_output",
                                 [&] { return graph_->plugin_->api().get_output(handle_, &pid, &t, diag.get()); });
  if (status != WASINN_OK) return diag.to_error(status, "get_output");
  return view_of(t, "get_output");
}

namespace {
Error unsupported_streaming(const LoadedBackend& plugin, const char* fn) {
  return make_error(Errc::unsupported_operation,
                    fmt::format("{}: the {} backend does not stream tokens", fn, plugin.name()));
}
}  // namespace

Status ExecutionContext::compute_single() {
  const auto& api = graph_->plugin_->api();
  if (!WASINN_PLUGIN_HAS(api, compute_single)) return unsupported_streaming(*graph_->plugin_, "compute_single");
  PluginDiag diag;
  const int status =
      call_plugin(graph_->plugin_->name(), "compute_single", [&] { return api.compute_single(handle_, diag.get()); });
  take_token_stats();
  if (status != WASINN_OK) return diag.to_error(status, "compute_single");
  return {};
}

Result<TensorView> ExecutionContext::get_output_single(const TensorId& id) {
  const auto& api = graph_->plugin_->api();
  if (!WASINN_PLUGIN_HAS(api, get_output_single)) {
    return unsupported_streaming(*graph_->plugin_, "get_output_single");
  }
  const wasinn_tensor_id pid = to_plugin_id(id);
  wasinn_tensor t{};
  PluginDiag diag;
  const int status = call_plugin(graph_->plugin_->name(), "get_output_single",
                                 [&] { return api.get_output_single(handle_, &pid, &t, diag.get()); });
  if (status != WASINN_OK) return diag.to_error(status, "get_output_single");
  return view_of(t, "get_output_single");
}

Status ExecutionContext::fini_single() {
  const auto& api = graph_->plugin_->api();
  if (!WASINN_PLUGIN_HAS(api, fini_single)) return unsupported_streaming(*graph_->plugin_, "fini_single");
  PluginDiag diag;
  const int status =
      call_plugin(graph_->plugin_->name(), "fini_single", [&] { return api.fini_single(handle_, diag.get()); });
  take_token_stats();
  if (status != WASINN_OK) return diag.to_error(status, "fini_single");
  return {};
}

bool ExecutionContext::cancel(const void* tag) {
  std::lock_guard lock(mu_);
  // Under the lock: a waiter between its check of `stop` and its wait would miss a bare notify.
  freed_.notify_all();
  if (!in_use_ || (tag && holder_ != tag)) return false;
  cancelling_.store(true, std::memory_order_release);
  // Under the lock, so it cannot reach the next holder's compute.
  const auto& api = graph_->plugin_->api();
  if (WASINN_PLUGIN_HAS(api, cancel)) api.cancel(handle_);
  return true;
}

bool ExecutionContext::repeat_cancel() {
  std::lock_guard lock(mu_);
  if (!in_use_ || !cancelling_.load(std::memory_order_relaxed)) return false;
  const auto& api = graph_->plugin_->api();
  if (WASINN_PLUGIN_HAS(api, cancel)) api.cancel(handle_);
  return true;
}

}  // namespace wasinn
