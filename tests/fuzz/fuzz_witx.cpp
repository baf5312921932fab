// libFuzzer target: every function of the witx guest ABI (wasinn::ephemeral_nn, module
// wasi_ephemeral_nn) called in fuzzed order with fuzzed i32 arguments against fuzzed guest
// memory, through a real GuestMemoryView and NnSession. Linked with fake_world.cpp
// (fuzz_witx_fake) or ort_world.cpp (fuzz_witx_real). Input format: call_script.h.
#include <cstddef>
#include <cstdint>

#include "abi/ephemeral_nn.h"
#include "abi_world.h"
#include "call_script.h"
#include "seed_script.h"
#include "core/nn_session.h"

namespace nn = wasinn::ephemeral_nn;
using namespace wasinn;
using namespace wasinn::fuzz;

namespace {

enum Op : uint32_t {
  kLoad, kLoadByName, kLoadByNameWithConfig, kInit, kSetInput, kCompute, kGetOutput, kComputeSingle,
  kGetOutputSingle, kFiniSingle, kUnload, kFinalize, kPoke, kOpCount
};

// A new graph or context exists exactly when the call succeeded, and its handle was stored.
void expect_new_handle(const Status& s, size_t before, size_t after, FuzzGuest& g, uint32_t out, CallScript& script,
                       const char* call) {
  if (after != before + (s.ok() ? 1 : 0)) invariant_failed(call, "live handle count does not match the result");
  uint32_t h;
  if (s.ok() && g.read_u32(out, h)) script.remember_handle(h);
}

// get_output*: on success the bytes written fit the buffer.
void expect_written_fits(const Status& s, FuzzGuest& g, uint32_t written_out, uint32_t out_max, const char* call) {
  uint32_t written;
  if (s.ok() && (!g.read_u32(written_out, written) || written > out_max)) {
    invariant_failed(call, "bytes_written exceeds the buffer");
  }
}

// load -> init_execution_context -> set_input -> compute -> get_output, from a loaded graph.
ScriptWriter& infer(ScriptWriter& s) {
  s.op(kInit).raw(0).item("slot2");
  s.op(kSetInput).raw(0).raw(0).item("tensor");
  s.op(kCompute).raw(0);
  return s.op(kGetOutput).raw(0).raw(0).item("output").item_len("output").item("slot");
}

std::vector<ScriptWriter> seeds(const GuestLayout& l) {
  std::vector<ScriptWriter> out;
  auto load = [&] {
    return std::move(ScriptWriter(l).op(kLoad).item("builders").item_len("builders").raw(1).raw(0).item("slot"));
  };
  {
    ScriptWriter s = load();
    infer(s).op(kFinalize).raw(0).op(kUnload).raw(0);
    out.push_back(std::move(s));
  }
  {
    ScriptWriter s(l);
    s.op(kLoadByName).item("name").item_len("name").item("slot");
    out.push_back(std::move(infer(s)));
  }
  {
    ScriptWriter s(l);
    s.op(kLoadByNameWithConfig).item("name").item_len("name").item("config").item_len("config").item("slot");
    out.push_back(std::move(infer(s)));
  }
  {
    ScriptWriter s(l);
    s.op(kLoad).item("stream_builders").item_len("stream_builders").raw(1).raw(0).item("slot");
    s.op(kInit).raw(0).item("slot2");
    for (int i = 0; i < 4; ++i) {
      s.op(kComputeSingle).raw(0);
      s.op(kGetOutputSingle).raw(0).raw(0).item("output").item_len("output").item("slot");
    }
    s.op(kFiniSingle).raw(0);
    out.push_back(std::move(s));
  }
  {  // F1: a rank-0 tensor whose (empty) dims array sits at an odd address
    ScriptWriter s = load();
    s.op(kInit).raw(0).item("slot2").op(kSetInput).raw(0).raw(0).item("tensor_rank0").op(kCompute).raw(0);
    out.push_back(std::move(s));
  }
  {  // too small a buffer, then handles used after unload and finalize, and finalized twice
    ScriptWriter s = load();
    infer(s).op(kGetOutput).raw(0).raw(0).item("output").raw(4).item("slot");
    s.op(kUnload).raw(0).op(kInit).raw(0).item("slot2").op(kFinalize).raw(0).op(kFinalize).raw(0).op(kCompute).raw(0);
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
    NnSession session(world.env);
    const nn::Call call{session, g.view()};
    auto a = [&] { return script.arg(g, items); };
    uint32_t op;
    while (script.next_op(kOpCount, op)) {
      switch (op) {
        case kLoad: {
          const uint32_t builders = a(), count = a(), encoding = a(), target = a(), out = a();
          world.before_load(g);
          g.snapshot();
          const size_t before = session.live_graphs();
          Status s = nn::load(call, builders, count, encoding, target, out);
          check_status(s, "load");
          g.expect_writes_within({{out, 4}}, "load");
          expect_new_handle(s, before, session.live_graphs(), g, out, script, "load");
          break;
        }
        case kLoadByName: {
          const uint32_t name = a(), len = a(), out = a();
          g.snapshot();
          const size_t before = session.live_graphs();
          Status s = nn::load_by_name(call, name, len, out);
          check_status(s, "load_by_name");
          g.expect_writes_within({{out, 4}}, "load_by_name");
          expect_new_handle(s, before, session.live_graphs(), g, out, script, "load_by_name");
          break;
        }
        case kLoadByNameWithConfig: {
          const uint32_t name = a(), len = a(), config = a(), config_len = a(), out = a();
          g.snapshot();
          const size_t before = session.live_graphs();
          Status s = nn::load_by_name_with_config(call, name, len, config, config_len, out);
          check_status(s, "load_by_name_with_config");
          g.expect_writes_within({{out, 4}}, "load_by_name_with_config");
          expect_new_handle(s, before, session.live_graphs(), g, out, script, "load_by_name_with_config");
          break;
        }
        case kInit: {
          const uint32_t graph = a(), out = a();
          g.snapshot();
          const size_t before = session.live_contexts();
          Status s = nn::init_execution_context(call, graph, out);
          check_status(s, "init_execution_context");
          g.expect_writes_within({{out, 4}}, "init_execution_context");
          expect_new_handle(s, before, session.live_contexts(), g, out, script, "init_execution_context");
          break;
        }
        case kSetInput: {
          const uint32_t ctx = a(), index = a(), tensor = a();
          g.snapshot();
          check_status(nn::set_input(call, ctx, index, tensor), "set_input");
          g.expect_writes_within({}, "set_input");
          break;
        }
        case kCompute: {
          const uint32_t ctx = a();
          g.snapshot();
          check_status(nn::compute(call, ctx), "compute");
          g.expect_writes_within({}, "compute");
          break;
        }
        case kGetOutput:
        case kGetOutputSingle: {
          const uint32_t ctx = a(), index = a(), out = a(), max = a(), written = a();
          const bool single = op == kGetOutputSingle;
          const char* name = single ? "get_output_single" : "get_output";
          g.snapshot();
          Status s = single ? nn::get_output_single(call, ctx, index, out, max, written)
                            : nn::get_output(call, ctx, index, out, max, written);
          check_status(s, name);
          g.expect_writes_within({{out, max}, {written, 4}}, name);
          expect_written_fits(s, g, written, max, name);
          break;
        }
        case kComputeSingle: {
          const uint32_t ctx = a();
          g.snapshot();
          check_status(nn::compute_single(call, ctx), "compute_single");
          g.expect_writes_within({}, "compute_single");
          break;
        }
        case kFiniSingle: {
          const uint32_t ctx = a();
          check_status(nn::fini_single(call, ctx), "fini_single");
          break;
        }
        case kUnload: {
          const uint32_t graph = a();
          const size_t before = session.live_graphs();
          Status s = nn::unload(call, graph);
          check_status(s, "unload");
          if (session.live_graphs() != before - (s.ok() ? 1 : 0)) invariant_failed("unload", "live graph count");
          break;
        }
        case kFinalize: {
          const uint32_t ctx = a();
          const size_t before = session.live_contexts();
          Status s = nn::finalize_execution_context(call, ctx);
          check_status(s, "finalize_execution_context");
          if (session.live_contexts() != before - (s.ok() ? 1 : 0)) {
            invariant_failed("finalize_execution_context", "live context count");
          }
          break;
        }
        case kPoke: {  // the guest changes its own memory between calls
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
