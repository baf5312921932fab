// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// libFuzzer target: every function of WAMR's legacy guest ABI (wasinn::legacy_nn, module
// wasi_nn) called in fuzzed order with fuzzed i32 arguments against fuzzed guest memory,
// through a real GuestMemoryView and NnSession. Linked with fake_world.cpp (fuzz_legacy_fake)
// or ort_world.cpp (fuzz_legacy_real). Input format: call_script.h.
#include <cstddef>
#include <cstdint>
#include <memory>

#include "abi/legacy_nn.h"
#include "abi_world.h"
#include "call_script.h"
#include "seed_script.h"
#include "core/nn_session.h"

namespace legacy = wasinn::legacy_nn;
using namespace wasinn;
using namespace wasinn::fuzz;

namespace {

enum Op : uint32_t { kLoad, kLoadByName, kInit, kSetInput, kCompute, kGetOutput, kUnloadAll, kPoke, kOpCount };

void expect_new_handle(const Status& s, size_t before, size_t after, FuzzGuest& g, uint32_t out, CallScript& script,
                       const char* call) {
  if (after != before + (s.ok() ? 1 : 0)) invariant_failed(call, "live handle count does not match the result");
  uint32_t h;
  if (s.ok() && g.read_u32(out, h)) script.remember_handle(h);
}

// init_execution_context -> set_input -> compute -> get_output, from a loaded graph.
ScriptWriter& infer(ScriptWriter& s, const char* tensor = "legacy_tensor") {
  s.op(kInit).raw(0).item("slot2");
  s.op(kSetInput).raw(0).raw(0).item(tensor);
  s.op(kCompute).raw(0);
  return s.op(kGetOutput).raw(0).raw(0).item("output").item("legacy_capacity");
}

std::vector<ScriptWriter> seeds(const GuestLayout& l) {
  std::vector<ScriptWriter> out;
  {
    ScriptWriter s(l);
    s.op(kLoad).item("legacy_builders").raw(1).raw(0).item("slot");
    out.push_back(std::move(infer(s)));
  }
  {
    ScriptWriter s(l);
    s.op(kLoadByName).item("name").item_len("name").item("slot");
    out.push_back(std::move(infer(s)));
  }
  {  // F1's rank-0 tensor with dims at an odd address, then the instance goes away mid-use
    ScriptWriter s(l);
    s.op(kLoad).item("legacy_builders").raw(1).raw(0).item("slot");
    infer(s, "legacy_tensor_rank0").op(kUnloadAll).op(kInit).raw(0).item("slot2").op(kCompute).raw(0);
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  write_seeds_if_asked(seeds(abi_world().layout));
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const AbiWorld& world = abi_world();
  const auto& items = world.layout.items();
  CallScript script({data, size});
  FuzzGuest g(world.layout, script.image());
  {
    auto session = std::make_unique<NnSession>(world.env);
    auto a = [&] { return script.arg(g, items); };
    uint32_t op;
    while (script.next_op(kOpCount, op)) {
      const legacy::Call call{*session, g.view()};
      switch (op) {
        case kLoad: {
          const uint32_t header = a(), encoding = a(), target = a(), out = a();
          world.before_load(g);
          g.snapshot();
          const size_t before = session->live_graphs();
          Status s = legacy::load(call, header, encoding, target, out);
          check_status(s, "legacy load");
          g.expect_writes_within({{out, 4}}, "legacy load");
          expect_new_handle(s, before, session->live_graphs(), g, out, script, "legacy load");
          break;
        }
        case kLoadByName: {
          const uint32_t name = a(), len = a(), out = a();
          g.snapshot();
          const size_t before = session->live_graphs();
          Status s = legacy::load_by_name(call, name, len, out);
          check_status(s, "legacy load_by_name");
          g.expect_writes_within({{out, 4}}, "legacy load_by_name");
          expect_new_handle(s, before, session->live_graphs(), g, out, script, "legacy load_by_name");
          break;
        }
        case kInit: {
          const uint32_t graph = a(), out = a();
          g.snapshot();
          const size_t before = session->live_contexts();
          Status s = legacy::init_execution_context(call, graph, out);
          check_status(s, "legacy init_execution_context");
          g.expect_writes_within({{out, 4}}, "legacy init_execution_context");
          expect_new_handle(s, before, session->live_contexts(), g, out, script, "legacy init_execution_context");
          break;
        }
        case kSetInput: {
          const uint32_t ctx = a(), index = a(), tensor = a();
          g.snapshot();
          check_status(legacy::set_input(call, ctx, index, tensor), "legacy set_input");
          g.expect_writes_within({}, "legacy set_input");
          break;
        }
        case kCompute: {
          const uint32_t ctx = a();
          g.snapshot();
          check_status(legacy::compute(call, ctx), "legacy compute");
          g.expect_writes_within({}, "legacy compute");
          break;
        }
        case kGetOutput: {
          const uint32_t ctx = a(), index = a(), out = a(), size_inout = a();
          // Capacity counts f32 elements; what the buffer may receive is read before the call.
          uint32_t capacity = 0;
          g.read_u32(size_inout, capacity);
          g.snapshot();
          Status s = legacy::get_output(call, ctx, index, out, size_inout);
          check_status(s, "legacy get_output");
          g.expect_writes_within({{out, uint64_t{capacity} * 4}, {size_inout, 4}}, "legacy get_output");
          uint32_t elements;
          if (s.ok() && (!g.read_u32(size_inout, elements) || elements > capacity)) {
            invariant_failed("legacy get_output", "size written exceeds the capacity");
          }
          break;
        }
        case kUnloadAll:  // WAMR guests have no unload: the instance going away frees everything
          session = std::make_unique<NnSession>(world.env);
          break;
        case kPoke: {
          const uint32_t at = a(), value = a();
          g.write_u32(at, value);
          break;
        }
      }
    }
  }
  world.after_input();
  return 0;
}
