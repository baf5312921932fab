// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// libFuzzer target: the WIT guest ABI through the engine's table (engine/wit_host.h: what the
// typed Rust imports call once Wasmtime has lifted the canonical ABI, with WitSession behind it)
// in fuzzed order with fuzzed resources, enum cases, dimensions, bytes and names. The lifting
// itself is Wasmtime's; what a guest can still choose freely (which handle, which name, which
// bytes and in what order) is fuzzed here, and every status is checked as the Rust side reads it.
// Linked with fake_world.cpp (fuzz_wit_fake) or ort_world.cpp (fuzz_wit_real); input format:
// call_script.h, values read from the fuzzed guest memory image.
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "abi/wit_nn.h"
#include "abi_world.h"
#include "call_script.h"
#include "core/nn_session.h"
#include "engine/guest_state.h"
#include "engine/wit_nn_imports.h"
#include "engine/wit_str.h"
#include "seed_script.h"

using namespace wasinn;
using namespace wasinn::fuzz;
namespace wit = wasinn::wit_nn;

namespace {

enum Op : uint32_t {
  kTensorNew,
  kTensorRead,
  kTensorDrop,
  kLoad,
  kLoadByName,
  kInit,
  kDropGraph,
  kDropContext,
  kCompute,
  kSetInput,
  kComputeOld,
  kGetOutput,
  kErrorRead,
  kErrorDrop,
  // wasinn:nn-ext (beyond the spec); after kErrorDrop, so older inputs keep their meaning
  kDescribe,
  kListProperties,
  kGetProperty,
  kSetProperty,
  kPromptInit,
  kPromptCompute,
  kPromptSet,
  // the prompt's streaming (start, next, metadata); after kPromptSet, likewise
  kPromptStart,
  kPromptNext,
  kPromptMetadata,
  // wasinn:nn-async: compute through a share of the guest on another thread, and cancel
  kAsyncCompute,
  kCancel,
  kOpCount
};

constexpr std::string_view kTypeCases[] = {"FP16", "FP32", "FP64", "BF16", "U8", "I32", "I64", "fp32", "f32", ""};
constexpr std::string_view kEncodings[] = {"openvino", "onnx",       "tensorflow", "pytorch", "tensorflowlite",
                                           "ggml",     "autodetect", "ONNX",       "nope"};
constexpr std::string_view kTargets[] = {"cpu", "gpu", "tpu", "CPU", "auto", ""};
constexpr std::string_view kNames[] = {"input", "x",   "prompt", "metadata", "logits",
                                       "a",     "b",   "",       "backend",  "temp",
                                       "seed",  "0.5", "hot",    "messages", R"([{"role": "user", "content": "hi"}])"};

// The table as the Rust side calls it, for one guest; every status checked on the way back.
struct Table {
  GuestState& state;
  const wasinn_wit_host& t = wit_host_table();
  wasinn_wit_out out{};

