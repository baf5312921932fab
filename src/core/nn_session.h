// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// NnSession: one guest's wasi-nn state: its graph and execution-context handle tables.
// The handles belong to the guest as a whole, not to one instance or thread, so every thread
// of a guest shares one NnSession. Thread-safe: distinct contexts run concurrently; a context
// used by two threads at once answers `busy` to the second.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/utf8_pieces.h"
#include "core/async_call.h"
#include "core/error.h"
#include "core/graph.h"
#include "core/handle_table.h"
#include "core/named_io.h"
#include "core/nn_environment.h"
#include "core/types.h"

namespace wasinn {

// An output view together with the exclusive use of its context, so the view stays valid
// while the caller copies it out. Destroy it promptly.
struct HeldOutput {
  std::shared_ptr<ExecutionContext> context;
  ExecutionContext::Lease lease;
  TensorView view;
};

class NnSession {
 public:
  explicit NnSession(std::shared_ptr<NnEnvironment> env);

  Result<uint32_t> load(std::span<const std::span<const uint8_t>> builders, Encoding encoding, Target target);
  Result<uint32_t> load_by_name(std::string_view name, std::string_view config);
  Result<uint32_t> init_execution_context(uint32_t graph);
  Status set_input(uint32_t context, const TensorId& id, const TensorView& tensor);
  Status compute(uint32_t context);
  Result<HeldOutput> get_output(uint32_t context, const TensorId& id);
  Status compute_single(uint32_t context);
  Result<HeldOutput> get_output_single(uint32_t context, const TensorId& id);
  Status fini_single(uint32_t context);
  // WIT's compute: sets the inputs by name (check_named_inputs), computes under the compute
  // budget, and returns every output, copied, under output_name, in the model's order; all
  // under one hold of the context. type_names: how its messages name tensor types.
  Result<std::vector<NamedTensor>> compute_named(uint32_t context, std::span<const NamedInput> inputs,
                                                 TypeNamer type_names = type_name);
  // Frees the guest's handle; the graph dies once its contexts (and other sharers) are gone.
  Status unload(uint32_t graph);
  Status finalize_execution_context(uint32_t context);

  // Beyond the spec (wasinn:nn-ext; docs/compatibility.md). The graph behind a guest's handle,
  // for describing its inputs and outputs.
  Result<std::shared_ptr<const Graph>> graph(uint32_t graph) const;
  // The graph's properties, settable knobs with the value this guest set on the handle.
  Result<std::vector<GraphProperty>> properties(uint32_t graph) const;
  Result<std::string> get_property(uint32_t graph, std::string_view name) const;
  // A settable knob, for the contexts made from this handle afterwards: the graph itself is
  // shared with other guests and never changes.
  Status set_graph_property(uint32_t graph, std::string_view name, std::string_view value);
  Status set_context_property(uint32_t context, std::string_view name, std::string_view value);
  // A context for prompt(), on a text model (ggml) only: unsupported_operation for another.
  Result<uint32_t> init_prompt_context(uint32_t graph);
  // A text model (ggml) in one call, under one hold of the context: the prompt's bytes as input
  // 0, compute under the budget, output 0 as text.
  Result<std::string> prompt(uint32_t context, std::string_view text);
  // The same answer a piece at a time (the plugin's compute_single): prompt_start sets `input`
  // ("prompt", or "messages" for the model's chat template) to `text`; each prompt_next gives
  // the next piece, none once the answer is complete (the model ended it, n-predict, or a full
  // context); prompt_metadata, the plugin's "metadata" output of the generation so far.
  Status prompt_start(uint32_t context, std::string_view input, std::string_view text);
  Result<std::optional<std::string>> prompt_next(uint32_t context);
  Result<std::string> prompt_metadata(uint32_t context);

  // Asks the compute running on `context`, if any, to stop (the plugin's cancel); any thread.
  // Within an AsyncScope, the scope's call is cancelled, and only its own work on the context.
  Status cancel(uint32_t context);

