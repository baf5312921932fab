// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// wasi_ephemeral_nn handles and the calls after set_input: stale, unknown and twice-released
// handles, compute without inputs, get_output before compute, output buffers too small or out
// of range, out-pointers overlapping the output buffer, streaming calls on a non-LLM backend.
#include <algorithm>

#include "matrix_case.h"

namespace wasinn::bad_input {
namespace {

constexpr uint32_t kNeverCreated = 1000000;  // handles count up from 0; no case makes a million

struct OutputCall {
  uint32_t buffer;
  uint32_t max;
  uint32_t written;
};

// get_output of index `index` into a fresh buffer of `max` bytes; on failure neither the
// buffer nor bytes_written may change (except too_large, which reports the needed size).
Status output(CaseRun& r, uint32_t ctx, uint32_t index, uint32_t max, OutputCall* call = nullptr) {
  OutputCall c{r.guest.buffer(std::max<uint32_t>(max, 4)), max, r.guest.out_u32()};
  const Status st = nn::get_output(r.call(), ctx, index, c.buffer, c.max, c.written);
  if (!st.ok()) {
    EXPECT_TRUE(r.untouched(c.buffer, std::max<uint32_t>(max, 4)));
    if (nn::errno_of(st) != kTooLarge) {
      EXPECT_TRUE(r.untouched(c.written));
    }
  }
  if (call) *call = c;
  return st;
}

Status init_expect_untouched(CaseRun& r, uint32_t graph) {
  const uint32_t out = r.guest.out_u32();
  const Status st = nn::init_execution_context(r.call(), graph, out);
  EXPECT_TRUE(r.untouched(out));
  return r.tracked_context(st, out);
}

const CaseList handle_cases{
    {"ephemeral_handles", "init_graph_never_created", E, kNone, kInvalidArgument,
     "init_execution_context: graph handle 1000000",
     [](CaseRun& r) { return init_expect_untouched(r, kNeverCreated); }},
    {"ephemeral_handles", "init_graph_u32_max", E, kNone, kInvalidArgument,
     "init_execution_context: graph handle 0xFFFFFFFF",
     [](CaseRun& r) { return init_expect_untouched(r, 0xFFFFFFFF); }},
    {"ephemeral_handles", "init_graph_after_unload", E, kOrt, kInvalidArgument,
     "init_execution_context on a graph the guest unloaded",
     [](CaseRun& r) {
       const uint32_t g = r.graph(kOrt);
       EXPECT_EQ(nn::errno_of(nn::unload(r.call(), g)), kSuccess);
       return init_expect_untouched(r, g);
     }},
    {"ephemeral_handles", "init_ctx_out_out_of_range", E, kOrt, kInvalidArgument,
     "init_execution_context: context out-pointer 0xFFFFFFF0 (no context may be created)",
     [](CaseRun& r) { return nn::init_execution_context(r.call(), r.graph(kOrt), kWildPtr); }},
    {"ephemeral_handles", "init_ctx_out_overlaps_graph_out", E, kOrt, kSuccess,
     "init_execution_context: context out-pointer is where the graph handle was stored",
     [](CaseRun& r) {
       const uint32_t out = r.guest.out_u32();
       EXPECT_EQ(nn::errno_of(
                     r.tracked_graph(nn::load(r.call(), r.fixture_builders({"digits/model.onnx"}), 1, 1, 0, out), out)),
                 kSuccess);
       return r.tracked_context(nn::init_execution_context(r.call(), r.guest.u32_at(out), out), out);
     }},
    {"ephemeral_handles", "graph_table_full", E, kOrt, kTooLarge,
     "load_by_name until the guest holds 1024 live graphs (the default limit), then once more",
     [](CaseRun& r) {
       const uint32_t name = r.guest.put(HostUnderTest::kDigitsOnnx);
       const uint32_t out = r.guest.out_u32();
       for (int i = 0; i < 1100; ++i) {
         const Status st = r.tracked_graph(nn::load_by_name(r.call(), name, 6, out), out);
         if (!st.ok()) {
           EXPECT_EQ(r.host.session().live_graphs(), r.host.env().limits().max_graphs);
           return st;
         }
       }
       return Status{};
     }},
    {"ephemeral_handles", "context_table_full", E, kOrt, kTooLarge,
     "init_execution_context until the guest holds 4096 live contexts (the default limit), then once more",
     [](CaseRun& r) {
       const uint32_t g = r.graph(kOrt);
       const uint32_t out = r.guest.out_u32();
       for (int i = 0; i < 4200; ++i) {
         const Status st = r.tracked_context(nn::init_execution_context(r.call(), g, out), out);
         if (!st.ok()) {
           EXPECT_EQ(r.host.session().live_contexts(), r.host.env().limits().max_contexts);
           return st;
         }
       }
       return Status{};
     }},
    {"ephemeral_handles", "unload_twice", E, kOrt, kInvalidArgument, "unload the same graph twice",
     [](CaseRun& r) {
       const uint32_t g = r.graph(kOrt);
       EXPECT_EQ(nn::errno_of(nn::unload(r.call(), g)), kSuccess);
       return nn::unload(r.call(), g);
     }},
    {"ephemeral_handles", "unload_never_created", E, kNone, kInvalidArgument, "unload graph handle 1000000",
     [](CaseRun& r) { return nn::unload(r.call(), kNeverCreated); }},
    {"ephemeral_handles", "finalize_twice", E, kOrt, kInvalidArgument,
     "finalize_execution_context twice on one context",
     [](CaseRun& r) {
       const uint32_t c = r.context(kOrt);
       EXPECT_EQ(nn::errno_of(nn::finalize_execution_context(r.call(), c)), kSuccess);
       return nn::finalize_execution_context(r.call(), c);
     }},
    {"ephemeral_handles", "finalize_never_created", E, kNone, kInvalidArgument,
     "finalize_execution_context on handle 1000000",
     [](CaseRun& r) { return nn::finalize_execution_context(r.call(), kNeverCreated); }},
    {"ephemeral_handles", "set_input_after_finalize", E, kOrt, kInvalidArgument, "set_input on a finalized context",
     [](CaseRun& r) {
       const uint32_t c = r.context(kOrt);
       EXPECT_EQ(nn::errno_of(nn::finalize_execution_context(r.call(), c)), kSuccess);
       return nn::set_input(r.call(), c, 0, r.digit_tensor());
     }},
    {"ephemeral_handles", "compute_after_finalize", E, kOrt, kInvalidArgument, "compute on a finalized context",
     [](CaseRun& r) {
       const uint32_t c = r.fed_context(kOrt);
       EXPECT_EQ(nn::errno_of(nn::finalize_execution_context(r.call(), c)), kSuccess);
       return nn::compute(r.call(), c);
     }},
    {"ephemeral_handles", "get_output_after_finalize", E, kOrt, kInvalidArgument,
     "get_output on a computed context after finalize",
     [](CaseRun& r) {
       const uint32_t c = r.computed_context(kOrt);
       EXPECT_EQ(nn::errno_of(nn::finalize_execution_context(r.call(), c)), kSuccess);
       return output(r, c, 0, 64);
     }},
    {"ephemeral_handles", "context_outlives_unloaded_graph", E, kOrt, kSuccess,
     "unload a graph, then set_input/compute/get_output on its context (the context keeps it alive)",
     [](CaseRun& r) -> Status {
       const uint32_t g = r.graph(kOrt);
       const uint32_t out = r.guest.out_u32();
       EXPECT_EQ(nn::errno_of(r.tracked_context(nn::init_execution_context(r.call(), g, out), out)), kSuccess);
       const uint32_t c = r.guest.u32_at(out);
       EXPECT_EQ(nn::errno_of(nn::unload(r.call(), g)), kSuccess) << "unload of the context's graph";
       if (auto st = nn::set_input(r.call(), c, 0, r.digit_tensor()); !st.ok()) return st;
       if (auto st = nn::compute(r.call(), c); !st.ok()) return st;
       OutputCall got{};
       const Status st = output(r, c, 0, 40, &got);
       if (st.ok()) {
         const auto logits = r.guest.f32s_at(got.buffer, 10);
         EXPECT_EQ(std::max_element(logits.begin(), logits.end()) - logits.begin(), r.host.digit(r.sample).label);
       }
       return st;
     }},
};

const CaseList compute_cases{
    {"ephemeral_compute", "without_inputs", E, kOrt, kInvalidArgument, "compute before any set_input",
     [](CaseRun& r) { return nn::compute(r.call(), r.context(kOrt)); }},
    {"ephemeral_compute", "context_never_created", E, kNone, kInvalidArgument, "compute on context 1000000",
     [](CaseRun& r) { return nn::compute(r.call(), kNeverCreated); }},
    {"ephemeral_compute", "compute_single_on_onnx", E, kOrt, kUnsupportedOperation,
     "compute_single (token streaming) on an ONNX context",
     [](CaseRun& r) { return nn::compute_single(r.call(), r.fed_context(kOrt)); }},
    {"ephemeral_compute", "fini_single_on_onnx", E, kOrt, kUnsupportedOperation, "fini_single on an ONNX context",
     [](CaseRun& r) { return nn::fini_single(r.call(), r.fed_context(kOrt)); }},
};

const CaseList output_cases{
    {"ephemeral_get_output", "before_compute", E, kOrt, kInvalidArgument, "get_output after set_input, before compute",
     [](CaseRun& r) { return output(r, r.fed_context(kOrt), 0, 64); }},
    {"ephemeral_get_output", "buffer_one_byte_short", E, kOrt, kTooLarge,
     "get_output: 39-byte buffer for 40 bytes of logits (bytes_written must say 40, buffer untouched)",
     [](CaseRun& r) {
       OutputCall c{};
       const Status st = output(r, r.computed_context(kOrt), 0, 39, &c);
       EXPECT_EQ(r.guest.u32_at(c.written), 40u) << "bytes_written must report the needed size";
       return st;
     }},
    {"ephemeral_get_output", "buffer_empty", E, kOrt, kTooLarge, "get_output: out_max 0",
     [](CaseRun& r) {
       OutputCall c{};
       const Status st = output(r, r.computed_context(kOrt), 0, 0, &c);
       EXPECT_EQ(r.guest.u32_at(c.written), 40u) << "bytes_written must report the needed size";
       return st;
     }},
    {"ephemeral_get_output", "buffer_out_of_range", E, kOrt, kInvalidArgument, "get_output: buffer pointer 0xFFFFFFF0",
     [](CaseRun& r) {
       const uint32_t written = r.guest.out_u32();
       const Status st = nn::get_output(r.call(), r.computed_context(kOrt), 0, kWildPtr, 64, written);
       EXPECT_TRUE(r.untouched(written));
       return st;
     }},
    {"ephemeral_get_output", "buffer_past_memory_end", E, kOrt, kInvalidArgument,
     "get_output: 64-byte buffer starting 16 bytes before the end of memory",
     [](CaseRun& r) {
       const uint32_t written = r.guest.out_u32();
       const Status st = nn::get_output(r.call(), r.computed_context(kOrt), 0, r.memory_size() - 16, 64, written);
       EXPECT_TRUE(r.untouched(written));
       return st;
     }},
    {"ephemeral_get_output", "written_out_of_range", E, kOrt, kInvalidArgument,
     "get_output: bytes_written pointer 0xFFFFFFF0",
     [](CaseRun& r) {
       const uint32_t buf = r.guest.buffer(64);
       const Status st = nn::get_output(r.call(), r.computed_context(kOrt), 0, buf, 64, kWildPtr);
       EXPECT_TRUE(r.untouched(buf, 64));
       return st;
     }},
    {"ephemeral_get_output", "written_straddles_memory_end", E, kOrt, kInvalidArgument,
     "get_output: bytes_written pointer at memory size - 2",
     [](CaseRun& r) {
       const uint32_t buf = r.guest.buffer(64);
       const Status st = nn::get_output(r.call(), r.computed_context(kOrt), 0, buf, 64, r.memory_size() - 2);
       EXPECT_TRUE(r.untouched(buf, 64));
       return st;
     }},
    {"ephemeral_get_output", "written_overlaps_buffer", E, kOrt, kSuccess,
     "get_output: bytes_written points at the output buffer itself (count overwrites logit 0)",
     [](CaseRun& r) {
       const uint32_t buf = r.guest.buffer(64);
       const Status st = nn::get_output(r.call(), r.computed_context(kOrt), 0, buf, 64, buf);
       if (st.ok()) {
         EXPECT_EQ(r.guest.u32_at(buf), 40u);
       }
       return st;
     }},
    {"ephemeral_get_output", "index_out_of_range", E, kOrt, kInvalidArgument,
     "get_output index 1 of a one-output model", [](CaseRun& r) { return output(r, r.computed_context(kOrt), 1, 64); }},
    {"ephemeral_get_output", "index_u32_max", E, kOrt, kInvalidArgument, "get_output index 0xFFFFFFFF",
     [](CaseRun& r) { return output(r, r.computed_context(kOrt), 0xFFFFFFFF, 64); }},
    {"ephemeral_get_output", "context_never_created", E, kNone, kInvalidArgument, "get_output on context 1000000",
     [](CaseRun& r) { return output(r, kNeverCreated, 0, 64); }},
    {"ephemeral_get_output", "get_output_single_on_onnx", E, kOrt, kUnsupportedOperation,
     "get_output_single on a computed ONNX context",
     [](CaseRun& r) {
       const uint32_t buf = r.guest.buffer(64);
       const uint32_t written = r.guest.out_u32();
       const Status st = nn::get_output_single(r.call(), r.computed_context(kOrt), 0, buf, 64, written);
       EXPECT_TRUE(r.untouched(written));
       return st;
     }},
};

}  // namespace
}  // namespace wasinn::bad_input