  wit::WitSession& wit() { return *state.wit; }
  void* guest() { return &state; }
  // OK, ERR (an error resource with a WIT code and a detail, dropped here) or TRAP with a reason.
  bool ok(wasinn_wit_status status, const char* call) {
    if (status == WASINN_WIT_TRAP) {
      if (out.message.len == 0) invariant_failed(call, "a trap without a reason");
      return false;
    }
    if (status == WASINN_WIT_ERR) {
      const uint32_t err = out.rep;
      wasinn_wit_out e{};
      if (t.error_code(guest(), err, &e) != WASINN_WIT_OK) invariant_failed(call, "an error resource without a code");
      if (!wit::decode_error_code({static_cast<const char*>(e.data), e.len})) {
        invariant_failed(call, "error code outside the WIT enum");
      }
      if (t.error_data(guest(), err, &e) != WASINN_WIT_OK || e.len == 0)
        invariant_failed(call, "error without a detail");
      if (t.drop(guest(), WASINN_WIT_ERROR, err, &e) != WASINN_WIT_OK)
        invariant_failed(call, "an error that cannot be dropped");
      return false;
    }
    if (status != WASINN_WIT_OK) invariant_failed(call, "a status outside the table's three");
    return true;
  }
  // The prompt interface's: ERR is a string ("<error-code>: <detail>"), not an error resource.
  bool ok_text(wasinn_wit_status status, const char* call) {
    if (status == WASINN_WIT_OK) return true;
    if (status != WASINN_WIT_ERR && status != WASINN_WIT_TRAP)
      invariant_failed(call, "a status outside the table's three");
    if (out.message.len == 0) invariant_failed(call, "an error or trap without a reason");
    if (status == WASINN_WIT_ERR) {
      const std::string_view m(out.message.data, out.message.len);
      if (!wit::decode_error_code(m.substr(0, m.find(':')))) invariant_failed(call, "an error that names no WIT code");
    }
    return false;
  }
};

struct Reader {
  CallScript& script;
  FuzzGuest& g;
  const std::vector<GuestItem>& items;
  uint32_t arg() { return script.arg(g, items); }
  // (addr, len) from two arguments, clipped to the memory and to `max` bytes.
  std::vector<uint8_t> bytes(size_t max) {
    const uint32_t at = arg(), len = arg();
    if (at >= g.size()) return {};
    const size_t n = std::min<size_t>({len, g.size() - at, max});
    return {g.data() + at, g.data() + at + n};
  }
  std::string text() {
    const uint32_t sel = arg();
    if (sel % 4 != 0) return std::string(kNames[sel % std::size(kNames)]);
    auto b = bytes(256);
    return {b.begin(), b.end()};
  }
  template <size_t N>
  std::string_view pick(const std::string_view (&cases)[N]) {
    return cases[arg() % N];
  }
};

void run_script(CallScript& script, FuzzGuest& g, Table& t, const std::vector<GuestItem>& items) {
  Reader r{script, g, items};
  wit::WitSession& wit = t.wit();
  wasinn_wit_out& out = t.out;
  // kAsyncCompute's outputs, copied off the worker's thread (what it lent dies with it).
  std::vector<std::string> async_names;
  std::vector<wasinn_wit_named> async_outputs;
  uint32_t op;
  while (script.next_op(kOpCount, op)) {
    out = {};
    switch (op) {
      case kTensorNew: {
        std::vector<uint32_t> dims;
        const uint32_t rank = r.arg() % 6;
        for (uint32_t i = 0; i < rank; ++i) dims.push_back(r.arg() % 70);
        const std::string_view type = r.pick(kTypeCases);
        auto data = r.bytes(1 << 16);
        if (!wit::decode_tensor_type(type)) break;  // the component model never lifts a case the enum lacks
        const size_t before = wit.live_tensors();
        const bool made =
            t.ok(t.t.tensor_new(t.guest(), dims.data(), dims.size(), wit_str(type), {data.data(), data.size()}, &out),
                 "tensor constructor");
        if (wit.live_tensors() != before + (made ? 1 : 0)) invariant_failed("tensor constructor", "live tensor count");
        if (made) script.remember_handle(out.rep);
        break;
      }
      case kTensorRead: {
        const uint32_t rep = r.arg();
        if (t.ok(t.t.tensor_ty(t.guest(), rep, &out), "tensor.ty") &&
            !wit::decode_tensor_type({static_cast<const char*>(out.data), out.len})) {
          invariant_failed("tensor.ty", "a tensor without a WIT type");
        }
        if (t.ok(t.t.tensor_data(t.guest(), rep, &out), "tensor.data") && out.len && !out.data) {
          invariant_failed("tensor.data", "bytes without an address");
        }
        (void)t.ok(t.t.tensor_dimensions(t.guest(), rep, &out), "tensor.dimensions");
        break;
      }
      case kTensorDrop: (void)t.ok(t.t.drop(t.guest(), WASINN_WIT_TENSOR, r.arg(), &out), "tensor drop"); break;
      case kLoad: {
        const uint32_t count = r.arg() % 4;
        std::vector<std::vector<uint8_t>> builders;
        for (uint32_t i = 0; i < count; ++i) builders.push_back(r.bytes(1 << 16));
        std::vector<wasinn_wit_bytes> spans;
        for (const auto& b : builders) spans.push_back({b.data(), b.size()});
        if (t.ok(t.t.graph_load(t.guest(), spans.data(), spans.size(), wit_str(r.pick(kEncodings)),
                                wit_str(r.pick(kTargets)), &out),
                 "load")) {
          script.remember_handle(out.rep);
        }
        break;
      }
      case kLoadByName: {
        const std::string name = r.text();
        if (t.ok(t.t.graph_load_by_name(t.guest(), wit_str(name), &out), "load-by-name"))
          script.remember_handle(out.rep);
        break;
      }
      case kInit: {
        if (t.ok(t.t.graph_init_execution_context(t.guest(), r.arg(), &out), "init-execution-context")) {
          script.remember_handle(out.rep);
        }
        break;
      }
      case kDropGraph: (void)t.ok(t.t.drop(t.guest(), WASINN_WIT_GRAPH, r.arg(), &out), "graph drop"); break;
      case kDropContext: (void)t.ok(t.t.drop(t.guest(), WASINN_WIT_CONTEXT, r.arg(), &out), "context drop"); break;
      case kCompute:
      case kAsyncCompute: {
        const uint32_t ctx = r.arg();
        const uint32_t n = r.arg() % 4;
        std::vector<std::string> names;
        std::vector<uint32_t> reps;
        for (uint32_t i = 0; i < n; ++i) {
          names.push_back(r.text());
          reps.push_back(r.arg());
        }
        std::vector<wasinn_wit_named> inputs;
        for (uint32_t i = 0; i < n; ++i) inputs.push_back({wit_str(names[i]), reps[i]});
        const size_t before = wit.live_tensors();
        bool computed = false;
        if (op == kCompute) {
          computed =
              t.ok(t.t.graph_execution_context_compute_inputs(t.guest(), ctx, inputs.data(), inputs.size(), &out),
                   "compute");
        } else {
          // As nn-async runs it: on another thread, through a share of the guest, with a cancel
          // (the guest dropping the call) from the guest's thread when the script says so, at a
          // drop point it picks: bit 0 cancels; bits 1-2 say when (0: as the worker starts, the
          // only point of older inputs; 1: before it starts; 2: after a wait of the script's
          // choosing, 0-4 ms, mid-compute on a real backend; 3: after the compute ended, a
          // cancel that must touch nothing). A second cancel at once when bit 3 is set.
          const uint32_t drop = r.arg();
          const bool cancel = drop & 1;
          const uint32_t point = (drop >> 1) % 4;
          const bool twice = drop & 8;
          const auto wait = std::chrono::microseconds(point == 2 ? r.arg() % 4096 : 0);
          auto drop_call = [&] {
            for (int k = 0; k < (twice ? 2 : 1); ++k) {
              wasinn_wit_out c{};
              (void)t.t.cancel(t.guest(), ctx, &c);
            }
          };
          wasinn_wit_out share{};
          if (t.t.guest_share(t.guest(), &share) != WASINN_WIT_OK)
            invariant_failed("share", "the guest cannot be shared");
          void* shared = const_cast<void*>(share.data);
          wasinn_wit_status status{};
          std::vector<uint32_t> out_reps;
          std::string message;
          async_names.clear();
          if (cancel && point == 1) drop_call();
          std::thread worker([&] {
            status = t.t.graph_execution_context_compute_inputs(shared, ctx, inputs.data(), inputs.size(), &out);
            for (size_t i = 0; status == WASINN_WIT_OK && i < out.len; ++i) {
              const auto& o = static_cast<const wasinn_wit_named*>(out.data)[i];
              async_names.emplace_back(o.name.data, o.name.len);
              out_reps.push_back(o.tensor);
            }
            message.assign(out.message.data ? out.message.data : "", out.message.len);
          });
          if (cancel && point == 2) std::this_thread::sleep_for(wait);
          if (cancel && (point == 0 || point == 2)) drop_call();
          worker.join();
          if (cancel && point == 3) drop_call();
          async_outputs.clear();
          for (size_t i = 0; i < out_reps.size(); ++i) async_outputs.push_back({wit_str(async_names[i]), out_reps[i]});
          out.message = wit_str(message);
          out.data = async_outputs.data();
          out.len = async_outputs.size();
          computed = t.ok(status, "async compute");
          t.t.guest_release(shared);
        }
        const size_t made = computed ? out.len : 0;
        // Every input handle is consumed whatever the outcome; outputs are new and readable.
        if (wit.live_tensors() > before + made) invariant_failed("compute", "tensors leaked");
        if (computed) {
          const std::vector<wasinn_wit_named> outputs(static_cast<const wasinn_wit_named*>(out.data),
                                                      static_cast<const wasinn_wit_named*>(out.data) + out.len);
          for (const auto& o : outputs) {
            if (o.name.len == 0) invariant_failed("compute", "an output without a name");
            if (!wit.tensor(o.tensor)) invariant_failed("compute", "an output tensor cannot be read");
            script.remember_handle(o.tensor);
          }
        }
        break;
      }
      case kSetInput: {
        const uint32_t ctx = r.arg();
        const std::string name = r.text();
        (void)t.ok(t.t.graph_execution_context_set_input(t.guest(), ctx, wit_str(name), r.arg(), &out), "set-input");
        break;
      }
      case kComputeOld:
        (void)t.ok(t.t.graph_execution_context_compute(t.guest(), r.arg(), &out), "compute (08-19)");
        break;
      case kGetOutput: {
        const uint32_t ctx = r.arg();
        const std::string name = r.text();
        if (t.ok(t.t.graph_execution_context_get_output(t.guest(), ctx, wit_str(name), &out), "get-output"))
          script.remember_handle(out.rep);
        break;
      }
      case kErrorRead: {
        const uint32_t rep = r.arg();
        if (t.ok(t.t.error_code(t.guest(), rep, &out), "error.code") &&
            !wit::decode_error_code({static_cast<const char*>(out.data), out.len})) {
          invariant_failed("error.code", "error code outside the WIT enum");
        }
        (void)t.ok(t.t.error_data(t.guest(), rep, &out), "error.data");
        break;
      }
      case kErrorDrop: (void)t.ok(t.t.drop(t.guest(), WASINN_WIT_ERROR, r.arg(), &out), "error drop"); break;
      case kDescribe: {
        const uint32_t graph = r.arg();
        const bool outputs = r.arg() % 2;
        if (t.ok((outputs ? t.t.describe_outputs : t.t.describe_inputs)(t.guest(), graph, &out), "describe")) {
          for (size_t i = 0; i < out.len; ++i) {
            const auto& io = static_cast<const wasinn_wit_tensor_description*>(out.data)[i];
            if (io.has_tensor_type && !wit::decode_tensor_type(view(io.tensor_type))) {
              invariant_failed("describe", "a type outside the WIT enum");
            }
            if (io.has_dimensions && io.dimensions_len && !io.dimensions) {
              invariant_failed("describe", "dims without an address");
            }
          }
        }
        break;
      }
      case kListProperties: {
        if (t.ok(t.t.properties_list_properties(t.guest(), r.arg(), &out), "list-properties") && out.len && !out.data) {
          invariant_failed("list-properties", "names without an address");
        }
        break;
      }
      case kGetProperty: {
        const uint32_t graph = r.arg();
        const std::string name = r.text();
        (void)t.ok(t.t.properties_get_property(t.guest(), graph, wit_str(name), &out), "get-property");
        break;
      }
      case kSetProperty: {
        const uint32_t rep = r.arg();
        const bool on_context = r.arg() % 2;
        const std::string name = r.text(), value = r.text();
        (void)t.ok((on_context ? t.t.properties_set_context_property : t.t.properties_set_property)(
                       t.guest(), rep, wit_str(name), wit_str(value), &out),
                   "set-property");
        break;
      }
      case kPromptInit: {
        if (t.ok_text(t.t.prompt_init(t.guest(), r.arg(), &out), "prompt init")) script.remember_handle(out.rep);
        break;
      }
      case kPromptCompute: {
        const uint32_t ctx = r.arg();
        const std::string prompt = r.text();
        (void)t.ok_text(t.t.context_compute(t.guest(), ctx, wit_str(prompt), &out), "prompt compute");
        break;
      }
      case kPromptSet: {
        const uint32_t ctx = r.arg();
        const std::string name = r.text(), value = r.text();
        (void)t.ok_text(t.t.context_set_property(t.guest(), ctx, wit_str(name), wit_str(value), &out),
                        "prompt set-property");
        break;
      }
      case kPromptStart: {
        const uint32_t ctx = r.arg();
        const std::string input = r.text(), text = r.text();
        (void)t.ok_text(t.t.context_start(t.guest(), ctx, wit_str(input), wit_str(text), &out), "prompt start");
        break;
      }
      case kPromptNext: {
        // At most a few pieces a call, so an input cannot spend its time on one long answer.
        const uint32_t ctx = r.arg(), pieces = r.arg() % 4 + 1;
        for (uint32_t i = 0; i < pieces; ++i) {
          out = {};
          if (!t.ok_text(t.t.context_next(t.guest(), ctx, &out), "prompt next")) break;
          if (out.rep > 1) invariant_failed("prompt next", "neither some (1) nor none (0)");
          if (out.rep == 0) break;
        }
        break;
      }
      case kPromptMetadata: {
        (void)t.ok_text(t.t.context_metadata(t.guest(), r.arg(), &out), "prompt metadata");
        break;
      }
      case kCancel: (void)t.ok(t.t.cancel(t.guest(), r.arg(), &out), "cancel"); break;
    }
  }
}

std::vector<ScriptWriter> seeds(const GuestLayout& l) {
  std::vector<ScriptWriter> out;
  ScriptWriter s(l);
  s.op(kLoadByName).raw(1).op(kInit).raw(0);
  s.op(kTensorNew).raw(2).raw(1).raw(64).raw(1).item("tensor").raw(256);
  s.op(kCompute).raw(0).raw(1).raw(1).raw(0);
  s.op(kTensorRead).raw(1).op(kDropContext).raw(0).op(kDropGraph).raw(0);
  out.push_back(std::move(s));
  ScriptWriter ext(l);  // beyond the spec: describe, properties, prompt
  ext.op(kLoadByName).raw(1).op(kDescribe).raw(0).raw(0).op(kDescribe).raw(0).raw(1).op(kListProperties).raw(0);
  ext.op(kGetProperty).raw(0).raw(1).raw(8).op(kSetProperty).raw(0).raw(0).raw(1).raw(9).raw(1).raw(11);
  ext.op(kPromptInit).raw(0).op(kInit).raw(0).op(kSetProperty).raw(1).raw(1).raw(1).raw(10).raw(1).raw(12);
  ext.op(kPromptCompute).raw(1).raw(1).raw(2).op(kPromptSet).raw(1).raw(1).raw(9).raw(1).raw(11);
  ext.op(kPromptStart).raw(1).raw(1).raw(13).raw(1).raw(14).op(kPromptNext).raw(1).raw(3).op(kPromptMetadata).raw(1);
  ext.op(kPromptStart).raw(1).raw(1).raw(2).raw(1).raw(14).op(kPromptNext).raw(1).raw(2);
  out.push_back(std::move(ext));
  ScriptWriter async(l);  // wasinn:nn-async: a compute on another thread, cancelled or not
  async.op(kLoadByName).raw(1).op(kInit).raw(0);
  async.op(kTensorNew).raw(2).raw(1).raw(64).raw(1).item("tensor").raw(256);
  async.op(kAsyncCompute).raw(0).raw(1).raw(1).raw(0).raw(0).op(kCancel).raw(0);
  async.op(kTensorNew).raw(2).raw(1).raw(64).raw(1).item("tensor").raw(256);
  async.op(kAsyncCompute).raw(0).raw(1).raw(1).raw(0).raw(1).op(kCancel).raw(7);
  // Every drop point: before the compute, mid-compute after 300 us (twice), after it ended.
  for (uint32_t drop : {3u, 5u + 8u, 7u}) {
    async.op(kTensorNew).raw(2).raw(1).raw(64).raw(1).item("tensor").raw(256);
    async.op(kAsyncCompute).raw(0).raw(1).raw(1).raw(0).raw(drop);
    if (drop == 13u) async.raw(300);
  }
  out.push_back(std::move(async));
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  write_seeds_if_asked(seeds(abi_world().layout));
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const AbiWorld& world = abi_world();
  CallScript script({data, size});
  FuzzGuest g(world.layout, script.image());
  {
    GuestState state;
    state.session = std::make_shared<NnSession>(world.env);
    state.wit = std::make_shared<wit::WitSession>(state.session);
    Table table{state};
    run_script(script, g, table, world.layout.items());
  }
  world.after_input();
  return 0;
}
