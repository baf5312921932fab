// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The fake backend: the smallest complete wasinn backend written with the plugin SDK
// (include/wasinn/plugin_sdk.hpp, walked through in docs/backends/writing-a-backend.md), and the
// plugin the host's unit tests drive. Its "models" are texts like "fake:add1" (fake_model.h), so
// every host path (load, io info, streaming, cancel, failures, object lifetimes) runs without a
// framework. fake_hooks.h and fake_control.cpp are test machinery a real backend lacks.
//
// Variants, from compile definitions (tests/unit/CMakeLists.txt): FAKE_NAME (the table's name),
// FAKE_ABI_VERSION (the ABI version the table claims) and FAKE_NO_STREAMING (an older, shorter
// table that ends before compute_single).
//
// Its mistakes get backend_plugin.h's statuses, as a real backend's: an unknown tensor id
// (sdk::resolve_id) and an output asked for before any compute are INVALID_ARGUMENT.
#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "fake_hooks.h"
#include "fake_model.h"
#include "wasinn/plugin_sdk.hpp"
#include "wasinn/plugin_sdk/json_config.hpp"

#ifndef FAKE_NAME
#define FAKE_NAME "fake"
#endif

namespace wasinn::fake {

using sdk::Error;
using sdk::Side;

namespace {

// An owned tensor: an input the context copied, or an output it computed.
struct Tensor {
  int32_t type = WASINN_TYPE_U8;
  std::vector<uint32_t> dims;
  std::vector<uint8_t> data;

  static Tensor text(std::string_view s) {
    return {WASINN_TYPE_U8, {static_cast<uint32_t>(s.size())}, {s.begin(), s.end()}};
  }
  // What get_output hands the host: a view, valid while this tensor lives unchanged.
  wasinn_tensor view() const {
    return {type, static_cast<uint32_t>(dims.size()), dims.data(), data.data(), data.size()};
  }
};

bool wants_f32(Op op) { return op != Op::echo && op != Op::stream && op != Op::describe_load; }

}  // namespace

class FakeGraph;
class FakeContext;

// One per process and plugin. Stateless, so any thread may load with it; a real backend keeps
// its framework's process-wide objects here (an ORT environment, an OpenVINO core).
class FakeBackend {
 public:
  using Graph = FakeGraph;
  using Context = FakeContext;
  static constexpr const char* kName = FAKE_NAME;

  static const char* framework_version() noexcept { return "fake-1.0"; }

  // The operator's --backend-config for this backend: {"fail": true} makes it fail.
  static Error create(std::string_view config, std::unique_ptr<FakeBackend>& out) {
    const std::string_view source = "fake backend config";
    nlohmann::json json;
    std::optional<bool> fail;
    if (Error e = sdk::parse_config_object(config, source, json)) return e;
    if (Error e = sdk::read_bool(json, "fail", source, fail)) return e;
    if (fail.value_or(false)) return sdk::runtime_error("fake: backend_create failed as asked");
    out = std::make_unique<FakeBackend>();
    return {};
  }

  Error load(const sdk::LoadRequest& request, std::unique_ptr<FakeGraph>& out);

  // What `wasinn backends --check` shows of a backend's devices, with fixed answers.
  const std::vector<sdk::Device>& devices() const { return devices_; }
  const char* target_unavailable(int32_t target) const {
    return target == WASINN_TARGET_CPU || target == WASINN_TARGET_AUTO ? nullptr : "the fake backend has only its CPU";
  }

 private:
  std::vector<sdk::Device> devices_{{"fake CPU", "CPU", 1ull << 30, WASINN_TARGET_CPU}};
  LiveCount live_{live_backends};
};

// A loaded model. Immutable after load, so its contexts read it from any thread without a lock.
// sdk::DeclaredIo holds what it declares (io(), read by the host through graph_io_info).
class FakeGraph : public sdk::DeclaredIo {
 public:
  FakeGraph(Model m, std::string description)
      : model(std::move(m)), tokens(split_tokens(model.arg)), load_description(std::move(description)) {
    inputs_ = declared_io(model.op, Side::input);
    outputs_ = declared_io(model.op, Side::output);
  }

  Error create_context(std::unique_ptr<FakeContext>& out);

