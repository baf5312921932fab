// libFuzzer target: the WIT guest ABI (wasinn::wit_nn::WitSession, what the component binding
// calls once Wasmtime has lifted the canonical ABI) in fuzzed order with fuzzed resources,
// enum cases, dimensions, bytes and names. The lifting itself is Wasmtime's; what a guest can
// still choose freely (which handle, which name, which bytes and in what order) is fuzzed here.
// Linked with fake_world.cpp (fuzz_wit_fake) or ort_world.cpp (fuzz_wit_real); input format:
// call_script.h, values read from the fuzzed guest memory image.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "abi/wit_nn.h"
#include "abi_world.h"
#include "call_script.h"
#include "core/nn_session.h"
#include "seed_script.h"

using namespace wasinn;
using namespace wasinn::fuzz;
namespace wit = wasinn::wit_nn;

namespace {

enum Op : uint32_t {
  kTensorNew, kTensorRead, kTensorDrop, kLoad, kLoadByName, kInit, kDropGraph, kDropContext, kCompute,
  kSetInput, kComputeOld, kGetOutput, kErrorRead, kErrorDrop, kOpCount
};

constexpr std::string_view kTypeCases[] = {"FP16", "FP32", "FP64", "BF16", "U8", "I32", "I64", "fp32", "f32", ""};
constexpr std::string_view kEncodings[] = {"openvino", "onnx", "tensorflow", "pytorch", "tensorflowlite",
                                           "ggml", "autodetect", "ONNX", "nope"};
constexpr std::string_view kTargets[] = {"cpu", "gpu", "tpu", "CPU", "auto", ""};
constexpr std::string_view kNames[] = {"input", "x", "prompt", "metadata", "logits", "a", "b", ""};

// A failed call's error is a WIT error-code with a detail that tells the user something.
void check_error(const Error& e, const char* call) {
  const std::string_view code = wit::error_code_case(e.code);
  if (!wit::decode_error_code(code)) invariant_failed(call, "error code outside the WIT enum");
  if (e.detail.empty()) invariant_failed(call, "error without a detail");
}

template <class T>
void check(const Result<T>& r, const char* call) {
  if (!r) check_error(r.error(), call);
}

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
  std::string_view pick(const std::string_view (&cases)[N]) { return cases[arg() % N]; }
};

void run_script(CallScript& script, FuzzGuest& g, wit::WitSession& wit, const std::vector<GuestItem>& items) {
  Reader r{script, g, items};
  uint32_t op;
  while (script.next_op(kOpCount, op)) {
    switch (op) {
      case kTensorNew: {
        std::vector<uint32_t> dims;
        const uint32_t rank = r.arg() % 6;
        for (uint32_t i = 0; i < rank; ++i) dims.push_back(r.arg() % 70);
        auto type = wit::decode_tensor_type(r.pick(kTypeCases));
        auto data = r.bytes(1 << 16);
        if (!type) break;  // the component model never lifts a case the enum lacks
        const size_t before = wit.live_tensors();
        auto rep = wit.new_tensor(OwnedTensor{*type, std::move(dims), std::move(data)});
        check(rep, "tensor constructor");
        if (wit.live_tensors() != before + (rep ? 1 : 0)) invariant_failed("tensor constructor", "live tensor count");
        if (rep) script.remember_handle(*rep);
        break;
      }
      case kTensorRead: {
        auto t = wit.tensor(r.arg());
        check(t, "tensor.data");
        if (t && !wit::tensor_type_case((*t)->type)) invariant_failed("tensor.ty", "a tensor without a WIT type");
        break;
      }
      case kTensorDrop: (void)wit.drop_tensor(r.arg()); break;
      case kLoad: {
        const uint32_t count = r.arg() % 4;
        std::vector<std::vector<uint8_t>> builders;
        for (uint32_t i = 0; i < count; ++i) builders.push_back(r.bytes(1 << 16));
        std::vector<std::span<const uint8_t>> spans(builders.begin(), builders.end());
        auto graph = wit.load(spans, r.pick(kEncodings), r.pick(kTargets));
        check(graph, "load");
        if (graph) script.remember_handle(*graph);
        break;
      }
      case kLoadByName: {
        auto graph = wit.load_by_name(r.text());
        check(graph, "load-by-name");
        if (graph) script.remember_handle(*graph);
        break;
      }
      case kInit: {
        auto ctx = wit.init_execution_context(r.arg());
        check(ctx, "init-execution-context");
        if (ctx) script.remember_handle(*ctx);
        break;
      }
      case kDropGraph: (void)wit.drop_graph(r.arg()); break;
      case kDropContext: (void)wit.drop_context(r.arg()); break;
      case kCompute: {
        const uint32_t ctx = r.arg();
        const uint32_t n = r.arg() % 4;
        std::vector<wit::NamedRep> inputs;
        for (uint32_t i = 0; i < n; ++i) inputs.push_back({r.text(), r.arg()});
        const size_t before = wit.live_tensors();
        auto outputs = wit.compute(ctx, inputs);
        check(outputs, "compute");
        // Every input handle is consumed whatever the outcome; outputs are new and readable.
        if (wit.live_tensors() > before + (outputs ? outputs->size() : 0)) invariant_failed("compute", "tensors leaked");
        if (outputs) {
          for (const auto& o : *outputs) {
            if (!wit.tensor(o.tensor)) invariant_failed("compute", "an output tensor cannot be read");
            script.remember_handle(o.tensor);
          }
        }
        break;
      }
      case kSetInput: {
        const uint32_t ctx = r.arg();
        const std::string name = r.text();
        Status s = wit.set_input(ctx, name, r.arg());
        if (!s) check_error(s.error(), "set-input");
        break;
      }
      case kComputeOld: {
        Status s = wit.compute(r.arg());
        if (!s) check_error(s.error(), "compute (08-19)");
        break;
      }
      case kGetOutput: {
        const uint32_t ctx = r.arg();
        auto t = wit.get_output(ctx, r.text());
        check(t, "get-output");
        if (t) script.remember_handle(*t);
        break;
      }
      case kErrorRead: {
        auto e = wit.error(r.arg());
        if (e) check_error(**e, "error.data");
        break;
      }
      case kErrorDrop: (void)wit.drop_error(r.arg()); break;
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
    auto session = std::make_shared<NnSession>(world.env);
    wit::WitSession wit(session);
    run_script(script, g, wit, world.layout.items());
  }
  world.after_input();
  return 0;
}
