// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ComponentPipeline over the Rust binding's pipeline_host.h: the engine, the compiled component,
// the epoch ticker behind a call's deadline, and the pool of idle instances.
#include "serve/pipeline/component_pipeline.h"

#include <mutex>

#include <fmt/format.h>

#include "abi/wit_nn.h"
#include "engine/component_instance.h"
#include "engine/epoch_ticker.h"
#include "engine/guest_state.h"
#include "engine/module_bytes.h"
#include "serve/pipeline/pipeline_host.h"
#include "engine/wasmtime_ptr.h"
#include "engine/wit_nn_imports.h"
#include "engine/wit_str.h"
#include "wasinn/host.h"

// pipeline_host.h's records are filled by name, every field: one the header gains and this file
// leaves out, or one reordered, is a build error here (by position, a swap of name and type would
// compile).
#pragma GCC diagnostic error "-Wmissing-field-initializers"

namespace wasinn {

namespace {

// The store is gone: any nn-async work of its guest is cancelled and waited for first.
void free_guest(void*, void* guest) noexcept {
  auto* state = static_cast<GuestState*>(guest);
  state->end_async_calls();
  delete state;
}

// pipeline_host.h: a call stopped at its deadline says "interrupt" (instantiate's error, or an
// answer's message with status 3).
bool past_deadline(std::string_view message) { return message.find("interrupt") != std::string_view::npos; }

struct InstanceDeleter {
  void operator()(wasinn_pipeline_instance* i) const { wasinn_pipeline_instance_free(i); }
};
using InstancePtr = std::unique_ptr<wasinn_pipeline_instance, InstanceDeleter>;

}  // namespace

struct ComponentPipeline::Impl {
  // Declared in the order they must be made; destroyed the other way: instances before the
  // pipeline, the pipeline before its component and engine.
  EnginePtr engine;
  std::unique_ptr<EpochTicker> ticker;
  ComponentPtr component;
  std::shared_ptr<NnEnvironment> env;
  PipelineOptions options;
  std::string name;  // the file, for messages
  wasinn_pipeline* pipeline = nullptr;
  std::vector<IoInfo> inputs, outputs;
  std::vector<std::string> models;  // what its models export names (load-by-name)
  std::mutex mu;
  std::vector<InstancePtr> idle;

  ~Impl() {
    idle.clear();
    if (pipeline) wasinn_pipeline_free(pipeline);
    ticker.reset();
  }

  // A call's deadline in the ticker's ticks (0: none): instantiating and describing get the
  // request's, as infer does, so no guest code runs unbounded.
  uint64_t deadline_ticks() const { return options.timeout_ms ? EpochTicker::ticks_for(options.timeout_ms) : 0; }

  Result<InstancePtr> make_instance() {
    void* guest = GuestState::for_component(env).release();
    wasinn_pipeline_instance* raw = nullptr;
    // The instance owns the guest state from here, even when instantiation fails.
    if (ErrorPtr err(wasinn_pipeline_instantiate(pipeline, guest, deadline_ticks(), &raw)); err) {
      const std::string message = one_line(message_of(err.get()));
      if (past_deadline(message))
        return make_error(Errc::timeout, fmt::format("pipeline {}: instantiating it ran past the deadline ({} ms): {}",
                                                     name, options.timeout_ms, message));
      return make_error(Errc::runtime_error, fmt::format("pipeline {}: cannot instantiate: {}", name, message));
    }
    return InstancePtr(raw);
  }

  InstancePtr take() {
    std::lock_guard lock(mu);
    if (idle.empty()) return nullptr;
    InstancePtr i = std::move(idle.back());
    idle.pop_back();
    return i;
  }