  // Properties: one fact and one settable knob, "scale" (a number; compute multiplies by it).
  std::span<const sdk::Property> properties() const { return properties_; }
  Error check_property(std::string_view name, std::string_view value) const {
    float unused = 0;
    return parse_scale(name, value, unused);
  }
  static Error parse_scale(std::string_view name, std::string_view value, float& out) {
    if (name != "scale") return sdk::invalid("fake: \"" + std::string(name) + "\" is not settable");
    const std::string text(value);
    char* end = nullptr;
    out = std::strtof(text.c_str(), &end);
    if (text.empty() || *end) return sdk::invalid("fake: \"scale\" must be a number, got \"" + text + "\"");
    return {};
  }

  const Model model;
  const std::vector<std::string> tokens;  // what "fake:stream:a,b,c" yields: a, b, c
  const std::string load_description;     // what "fake:describe_load" computes

 private:
  std::vector<sdk::Property> properties_{{"fake.op", model.name, false}, {"scale", "1", true}};
  LiveCount live_{live_graphs};
};

// The request and its bytes are valid only during this call: the graph keeps copies.
Error FakeBackend::load(const sdk::LoadRequest& request, std::unique_ptr<FakeGraph>& out) {
  if (request.builders().empty()) return sdk::invalid("fake: no builders");
  const wasinn_bytes& b0 = request.builders()[0];
  Model model;
  if (Error e = parse_model({reinterpret_cast<const char*>(b0.data), b0.length}, model)) return e;
  if (model.name == "slow_load") std::this_thread::sleep_for(std::chrono::milliseconds(std::atoi(model.arg.c_str())));
  // Framework log lines go to the host through sdk::log at the framework's own level; the
  // fake logs one per load, as a framework might.
  if (sdk::log_enabled(WASINN_LOG_DEBUG)) sdk::log(WASINN_LOG_DEBUG, "loaded model " + model.name);
  out = std::make_unique<FakeGraph>(std::move(model), describe_load(request));
  ++graph_loads;
  return {};
}

// One inference session: its input, the outputs of its last compute, its place in a stream.
// Used by one thread at a time (the host guarantees it), except cancel().
class FakeContext {
 public:
  explicit FakeContext(const FakeGraph& graph) : graph_(graph) {}

  // The host checked the pointers, the type's range and the limits before this call.
  Error set_input(const wasinn_tensor_id& id, const wasinn_tensor& t) {
    size_t index = 0;
    if (Error e = sdk::resolve_id(graph_.io(Side::input), Side::input, id, index)) return e;
    if (wants_f32(graph_.model.op) && t.type != WASINN_TYPE_F32)
      return sdk::invalid("fake: input must be f32, got type " + std::to_string(t.type));
    // The host checked the length too; a mismatch here is a host bug worth seeing.
    size_t bytes = 0;
    if (!sdk::byte_size(std::span(t.dims, t.rank), sdk::element_size(t.type), bytes) || bytes != t.data_length)
      return sdk::runtime_error("fake: the host passed a tensor whose length does not match");
    if (graph_.model.name == "slow_input")
      std::this_thread::sleep_for(std::chrono::milliseconds(std::atoi(graph_.model.arg.c_str())));
    const auto* data = static_cast<const uint8_t*>(t.data);
    input_ = Tensor{t.type, {t.dims, t.dims + t.rank}, {data, data + t.data_length}};
    outputs_.clear();  // the views get_output handed out end here, as the ABI says
    return {};
  }

  Error compute() {
    const Op op = graph_.model.op;
    if (op == Op::block && !wait_at_gate(cancelled_)) return {WASINN_TIMEOUT, "fake: compute cancelled"};
    if (op == Op::fail_compute) return sdk::runtime_error("fake: compute failed as asked");
    outputs_.clear();
    if (op == Op::describe_load) {
      outputs_.push_back(Tensor::text(graph_.load_description));
    } else if (op == Op::stream) {
      std::string all;
      for (const std::string& token : graph_.tokens) all += token;
      outputs_.push_back(Tensor::text(all));
    } else {
      if (!input_) return sdk::invalid("fake: input 0 is not set");
      Tensor out = *input_;
      if (wants_f32(op)) {
        for (size_t i = 0; i + 4 <= out.data.size(); i += 4) {
          float v;
          std::memcpy(&v, &out.data[i], 4);
          v = (v + 1.0f) * scale_;
          std::memcpy(&out.data[i], &v, 4);
        }
      }
      outputs_.push_back(std::move(out));
    }
    return {};
  }

