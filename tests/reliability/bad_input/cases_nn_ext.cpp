// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// wasinn's wasi_ephemeral_nn functions beyond the spec (abi/ephemeral_nn_ext.h): handles never
// created, sides and indexes that do not exist, buffers and out-pointers out of range or
// wrapping, names over the limit, read-only and unknown properties, and prompt on a tensor model.
// On a refusal nothing is written, except too_large's needed size.
#include "abi/ephemeral_nn_ext.h"
#include "matrix_case.h"

namespace wasinn::bad_input {
namespace {

constexpr uint32_t kNeverCreated = 1000000;

// graph_io_info into fresh buffers; on a refusal other than too_large nothing may change.
Status io_info(CaseRun& r, uint32_t graph, uint32_t side, uint32_t index, uint32_t name, uint32_t name_max,
               uint32_t dims, uint32_t dims_max) {
  const uint32_t name_len = r.guest.out_u32(), type = r.guest.out_u32(), rank = r.guest.out_u32();
  const Status st =
      nn::graph_io_info(r.call(), graph, side, index, name, name_max, name_len, type, dims, dims_max, rank);
  if (!st.ok() && nn::errno_of(st) != kTooLarge) {
    EXPECT_TRUE(r.untouched(name_len));
    EXPECT_TRUE(r.untouched(type));
    EXPECT_TRUE(r.untouched(rank));
  }
  return st;
}

// A property call's text into a fresh buffer; nothing written on a refusal.
Status get_property(CaseRun& r, uint32_t graph, std::string_view key, uint32_t max = 64) {
  const uint32_t name = r.guest.put(key), buf = r.guest.buffer(std::max<uint32_t>(max, 4)), written = r.guest.out_u32();
  const Status st = nn::graph_get_property(r.call(), graph, name, static_cast<uint32_t>(key.size()), buf, max, written);
  if (!st.ok()) {
    EXPECT_TRUE(r.untouched(buf, std::max<uint32_t>(max, 4)));
    if (nn::errno_of(st) != kTooLarge) {
      EXPECT_TRUE(r.untouched(written));
    }
  }
  return st;
}

Status set_property(CaseRun& r, uint32_t handle, std::string_view key, std::string_view value, bool on_context) {
  const uint32_t k = r.guest.put(key), v = r.guest.put(value);
  const auto kl = static_cast<uint32_t>(key.size()), vl = static_cast<uint32_t>(value.size());
  return on_context ? nn::context_set_property(r.call(), handle, k, kl, v, vl)
                    : nn::graph_set_property(r.call(), handle, k, kl, v, vl);
}

const CaseList nn_ext_cases{
    {"ephemeral_nn_ext", "io_count_graph_never_created", E, kNone, kInvalidArgument,
     "graph_io_count: graph handle 1000000",
     [](CaseRun& r) {
       const uint32_t out = r.guest.out_u32();
       const Status st = nn::graph_io_count(r.call(), kNeverCreated, 0, out);
       EXPECT_TRUE(r.untouched(out));
       return st;
     }},
    {"ephemeral_nn_ext", "io_count_side_2", E, kOrt, kInvalidArgument, "graph_io_count: side 2 (0 inputs, 1 outputs)",
     [](CaseRun& r) {
       const uint32_t out = r.guest.out_u32();
       const Status st = nn::graph_io_count(r.call(), r.graph(kOrt), 2, out);
       EXPECT_TRUE(r.untouched(out));
       return st;
     }},
    {"ephemeral_nn_ext", "io_count_out_out_of_range", E, kOrt, kInvalidArgument,
     "graph_io_count: count out-pointer 0xFFFFFFF0",
     [](CaseRun& r) { return nn::graph_io_count(r.call(), r.graph(kOrt), 0, kWildPtr); }},
    {"ephemeral_nn_ext", "io_info_index_past_end", E, kOrt, kInvalidArgument,
     "graph_io_info: input 1 of a one-input model",
     [](CaseRun& r) { return io_info(r, r.graph(kOrt), 0, 1, r.guest.buffer(64), 64, r.guest.buffer(64), 8); }},
    {"ephemeral_nn_ext", "io_info_name_buffer_wraps", E, kOrt, kInvalidArgument,
     "graph_io_info: name buffer at 0xFFFFFFF8 of 64 bytes (its end wraps past 2^32)",
     [](CaseRun& r) { return io_info(r, r.graph(kOrt), 0, 0, 0xFFFFFFF8u, 64, r.guest.buffer(64), 8); }},
    {"ephemeral_nn_ext", "io_info_dims_past_memory_end", E, kOrt, kInvalidArgument,
     "graph_io_info: dims buffer of 8 entries starting 16 bytes before the end of memory",
     [](CaseRun& r) { return io_info(r, r.graph(kOrt), 0, 0, r.guest.buffer(64), 64, r.memory_size() - 16, 8); }},
    {"ephemeral_nn_ext", "io_info_name_buffer_too_small", E, kOrt, kTooLarge,
     "graph_io_info: a 2-byte name buffer for \"input\" (the name length and rank are written)",
     [](CaseRun& r) {
       const uint32_t name = r.guest.buffer(8), name_len = r.guest.out_u32(), type = r.guest.out_u32(),
                      rank = r.guest.out_u32();
       const Status st =
           nn::graph_io_info(r.call(), r.graph(kOrt), 0, 0, name, 2, name_len, type, r.guest.buffer(64), 8, rank);
       EXPECT_TRUE(r.untouched(name, 8)) << "no partial name";
       EXPECT_EQ(r.guest.u32_at(name_len), 5u);
       EXPECT_EQ(r.guest.u32_at(rank), 2u);
       return st;
     }},
    {"ephemeral_nn_ext", "list_properties_buffer_out_of_range", E, kOrt, kInvalidArgument,
     "graph_list_properties: buffer 0xFFFFFFF0 of 64 bytes",
     [](CaseRun& r) {
       const uint32_t written = r.guest.out_u32();
       const Status st = nn::graph_list_properties(r.call(), r.graph(kOrt), kWildPtr, 64, written);
       EXPECT_TRUE(r.untouched(written));
       return st;
     }},
    {"ephemeral_nn_ext", "get_property_unknown", E, kOrt, kInvalidArgument, "graph_get_property: \"no-such-property\"",
     [](CaseRun& r) { return get_property(r, r.graph(kOrt), "no-such-property"); }},
    {"ephemeral_nn_ext", "get_property_name_over_limit", E, kOrt, kInvalidArgument,
     "graph_get_property: a name length of 64 KiB + 1 (over --max-name-bytes), refused before it is read",
     [](CaseRun& r) {
       const uint32_t name = r.guest.put("a"), buf = r.guest.buffer(64), written = r.guest.out_u32();
       const Status st = nn::graph_get_property(r.call(), r.graph(kOrt), name, 64 * 1024 + 1, buf, 64, written);
       EXPECT_TRUE(r.untouched(written));
       return st;
     }},
    {"ephemeral_nn_ext", "get_property_buffer_too_small", E, kOrt, kTooLarge,
     "graph_get_property: \"backend\" into a 3-byte buffer (the needed 11 bytes are written)",
     [](CaseRun& r) { return get_property(r, r.graph(kOrt), "backend", 3); }},
    {"ephemeral_nn_ext", "set_property_read_only", E, kOrt, kInvalidArgument, "graph_set_property: \"backend\", a fact",
     [](CaseRun& r) { return set_property(r, r.graph(kOrt), "backend", "x", false); }},
    {"ephemeral_nn_ext", "set_context_property_stale_context", E, kOrt, kInvalidArgument,
     "context_set_property on a finalized context",
     [](CaseRun& r) {
       const uint32_t ctx = r.context(kOrt);
       EXPECT_EQ(nn::errno_of(nn::finalize_execution_context(r.call(), ctx)), kSuccess);
       return set_property(r, ctx, "threads", "1", true);
     }},
    {"ephemeral_nn_ext", "prompt_on_a_tensor_model", E, kOrt, kUnsupportedOperation,
     "prompt on an ONNX model's context",
     [](CaseRun& r) {
       const uint32_t text = r.guest.put("hello"), buf = r.guest.buffer(64), written = r.guest.out_u32();
       const Status st = nn::prompt(r.call(), r.context(kOrt), text, 5, buf, 64, written);
       EXPECT_TRUE(r.untouched(buf, 64));
       EXPECT_TRUE(r.untouched(written));
       return st;
     }},
    {"ephemeral_nn_ext", "prompt_out_out_of_range", E, kOrt, kInvalidArgument,
     "prompt: output buffer 0xFFFFFFF0 of 64 bytes",
     [](CaseRun& r) {
       const uint32_t text = r.guest.put("hello"), written = r.guest.out_u32();
       const Status st = nn::prompt(r.call(), r.context(kOrt), text, 5, kWildPtr, 64, written);
       EXPECT_TRUE(r.untouched(written));
       return st;
     }},
};

}  // namespace
}  // namespace wasinn::bad_input
