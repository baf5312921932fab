// A fake wasinn backend plugin for the host's unit tests: "models" are texts like "fake:add1"
// (fake_model.h), so every host path (load, io info, streaming, failures, a compute blocked
// on purpose, object lifetimes) can be driven without a real framework. Variants come from
// compile definitions: FAKE_NAME, FAKE_ABI_VERSION (what the table claims) and
// FAKE_NO_STREAMING (an older, shorter table that ends before compute_single).
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstring>
#include <exception>
#include <mutex>
#include <string>
#include <vector>

#include "fake_control.h"
#include "fake_model.h"
#include "wasinn/backend_plugin.h"

#ifndef FAKE_NAME
#define FAKE_NAME "fake"
#endif
#ifndef FAKE_ABI_VERSION
#define FAKE_ABI_VERSION WASINN_PLUGIN_ABI_VERSION
#endif

namespace {

std::atomic<int64_t> g_live_backends{0}, g_live_graphs{0}, g_live_contexts{0}, g_graph_loads{0},
    g_calls_past_struct{0};

// The gate "fake:block" computes wait at until a test opens it (or the context is cancelled).
std::mutex g_gate_mu;
std::condition_variable g_gate_cv;
int64_t g_blocked = 0;
uint64_t g_gate_generation = 0;

struct Tensor {
  int32_t type = WASINN_TYPE_U8;
  std::vector<uint32_t> dims;
  std::vector<uint8_t> data;
};

Tensor text_tensor(const std::string& text) {
  return Tensor{WASINN_TYPE_U8, {static_cast<uint32_t>(text.size())}, {text.begin(), text.end()}};
}

void fill(const Tensor& t, wasinn_tensor* out) {
  *out = wasinn_tensor{t.type, static_cast<uint32_t>(t.dims.size()), t.dims.data(), t.data.data(),
                       t.data.size()};
}

// No C++ exception may cross the C boundary: a throwing body becomes a runtime error.
template <class Fn>
int guarded(wasinn_diag* diag, Fn&& fn) {
  try {
    return fn();
  } catch (const std::exception& e) {
    wasinn_diag_set(diag, (std::string("fake: ") + e.what()).c_str());
    return WASINN_RUNTIME_ERROR;
  }
}

int fail(wasinn_diag* diag, int status, const std::string& detail) {
  wasinn_diag_set(diag, detail.c_str());
  return status;
}

}  // namespace

struct wasinn_backend {
  std::string config;
};

struct wasinn_graph {
  fake::ParsedModel model;
  std::vector<std::string> tokens;
  std::string load_description;
  std::vector<wasinn_io_info> inputs, outputs;
};

struct wasinn_context {
  const wasinn_graph* graph = nullptr;
  bool has_input = false;
  Tensor input;
  bool computed = false;
  std::vector<Tensor> outputs;
  size_t stream_pos = 0;
  bool has_token = false;
  Tensor token;
  std::atomic<bool> cancelled{false};
};