  // wasinn:nn-async (core/async_call.h): a call whose steps run on other threads than the guest's.
  Result<std::shared_ptr<AsyncCall>> begin_async_call() { return async_->begin(); }
  // Within its scope, this thread's calls are steps of `call`: they wait for a busy context
  // instead of failing with busy (they queue behind the call before, which a cancel may be
  // ending), stop once the call is cancelled, and a generation (prompt_start, prompt_next)
  // holds its context from its start to its end. entered() is false once the session closed.
  class AsyncScope {
   public:
    AsyncScope(NnSession& session, AsyncCall& call);
    ~AsyncScope();
    AsyncScope(const AsyncScope&) = delete;
    AsyncScope& operator=(const AsyncScope&) = delete;
    bool entered() const { return entered_; }

   private:
    NnSession& session_;
    bool entered_;
    AsyncCall* before_;
  };
  // At the guest's end (its store is gone): cancels every async call, waits until none of their
  // steps is left in a framework, then frees the session's contexts and graphs on this thread,
  // not on the thread that happens to drop the session last.
  void close_async_calls();

  // invalid_argument when the guest holds no such context.
  Status check_context(uint32_t context) const;
  // Adds BYTES handed to the guest to the context's graph's wasinn_nn_output_bytes_total: for the
  // ABIs that copy compute_named's outputs out later (WIT's tensors), as get_output counts itself.
  void count_output_bytes(uint32_t context, uint64_t bytes) const;

  // The end of the request this session serves (wasinn serve's --request-timeout): a compute
  // running then is cancelled as one past max_compute_ms is, and none starts after it (nor a
  // set_input, whose result is refused when it ends past the deadline); a load's
  // isolated check still running then is killed (the load fails). Set
  // before the session is used; none by default.
  void set_deadline(std::chrono::steady_clock::time_point deadline) { deadline_ = deadline; }
  // The prompt-cache partition of the text-model contexts this session makes (the plugin ABI's
  // WASINN_PROPERTY_CACHE_PARTITION): a served request's API key's, so its prompts reuse only KV
  // its own key's requests left. A guest cannot set it. Set before the session is used; "" by default.
  void set_cache_partition(std::string partition) { cache_partition_ = std::move(partition); }
  // Each context a partition of its own instead: it reuses no other context's KV (a state that
  // serves requests of different keys, or of none).
  void isolate_cache() { isolate_cache_ = true; }
  // The request this session serves (the server's id for it), for the trace lines of its calls
  // (core/request_trace.h); "" for none. Set before the guest runs.
  void set_request_id(std::string id) { request_id_ = std::move(id); }
  const std::string& request_id() const { return request_id_; }

  NnEnvironment& environment() { return *env_; }
  size_t live_graphs() const { return graphs_.size(); }
  size_t live_contexts() const { return contexts_.size(); }

 private:
  // set_input under the request's deadline: none starts after it, and one that ends past it fails.
  Status set_bounded_input(ExecutionContext& c, const TensorId& id, const TensorView& tensor);
  // A text model's input: the text's bytes as a U8 tensor [len].
  Status set_text(ExecutionContext& c, const TensorId& id, std::string_view text);
  // Runs compute or compute_single under the max_compute_ms budget.
  Status run_bounded(uint32_t context, Status (ExecutionContext::*run)());
  Status run_bounded(ExecutionContext& c, Status (ExecutionContext::*run)());
  Result<std::optional<std::string>> next_piece(uint32_t context);
  template <class Fn>
  auto with_context(uint32_t handle, Fn&& fn) -> decltype(fn(std::declval<ExecutionContext&>()));

  // The context handle's lease: waiting as --nn-context-wait (an async call always waits).
  Result<std::pair<std::shared_ptr<ExecutionContext>, ExecutionContext::Lease>> hold(uint32_t handle);

  std::shared_ptr<NnEnvironment> env_;
  std::optional<std::chrono::steady_clock::time_point> deadline_;
  std::string cache_partition_;
  bool isolate_cache_ = false;
  std::string request_id_;
  std::shared_ptr<AsyncCalls> async_;
  HandleTable<Graph> graphs_;
  HandleTable<ExecutionContext> contexts_;
  // set_graph_property's knobs by graph handle, in the order set; gone with the handle.
  mutable std::mutex settings_mu_;
  std::unordered_map<uint32_t, std::vector<std::pair<std::string, std::string>>> settings_;
  // prompt_next's pieces by context handle, each ending on a character; gone with the handle.
  std::unordered_map<uint32_t, Utf8Pieces> pieces_;
};

}  // namespace wasinn