  Error get_output(const wasinn_tensor_id& id, wasinn_tensor& out) {
    if (outputs_.empty()) return sdk::invalid("fake: no outputs yet: call compute first");
    size_t index = 0;
    if (Error e = sdk::resolve_id(graph_.io(Side::output), Side::output, id, index)) return e;
    out = outputs_[index].view();
    if (graph_.model.op == Op::bad_output && out.data_length >= 4) out.data_length -= 4;
    return {};
  }

  Error set_property(std::string_view name, std::string_view value) {
    return FakeGraph::parse_scale(name, value, scale_);
  }

  // Any thread, while compute runs: a real backend asks its framework to stop (ONNX Runtime:
  // RunOptionsSetTerminate) and compute returns WASINN_TIMEOUT. Here it wakes the gate.
  void cancel() noexcept { cancel_gate_wait(cancelled_); }

  // Token streaming (optional, all three or none): one token per compute_single.
  Error compute_single() {
    if (graph_.model.op != Op::stream)
      return sdk::unsupported("fake: model '" + graph_.model.name + "' does not stream");
    if (next_token_ >= graph_.tokens.size()) {
      token_.reset();
      return {WASINN_END_OF_SEQUENCE, "fake: end of sequence"};
    }
    token_ = Tensor::text(graph_.tokens[next_token_++]);
    return {};
  }

  Error get_output_single(const wasinn_tensor_id& id, wasinn_tensor& out) {
    if (!token_) return sdk::invalid("fake: no token yet: call compute_single first");
    size_t index = 0;
    if (Error e = sdk::resolve_id(graph_.io(Side::output), Side::output, id, index)) return e;
    out = token_->view();
    return {};
  }

  Error fini_single() {
    next_token_ = 0;
    token_.reset();
    return {};
  }

 private:
  const FakeGraph& graph_;  // released by the host only after all its contexts
  std::optional<Tensor> input_;
  std::vector<Tensor> outputs_;  // of the last compute; empty before one
  size_t next_token_ = 0;
  std::optional<Tensor> token_;  // of the last compute_single
  std::atomic<bool> cancelled_{false};
  float scale_ = 1.0f;  // the "scale" property
  LiveCount live_{live_contexts};
};

Error FakeGraph::create_context(std::unique_ptr<FakeContext>& out) {
  if (model.op == Op::fail_context) return sdk::runtime_error("fake: context_create failed as asked");
  out = std::make_unique<FakeContext>(*this);
  return {};
}

// make_api fills the optional entries only when their signatures match exactly (a cancel() not
// noexcept, or two of the three streaming functions, silently leave them out): say so here.
static_assert(sdk::Cancellable<FakeContext> && sdk::Streaming<FakeContext>);
static_assert(sdk::WithProperties<FakeGraph> && sdk::SettableContext<FakeContext>);

}  // namespace wasinn::fake

#if defined(FAKE_ABI_VERSION) || defined(FAKE_NO_STREAMING)
// The test variants: the SDK's table, altered as a plugin of another ABI version or an older,
// shorter one would have it (so not constexpr, unlike WASINN_PLUGIN_DEFINE's).
extern "C" WASINN_PLUGIN_EXPORT const wasinn_backend_api* wasinn_backend_api_v1(void) {
  static const wasinn_backend_api api = [] {
    wasinn_backend_api a = wasinn::sdk::make_api<wasinn::fake::FakeBackend>();
#ifdef FAKE_ABI_VERSION
    a.abi_version = FAKE_ABI_VERSION;
#endif
#ifdef FAKE_NO_STREAMING
    a.struct_size = offsetof(wasinn_backend_api, compute_single);
    wasinn::fake::fill_past_struct_size(a);
#endif
    return a;
  }();
  return &api;
}
#else
WASINN_PLUGIN_DEFINE(wasinn::fake::FakeBackend)
#endif