namespace {

const char* framework_version() { return "fake-1.0"; }

int backend_create(const char* config, size_t length, wasinn_backend** out, wasinn_diag* diag) {
  return guarded(diag, [&] {
    std::string text = config ? std::string(config, length) : std::string();
    if (text.find("\"fail\"") != std::string::npos) {
      return fail(diag, WASINN_RUNTIME_ERROR, "fake: backend_create failed as asked");
    }
    *out = new wasinn_backend{std::move(text)};
    ++g_live_backends;
    return int{WASINN_OK};
  });
}

void backend_destroy(wasinn_backend* backend) {
  delete backend;
  --g_live_backends;
}

std::string describe_load(const wasinn_load_request& r) {
  std::string s = "builders=" + std::to_string(r.builder_count) + " target=" + std::to_string(r.target) +
                  " encoding=" + (r.encoding ? r.encoding : "-") + " config=" +
                  (r.config ? std::string(r.config, r.config_length) : std::string("-")) +
                  " paths=";
  for (size_t i = 0; i < r.builder_count; ++i) {
    s += (i ? "," : "") + std::string(r.paths && r.paths[i] ? r.paths[i] : "-");
  }
  for (size_t i = 1; i < r.builder_count; ++i) {
    s += " b" + std::to_string(i) + "=" +
         std::string(reinterpret_cast<const char*>(r.builders[i].data), r.builders[i].length);
  }
  return s;
}

int graph_load(wasinn_backend*, const wasinn_load_request* request, wasinn_graph** out, wasinn_diag* diag) {
  return guarded(diag, [&] {
    if (request->builder_count == 0) return fail(diag, WASINN_INVALID_ARGUMENT, "fake: no builders");
    const wasinn_bytes& b0 = request->builders[0];
    std::string why;
    auto model = fake::parse_model({reinterpret_cast<const char*>(b0.data), b0.length}, why);
    if (!model) {
      const bool asked = why == "fake: load failed as asked";
      return fail(diag, asked ? WASINN_RUNTIME_ERROR : WASINN_INVALID_ARGUMENT, why);
    }
    auto* g = new wasinn_graph{*model, fake::split_tokens(model->arg), describe_load(*request),
                               fake::declared_io(model->op, false), fake::declared_io(model->op, true)};
    *out = g;
    ++g_live_graphs;
    ++g_graph_loads;
    return int{WASINN_OK};
  });
}

void graph_release(wasinn_graph* graph) {
  delete graph;
  --g_live_graphs;
}

size_t graph_io_count(const wasinn_graph* graph, int is_output) {
  return is_output ? graph->outputs.size() : graph->inputs.size();
}

int graph_io_info(const wasinn_graph* graph, int is_output, size_t index, wasinn_io_info* out) {
  const auto& list = is_output ? graph->outputs : graph->inputs;
  if (index >= list.size()) return WASINN_INVALID_ARGUMENT;
  *out = list[index];
  return WASINN_OK;
}

int context_create(wasinn_graph* graph, wasinn_context** out, wasinn_diag* diag) {
  return guarded(diag, [&] {
    if (graph->model.op == fake::Op::fail_context) {
      return fail(diag, WASINN_RUNTIME_ERROR, "fake: context_create failed as asked");
    }
    auto* ctx = new wasinn_context{};
    ctx->graph = graph;
    *out = ctx;
    ++g_live_contexts;
    return int{WASINN_OK};
  });
}

void context_release(wasinn_context* context) {
  delete context;
  --g_live_contexts;
}

bool wants_f32(fake::Op op) {
  return op != fake::Op::echo && op != fake::Op::stream && op != fake::Op::describe_load;
}

int set_input(wasinn_context* ctx, const wasinn_tensor_id* id, const wasinn_tensor* t, wasinn_diag* diag) {
  return guarded(diag, [&] {
    const size_t n = ctx->graph->inputs.size();
    if (id->name || id->index >= n) {
      return fail(diag, WASINN_INVALID_ARGUMENT,
                  "fake: no input " + std::to_string(id->index) + " (the model has " + std::to_string(n) + ")");
    }
    if (wants_f32(ctx->graph->model.op) && t->type != WASINN_TYPE_F32) {
      return fail(diag, WASINN_INVALID_ARGUMENT, "fake: input must be f32, got type " + std::to_string(t->type));
    }
    uint64_t expected = fake::element_size(t->type);
    for (uint32_t i = 0; i < t->rank; ++i) expected *= t->dims[i];
    if (expected != t->data_length) {
      // The ABI promises the host checked this; a mismatch here is a host bug worth seeing.
      return fail(diag, WASINN_RUNTIME_ERROR, "fake: the host passed a tensor whose length does not match");
    }
    const auto* bytes = static_cast<const uint8_t*>(t->data);
    ctx->input = Tensor{t->type, {t->dims, t->dims + t->rank}, {bytes, bytes + t->data_length}};
    ctx->has_input = true;
    ctx->computed = false;
    ctx->outputs.clear();
    return int{WASINN_OK};
  });
}

// Waits at the gate; false when the context was cancelled instead.
bool wait_at_gate(wasinn_context* ctx) {
  std::unique_lock lock(g_gate_mu);
  const uint64_t generation = g_gate_generation;
  // The ABI: cancel affects only a compute already running, so an earlier one is forgotten.
  ctx->cancelled.store(false);
  ++g_blocked;
  g_gate_cv.notify_all();
  g_gate_cv.wait(lock, [&] { return g_gate_generation != generation || ctx->cancelled.load(); });
  --g_blocked;
  return !ctx->cancelled.exchange(false);
}

int compute(wasinn_context* ctx, wasinn_diag* diag) {
  return guarded(diag, [&] {
    const wasinn_graph& g = *ctx->graph;
    if (g.model.op == fake::Op::block && !wait_at_gate(ctx)) {
      return fail(diag, WASINN_TIMEOUT, "fake: compute cancelled");
    }
    if (g.model.op == fake::Op::fail_compute) return fail(diag, WASINN_RUNTIME_ERROR, "fake: compute failed as asked");
    ctx->outputs.clear();
    if (g.model.op == fake::Op::describe_load) {
      ctx->outputs.push_back(text_tensor(g.load_description));
    } else if (g.model.op == fake::Op::stream) {
      std::string all;
      for (const auto& t : g.tokens) all += t;
      ctx->outputs.push_back(text_tensor(all));
    } else {
      if (!ctx->has_input) return fail(diag, WASINN_INVALID_ARGUMENT, "fake: input 0 is not set");
      Tensor out = ctx->input;
      if (wants_f32(g.model.op)) {
        for (size_t i = 0; i + 4 <= out.data.size(); i += 4) {
          float v;
          std::memcpy(&v, &out.data[i], 4);
          v += 1.0f;
          std::memcpy(&out.data[i], &v, 4);
        }
      }
      ctx->outputs.push_back(std::move(out));
    }
    ctx->computed = true;
    return int{WASINN_OK};
  });
}

int get_output(wasinn_context* ctx, const wasinn_tensor_id* id, wasinn_tensor* out, wasinn_diag* diag) {
  if (!ctx->computed) return fail(diag, WASINN_MISSING_MEMORY, "fake: no output before compute");
  if (id->name || id->index >= ctx->outputs.size()) {
    return fail(diag, WASINN_INVALID_ARGUMENT,
                "fake: no output " + std::to_string(id->index) + " (the model has " +
                    std::to_string(ctx->outputs.size()) + ")");
  }
  fill(ctx->outputs[id->index], out);
  if (ctx->graph->model.op == fake::Op::bad_output && out->data_length >= 4) out->data_length -= 4;
  return WASINN_OK;
}

[[maybe_unused]] int compute_single(wasinn_context* ctx, wasinn_diag* diag) {
  const wasinn_graph& g = *ctx->graph;
  if (g.model.op != fake::Op::stream) {
    return fail(diag, WASINN_UNSUPPORTED_OPERATION, "fake: model '" + g.model.name + "' does not stream");
  }
  if (ctx->stream_pos >= g.tokens.size()) {
    ctx->has_token = false;
    return fail(diag, WASINN_END_OF_SEQUENCE, "fake: end of sequence");
  }
  ctx->token = text_tensor(g.tokens[ctx->stream_pos++]);
  ctx->has_token = true;
  return WASINN_OK;
}

[[maybe_unused]] int get_output_single(wasinn_context* ctx, const wasinn_tensor_id* id, wasinn_tensor* out, wasinn_diag* diag) {
  if (!ctx->has_token) return fail(diag, WASINN_MISSING_MEMORY, "fake: no token before compute_single");
  if (id->name || id->index != 0) return fail(diag, WASINN_INVALID_ARGUMENT, "fake: tokens are output 0 only");
  fill(ctx->token, out);
  return WASINN_OK;
}

[[maybe_unused]] int fini_single(wasinn_context* ctx, wasinn_diag*) {
  ctx->stream_pos = 0;
  ctx->has_token = false;
  return WASINN_OK;
}

[[maybe_unused]] void cancel(wasinn_context* ctx) {
  std::lock_guard lock(g_gate_mu);
  ctx->cancelled.store(true);
  g_gate_cv.notify_all();
}

#ifdef FAKE_NO_STREAMING
// Filled in, but beyond the declared struct_size: a host that honours struct_size never calls them.
int past_struct(wasinn_context*, wasinn_diag*) { ++g_calls_past_struct; return WASINN_OK; }
int past_struct_get(wasinn_context*, const wasinn_tensor_id*, wasinn_tensor*, wasinn_diag*) {
  ++g_calls_past_struct;
  return WASINN_OK;
}
void past_struct_cancel(wasinn_context*) { ++g_calls_past_struct; }
#endif

wasinn_backend_api make_api() {
  wasinn_backend_api api{};
  api.abi_version = FAKE_ABI_VERSION;
  api.struct_size = sizeof(wasinn_backend_api);
  api.name = FAKE_NAME;
  api.framework_version = framework_version;
  api.backend_create = backend_create;
  api.backend_destroy = backend_destroy;
  api.graph_load = graph_load;
  api.graph_release = graph_release;
  api.graph_io_count = graph_io_count;
  api.graph_io_info = graph_io_info;
  api.context_create = context_create;
  api.context_release = context_release;
  api.set_input = set_input;
  api.compute = compute;
  api.get_output = get_output;
#ifdef FAKE_NO_STREAMING
  api.struct_size = offsetof(wasinn_backend_api, compute_single);
  api.compute_single = past_struct;
  api.get_output_single = past_struct_get;
  api.fini_single = past_struct;
  api.cancel = past_struct_cancel;
#else
  api.compute_single = compute_single;
  api.get_output_single = get_output_single;
  api.fini_single = fini_single;
  api.cancel = cancel;
#endif
  return api;
}

}  // namespace

extern "C" {

WASINN_PLUGIN_EXPORT const wasinn_backend_api* wasinn_backend_api_v1(void) {
  static const wasinn_backend_api api = make_api();
  return &api;
}

WASINN_PLUGIN_EXPORT fake_stats fake_get_stats(void) {
  std::lock_guard lock(g_gate_mu);
  return fake_stats{g_live_backends.load(), g_live_graphs.load(), g_live_contexts.load(),
                    g_graph_loads.load(),   g_blocked,            g_calls_past_struct.load()};
}

WASINN_PLUGIN_EXPORT int fake_wait_blocked(int64_t count, int timeout_ms) {
  std::unique_lock lock(g_gate_mu);
  return g_gate_cv.wait_for(lock, std::chrono::milliseconds(timeout_ms), [&] { return g_blocked >= count; }) ? 1 : 0;
}

WASINN_PLUGIN_EXPORT void fake_open_gate(void) {
  std::lock_guard lock(g_gate_mu);
  ++g_gate_generation;
  g_gate_cv.notify_all();
}

}  // extern "C"