  void give_back(InstancePtr i) {
    std::lock_guard lock(mu);
    if (idle.size() < options.max_idle) idle.push_back(std::move(i));
  }
};

ComponentPipeline::ComponentPipeline(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ComponentPipeline::~ComponentPipeline() = default;

const std::vector<IoInfo>& ComponentPipeline::inputs() const { return impl_->inputs; }
const std::vector<IoInfo>& ComponentPipeline::outputs() const { return impl_->outputs; }
const std::vector<std::string>& ComponentPipeline::models() const { return impl_->models; }

Result<std::unique_ptr<ComponentPipeline>> ComponentPipeline::open(std::shared_ptr<NnEnvironment> env,
                                                                   const std::string& path,
                                                                   const PipelineOptions& options) {
  auto fail = [&](std::string why) {
    return make_error(Errc::invalid_argument, fmt::format("pipeline {}: {}", path, why));
  };
  Program program;
  program.wasm_path = path;
  auto bytes = program_binary(program);  // text converted, as for `wasinn run`
  if (!bytes) return bytes.take_error();
  auto kind = binary_kind(*bytes, path);
  if (!kind) return kind.take_error();
  if (*kind != BinaryKind::component)
    return fail(
        "is a core module; a pipeline is a component that exports wasinn:pipeline/model@0.1.0 "
        "(wit/wasinn-pipeline/pipeline.wit)");

  auto impl = std::make_unique<Impl>();
  wasm_config_t* config = wasm_config_new();
  wasmtime_config_epoch_interruption_set(config, true);
  impl->engine = EnginePtr(wasm_engine_new_with_config(config));
  if (!impl->engine) return fail("cannot create the WebAssembly engine");
  impl->ticker = std::make_unique<EpochTicker>(impl->engine.get());
  auto component = compile_component(impl->engine.get(), *bytes, path);
  if (!component) return component.take_error();
  impl->component = std::move(*component);
  impl->env = std::move(env);
  impl->options = options;
  impl->name = path;

  wasinn_pipeline_config pc{};
  pc.engine = impl->engine.get();
  pc.component = impl->component.get();
  pc.nn = &wit_host_table();
  pc.max_memory_bytes = options.max_memory_bytes;
  pc.hostcall_fuel = hostcall_fuel_for(impl->env->limits());
  pc.inherit_stdio = options.inherit_stdio;
  pc.user = nullptr;
  pc.guest_free = free_guest;
  if (ErrorPtr err(wasinn_pipeline_new(&pc, &impl->pipeline)); err) return fail(one_line(message_of(err.get())));

  // One instance describes the pipeline, and is kept for the first request.
  auto first = impl->make_instance();
  if (!first) return first.take_error();
  wasinn_pipeline_answer a{};
  wasinn_pipeline_describe(first->get(), impl->deadline_ticks(), &a);
  if (a.status != 0) return fail(fmt::format("describe failed: {}", view(a.message)));
  for (size_t i = 0; i < a.inputs + a.outputs; ++i) {
    const wasinn_pipeline_spec& s = a.specs[i];
    auto type = wit_nn::decode_tensor_type(view(s.type));
    if (!type) return fail(type.error().detail);
    IoInfo io{std::string(view(s.name)), *type, std::vector<int64_t>(s.dims, s.dims + s.rank), ""};
    for (int64_t d : *io.dims)
      if (d < -1) return fail(fmt::format("describe gave {} a dimension of {} (-1 is any size)", io.name, d));
    (i < a.inputs ? impl->inputs : impl->outputs).push_back(std::move(io));
  }
  if (impl->inputs.empty()) return fail("describe lists no inputs");
  for (size_t i = 0; i < a.model_count; ++i) impl->models.emplace_back(view(a.models[i]));
  impl->idle.push_back(std::move(*first));
  return std::unique_ptr<ComponentPipeline>(new ComponentPipeline(std::move(impl)));
}

Result<std::vector<NamedTensor>> ComponentPipeline::infer(std::span<const NamedInput> inputs) {
  InstancePtr instance = impl_->take();
  if (!instance) {
    auto made = impl_->make_instance();
    if (!made) return made.take_error();
    instance = std::move(*made);
  }
  std::vector<wasinn_pipeline_tensor> args;
  args.reserve(inputs.size());
  for (const NamedInput& in : inputs) {
    auto type = wit_nn::tensor_type_case(in.tensor.type);
    if (!type) return type.take_error();
    args.push_back({.name = wit_str(in.name),
                    .dims = in.tensor.dims.data(),
                    .rank = in.tensor.dims.size(),
                    .type = wit_str(*type),
                    .data = {.data = in.tensor.data.data(), .len = in.tensor.data.size()}});
  }
  wasinn_pipeline_answer a{};
  wasinn_pipeline_infer(instance.get(), args.data(), args.size(), impl_->deadline_ticks(), &a);
  const std::string message(view(a.message));
  switch (a.status) {
    case 0: break;
    case 1: impl_->give_back(std::move(instance)); return make_error(Errc::invalid_argument, message);
    case 2: impl_->give_back(std::move(instance)); return make_error(Errc::runtime_error, message);
    default: {
      // The instance is done; the next request makes a new one.
      if (past_deadline(message))
        return make_error(Errc::timeout,
                          fmt::format("the pipeline ran past its deadline ({} ms)", impl_->options.timeout_ms));
      return make_error(Errc::runtime_error, fmt::format("the pipeline failed: {}", message));
    }
  }
  std::vector<NamedTensor> outputs;
  outputs.reserve(a.count);
  for (size_t i = 0; i < a.count; ++i) {
    const wasinn_pipeline_tensor& t = a.tensors[i];
    auto type = wit_nn::decode_tensor_type(view(t.type));
    if (!type) return type.take_error();
    OwnedTensor owned{*type, std::vector<uint32_t>(t.dims, t.dims + t.rank),
                      std::vector<uint8_t>(t.data.data, t.data.data + t.data.len)};
    uint64_t elements = 1;
    bool overflow = false;
    for (uint32_t d : owned.dims) overflow |= __builtin_mul_overflow(elements, d, &elements);
    if (overflow || elements * element_size(owned.type) != owned.data.size()) {
      impl_->give_back(std::move(instance));
      return make_error(Errc::runtime_error,
                        fmt::format("the pipeline's output '{}' has {} bytes, not the {} its dimensions and type make",
                                    view(t.name), owned.data.size(), elements * element_size(owned.type)));
    }
    outputs.push_back({std::string(view(t.name)), std::move(owned)});
  }
  impl_->give_back(std::move(instance));
  return outputs;
}

}  // namespace wasinn
