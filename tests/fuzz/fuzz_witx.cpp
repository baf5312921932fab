// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// libFuzzer target: every function of the witx guest ABI (wasinn::ephemeral_nn, module
// wasi_ephemeral_nn) called in fuzzed order with fuzzed i32 arguments against fuzzed guest
// memory, through a real GuestMemoryView and NnSession. Linked with fake_world.cpp
// (fuzz_witx_fake) or ort_world.cpp (fuzz_witx_real). Input format: call_script.h.
// WASINN_FUZZ_THREADS=2: two threads run the input's calls at once on one session and one
// guest memory, as two wasi-threads of one guest do; only what holds under any interleaving is
// checked then (errnos, details, no crash), not the per-call memory and handle-count invariants.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <thread>

#include "abi/ephemeral_nn.h"
#include "abi/ephemeral_nn_ext.h"
#include "abi_world.h"
#include "call_script.h"
#include "seed_script.h"
#include "core/nn_session.h"

namespace nn = wasinn::ephemeral_nn;
using namespace wasinn;
using namespace wasinn::fuzz;

namespace {

enum Op : uint32_t {
  kLoad,
  kLoadByName,
  kLoadByNameWithConfig,
  kInit,
  kSetInput,
  kCompute,
  kGetOutput,
  kComputeSingle,
  kGetOutputSingle,
  kFiniSingle,
  kUnload,
  kFinalize,
  kPoke,
  // wasinn's own, beyond the spec (abi/ephemeral_nn_ext.h); after kPoke, so older inputs keep their meaning
  kIoCount,
  kIoInfo,
  kListProperties,
  kGetProperty,
  kSetProperty,
  kSetContextProperty,
  kPrompt,
  kOpCount
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
  {  // beyond the spec: describe, properties (a model name is no property), prompt on a tensor model
    ScriptWriter s = load();
    s.op(kIoCount).raw(0).raw(0).item("slot2").op(kIoCount).raw(0).raw(1).item("slot2");
    s.op(kIoInfo).raw(0).raw(0).raw(0).item("output").raw(64).item("slot").item("slot2").item("output").raw(4).item(
        "slot2");
    s.op(kIoInfo).raw(0).raw(1).raw(0).item("output").raw(0).item("slot").item("slot2").item("output").raw(0).item(
        "slot2");
    s.op(kListProperties).raw(0).item("output").item_len("output").item("slot");
    s.op(kGetProperty).raw(0).item("name").item_len("name").item("output").item_len("output").item("slot");
    s.op(kSetProperty).raw(0).item("name").item_len("name").item("config").item_len("config");
    s.op(kInit)
        .raw(0)
        .item("slot2")
        .op(kSetContextProperty)
        .raw(0)
        .item("name")
        .item_len("name")
        .item("config")
        .item_len("config");
    s.op(kPrompt).raw(0).item("name").item_len("name").item("output").item_len("output").item("slot");
    out.push_back(std::move(s));
  }
  {  // a fact read with no room, then with room; a knob set on the graph, then on a new context
    ScriptWriter s = load();
    s.op(kGetProperty).raw(0).item("prop").item_len("prop").item("output").raw(0).item("slot");
    s.op(kGetProperty).raw(0).item("prop").item_len("prop").item("output").item_len("output").item("slot");
    s.op(kSetProperty).raw(0).item("knob").item_len("knob").item("knob_value").item_len("knob_value");
    s.op(kInit).raw(0).item("slot2");
    s.op(kSetContextProperty).raw(0).item("knob").item_len("knob").item("knob_value").item_len("knob_value");
    infer(s);
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

// Runs the script's calls on `session`. `exclusive`: no other thread uses the session or the
// memory, so each call's writes and handle counts can be checked exactly.
void run_script(const AbiWorld& world, CallScript& script, FuzzGuest& g, NnSession& session, bool exclusive) {
  const auto& items = world.layout.items();
  const nn::Call call{session, g.view()};
  auto a = [&] { return script.arg(g, items); };
  const auto snapshot = [&] {
    if (exclusive) g.snapshot();
  };
  const auto writes_within = [&](std::initializer_list<FuzzGuest::Range> ranges, const char* name) {
    if (exclusive) g.expect_writes_within(ranges, name);
  };
  const auto new_handle = [&](const Status& st, size_t before, size_t after, uint32_t out, const char* name) {
    if (exclusive) expect_new_handle(st, before, after, g, out, script, name);
  };
  const auto one_fewer = [&](const Status& st, size_t before, size_t after, const char* name, const char* what) {
    if (exclusive && after != before - (st.ok() ? 1 : 0)) invariant_failed(name, what);
  };
  uint32_t op;
  while (script.next_op(kOpCount, op)) {
    switch (op) {
      case kLoad: {
        const uint32_t builders = a(), count = a(), encoding = a(), target = a(), out = a();
        if (exclusive) world.before_load(g);
        snapshot();
        const size_t before = session.live_graphs();
        Status st = nn::load(call, builders, count, encoding, target, out);
        check_status(st, "load");
        writes_within({{out, 4}}, "load");
        new_handle(st, before, session.live_graphs(), out, "load");
        break;
      }
      case kLoadByName: {
        const uint32_t name = a(), len = a(), out = a();
        snapshot();
        const size_t before = session.live_graphs();
        Status st = nn::load_by_name(call, name, len, out);
        check_status(st, "load_by_name");
        writes_within({{out, 4}}, "load_by_name");
        new_handle(st, before, session.live_graphs(), out, "load_by_name");
        break;
      }
      case kLoadByNameWithConfig: {
        const uint32_t name = a(), len = a(), config = a(), config_len = a(), out = a();
        snapshot();
        const size_t before = session.live_graphs();
        Status st = nn::load_by_name_with_config(call, name, len, config, config_len, out);
        check_status(st, "load_by_name_with_config");
        writes_within({{out, 4}}, "load_by_name_with_config");
        new_handle(st, before, session.live_graphs(), out, "load_by_name_with_config");
        break;
      }
      case kInit: {
        const uint32_t graph = a(), out = a();
        snapshot();
        const size_t before = session.live_contexts();
        Status st = nn::init_execution_context(call, graph, out);
        check_status(st, "init_execution_context");
        writes_within({{out, 4}}, "init_execution_context");
        new_handle(st, before, session.live_contexts(), out, "init_execution_context");
        break;
      }
      case kSetInput: {
        const uint32_t ctx = a(), index = a(), tensor = a();
        snapshot();
        check_status(nn::set_input(call, ctx, index, tensor), "set_input");
        writes_within({}, "set_input");
        break;
      }
      case kCompute: {
        const uint32_t ctx = a();
        snapshot();
        check_status(nn::compute(call, ctx), "compute");
        writes_within({}, "compute");
        break;
      }
      case kGetOutput:
      case kGetOutputSingle: {
        const uint32_t ctx = a(), index = a(), out = a(), max = a(), written = a();
        const bool single = op == kGetOutputSingle;
        const char* name = single ? "get_output_single" : "get_output";
        snapshot();
        Status st = single ? nn::get_output_single(call, ctx, index, out, max, written)
                           : nn::get_output(call, ctx, index, out, max, written);
        check_status(st, name);
        writes_within({{out, max}, {written, 4}}, name);
        if (exclusive) expect_written_fits(st, g, written, max, name);
        break;
      }
      case kComputeSingle: {
        const uint32_t ctx = a();
        snapshot();
        check_status(nn::compute_single(call, ctx), "compute_single");
        writes_within({}, "compute_single");
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
        Status st = nn::unload(call, graph);
        check_status(st, "unload");
        one_fewer(st, before, session.live_graphs(), "unload", "live graph count");
        break;
      }
      case kFinalize: {
        const uint32_t ctx = a();
        const size_t before = session.live_contexts();
        Status st = nn::finalize_execution_context(call, ctx);
        check_status(st, "finalize_execution_context");
        one_fewer(st, before, session.live_contexts(), "finalize_execution_context", "live context count");
        break;
      }
      case kPoke: {  // the guest changes its own memory between calls
        const uint32_t at = a(), value = a();
        if (exclusive) g.write_u32(at, value);
        break;
      }
      case kIoCount: {
        const uint32_t graph = a(), side = a(), out = a();
        snapshot();
        check_status(nn::graph_io_count(call, graph, side, out), "graph_io_count");
        writes_within({{out, 4}}, "graph_io_count");
        break;
      }
      case kIoInfo: {
        const uint32_t graph = a(), side = a(), index = a(), name = a(), name_max = a(), name_len = a(), type = a(),
                       dims = a(), dims_max = a(), rank = a();
        snapshot();
        check_status(nn::graph_io_info(call, graph, side, index, name, name_max, name_len, type, dims, dims_max, rank),
                     "graph_io_info");
        writes_within({{name, name_max}, {name_len, 4}, {type, 4}, {dims, dims_max * 8ull}, {rank, 4}},
                      "graph_io_info");
        break;
      }
      case kListProperties:
      case kGetProperty:
      case kPrompt: {
        const uint32_t handle = a();
        const uint32_t key = op == kListProperties ? 0 : a(), key_len = op == kListProperties ? 0 : a();
        const uint32_t out = a(), max = a(), written = a();
        const char* name = op == kListProperties ? "graph_list_properties"
                           : op == kGetProperty  ? "graph_get_property"
                                                 : "prompt";
        snapshot();
        Status st = op == kListProperties ? nn::graph_list_properties(call, handle, out, max, written)
                    : op == kGetProperty  ? nn::graph_get_property(call, handle, key, key_len, out, max, written)
                                          : nn::prompt(call, handle, key, key_len, out, max, written);
        check_status(st, name);
        writes_within({{out, max}, {written, 4}}, name);
        if (exclusive) expect_written_fits(st, g, written, max, name);
        break;
      }
      case kSetProperty:
      case kSetContextProperty: {
        const uint32_t handle = a(), key = a(), key_len = a(), value = a(), value_len = a();
        const bool on_context = op == kSetContextProperty;
        const char* name = on_context ? "context_set_property" : "graph_set_property";
        snapshot();
        check_status(on_context ? nn::context_set_property(call, handle, key, key_len, value, value_len)
                                : nn::graph_set_property(call, handle, key, key_len, value, value_len),
                     name);
        writes_within({}, name);
        break;
      }
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  write_seeds_if_asked(seeds(abi_world().layout));
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const bool two_threads = [] {
    const char* t = std::getenv("WASINN_FUZZ_THREADS");
    return t && std::atoi(t) == 2;
  }();
  const AbiWorld& world = abi_world();
  CallScript script({data, size});
  FuzzGuest g(world.layout, script.image());
  {
    NnSession session(world.env);
    if (!two_threads) {
      run_script(world, script, g, session, /*exclusive=*/true);
    } else {
      // The second thread runs the same calls: both contend for the same handles and contexts.
      std::thread other([&] {
        CallScript again({data, size});
        run_script(world, again, g, session, false);
      });
      run_script(world, script, g, session, false);
      other.join();
    }
  }
  world.after_input();
  return 0;
}
