// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Graph: a loaded model; ExecutionContext: one inference session of a graph.
//
// A Graph is immutable after load and thread-safe; it is shared (shared_ptr) by its contexts
// and, for named models, by every guest instance in the process. An ExecutionContext keeps its
// Graph alive. It is used by one thread at a time: callers take a Lease first, and a second
// thread asking for a lease on a context in use gets `busy` at once, unless it asked to wait or
// the holder's work was cancelled (then the context is free in a moment, and it waits).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/backend_ports.h"
#include "core/error.h"
#include "core/nn_metrics.h"
#include "core/types.h"

namespace wasinn {

struct IoInfo {
  std::string name;
  std::optional<TensorType> type;            // nullopt: a type no guest ABI can express
  std::optional<std::vector<int64_t>> dims;  // nullopt: unknown rank; -1: dynamic dimension
  std::string framework_type;                // the framework's own words for it, or ""
};

// One property of a graph (wasinn:nn-ext's properties): a fact, or a settable knob whose value
// here is its default. core/graph_properties.cpp has the rules.
struct GraphProperty {
  std::string name;
  std::string value;
  bool settable = false;
};

class ExecutionContext;

class Graph : public std::enable_shared_from_this<Graph> {
 public:
  // properties: query_properties' answer for handle; metrics: the series this graph, its
  // contexts and their calls count into (never null), chosen by the properties' device.
  Graph(std::shared_ptr<LoadedBackend> plugin, wasinn_graph* handle, Encoding encoding,
        std::vector<GraphProperty> properties, std::shared_ptr<GraphMetrics> metrics);
  ~Graph();
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  Result<std::shared_ptr<ExecutionContext>> create_context();

  Encoding encoding() const { return encoding_; }
  const LoadedBackend& plugin() const { return *plugin_; }
  const std::vector<IoInfo>& inputs() const { return inputs_; }
  const std::vector<IoInfo>& outputs() const { return outputs_; }
  // How the framework placed the graph (e.g. the nodes each delegate took), or "".
  const std::string& description() const { return description_; }
  // The host's facts (backend, framework-version, encoding, device), then the plugin's facts,
  // then its settable knobs. Fixed at load.
  const std::vector<GraphProperty>& properties() const { return properties_; }
  // The property called `name`, or invalid_argument naming the near ones.
  Result<const GraphProperty*> property(std::string_view name) const;
  // invalid_argument unless `name` is a settable knob and the plugin takes `value` for it.
  Status check_setting(std::string_view name, std::string_view value) const;
  GraphMetrics& metrics() const { return *metrics_; }

 private:
  friend class ExecutionContext;
  // check_setting with no context; the context's own set_property with one.
  Status apply_setting(wasinn_context* context, std::string_view name, std::string_view value) const;
  std::shared_ptr<LoadedBackend> plugin_;
  wasinn_graph* handle_;
  Encoding encoding_;
  std::vector<IoInfo> inputs_;
  std::vector<IoInfo> outputs_;
  std::string description_;
  std::vector<GraphProperty> properties_;
  std::shared_ptr<GraphMetrics> metrics_;
};

// Who holds an ExecutionContext's lease, for a cancel aimed at one call (wasinn:nn-async's): any
// address unique to the call while it lives, or null. `stop`, if given, ends a wait once true.
struct LeaseHolder {
  const void* tag = nullptr;
  const std::atomic<bool>* stop = nullptr;
};

class ExecutionContext {
 public:
  ExecutionContext(std::shared_ptr<Graph> graph, wasinn_context* handle);
  ~ExecutionContext();
  ExecutionContext(const ExecutionContext&) = delete;
  ExecutionContext& operator=(const ExecutionContext&) = delete;

  // Exclusive use of a context for the length of one call (or, for a generation, of several).
  class Lease {
   public:
    explicit Lease(ExecutionContext* ctx) : ctx_(ctx) {}
    Lease(Lease&& other) noexcept : ctx_(std::exchange(other.ctx_, nullptr)) {}
    Lease& operator=(Lease&&) = delete;
    ~Lease() {
      if (ctx_) ctx_->release();
    }

   private:
    ExecutionContext* ctx_;
  };
  using Holder = LeaseHolder;
  // `busy` when another thread holds the context, unless the holder was cancelled (a cancel is
  // ending it) or `wait`: then once that thread is done. `cancelled` when the holder's `stop`
  // became true while it waited.
  Result<Lease> acquire(bool wait = false, Holder holder = {});

  // Each of these requires a live Lease on this context.
  Status set_input(const TensorId& id, const TensorView& tensor, uint64_t max_tensor_bytes);
  Status compute();
  // The view stays valid until the next set_input, compute or destruction.
  Result<TensorView> get_output(const TensorId& id);
  Status compute_single();
  Result<TensorView> get_output_single(const TensorId& id);
  Status fini_single();
  // A settable knob of the graph, for this context's next compute (checked as check_setting).
  Status set_property(std::string_view name, std::string_view value);
  // The host's WASINN_PROPERTY_CACHE_PARTITION, which a plugin need not declare: one without a
  // prompt cache refuses or ignores it, and is left alone.
  void set_cache_partition(std::string_view partition);

  // Asks the work of the lease's holder to stop: the plugin's cancel now, and the holder's next
  // compute is refused (cancelling()). Callable from any thread without a lease. With a tag, only
  // that holder's work. Whether a lease was held (and so cancelled). Wakes the waiters of
  // acquire, so that one whose `stop` became true returns.
  bool cancel(const void* tag = nullptr);
  // The plugin's cancel again, if the holder is still cancelling: a cancel that lands before the
  // backend starts its run is lost (backend_plugin.h), so the watchdog repeats it. Whether it
  // was still cancelling.
  bool repeat_cancel();
  // Whether the lease's holder was cancelled; the holder's own question, between its steps.
  bool cancelling() const { return cancelling_.load(std::memory_order_acquire); }

  const Graph& graph() const { return *graph_; }

 private:
  Result<TensorView> view_of(const wasinn_tensor& t, const char* what);
  void release();  // the Lease's end
  // Moves what the plugin counted of its language model's tokens into the graph's metrics.
  void take_token_stats();
  std::shared_ptr<Graph> graph_;
  wasinn_context* handle_;
  std::mutex mu_;
  std::condition_variable freed_;
  bool in_use_ = false;                  // under mu_
  const void* holder_ = nullptr;         // the lease's Holder::tag, under mu_
  std::atomic<bool> cancelling_{false};  // written under mu_
};

}  // namespace wasinn
