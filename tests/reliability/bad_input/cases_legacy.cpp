// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// WAMR's legacy wasi_nn module: the 8-byte builder header, the 12-byte tensor record with its
// dims behind one more pointer and no data length (product(dims) x element size), and
// get_output counting f32 elements through one in/out pointer.
#include <algorithm>

#include "matrix_case.h"

namespace wasinn::bad_input {
namespace {

constexpr auto L = Abi::legacy;

Status legacy_load(CaseRun& r, uint32_t header, uint32_t encoding = 1, uint32_t target = 0) {
  const uint32_t out = r.guest.out_u32();
  const Status st = legacy::load(r.call(), header, encoding, target, out);
  if (!st.ok()) {
    EXPECT_TRUE(r.untouched(out));
  }
  return r.tracked_graph(st, out);
}

uint32_t digits_header(CaseRun& r) { return r.legacy_header(r.fixture_builders({"digits/model.onnx"}), 1); }

// A context on the ORT digits model, made through wasi_nn.
uint32_t legacy_context(CaseRun& r) {
  const uint32_t g_out = r.guest.out_u32();
  EXPECT_TRUE(r.tracked_graph(legacy::load(r.call(), digits_header(r), 1, 0, g_out), g_out).ok()) << "setup: load";
  const uint32_t c_out = r.guest.out_u32();
  EXPECT_TRUE(r.tracked_context(legacy::init_execution_context(r.call(), r.guest.u32_at(g_out), c_out), c_out).ok())
      << "setup: init_execution_context";
  return r.guest.u32_at(c_out);
}

uint32_t legacy_computed_context(CaseRun& r) {
  const uint32_t ctx = legacy_context(r);
  EXPECT_TRUE(legacy::set_input(r.call(), ctx, 0, r.legacy_digit_tensor()).ok()) << "setup: set_input";
  EXPECT_TRUE(legacy::compute(r.call(), ctx).ok()) << "setup: compute";
  return ctx;
}

Status legacy_set(CaseRun& r, uint32_t tensor) { return legacy::set_input(r.call(), legacy_context(r), 0, tensor); }

// get_output with capacity `capacity` f32 elements into a 64-byte buffer; the buffer must be
// untouched on failure, and the size too except for too_large (which reports the need).
Status legacy_output(CaseRun& r, uint32_t ctx, uint32_t index, uint32_t capacity, uint32_t* size_at = nullptr) {
  const uint32_t buf = r.guest.buffer(64);
  const uint32_t size = r.guest.put_u32s({capacity});
  const Status st = legacy::get_output(r.call(), ctx, index, buf, size);
  if (!st.ok()) {
    EXPECT_TRUE(r.untouched(buf, 64));
    if (nn::errno_of(st) != kTooLarge) {
      EXPECT_EQ(r.guest.u32_at(size), capacity) << "size changed on failure";
    }
  }
  if (size_at) *size_at = size;
  return st;
}

const CaseList legacy_cases{
    {"legacy_load", "header_out_of_range", L, kNone, kInvalidArgument,
     "wasi_nn.load: builder header pointer 0xFFFFFFF0", [](CaseRun& r) { return legacy_load(r, kWildPtr); }},
    {"legacy_load", "header_straddles_memory_end", L, kNone, kInvalidArgument,
     "wasi_nn.load: 8-byte header at memory size - 4", [](CaseRun& r) { return legacy_load(r, r.memory_size() - 4); }},
    {"legacy_load", "builder_count_zero", L, kNone, kInvalidArgument, "wasi_nn.load: header {array, 0}",
     [](CaseRun& r) { return legacy_load(r, r.legacy_header(r.fixture_builders({"digits/model.onnx"}), 0)); }},
    {"legacy_load", "builder_count_huge", L, kNone, kInvalidArgument, "wasi_nn.load: header {array, 0xFFFFFFFF}",
     [](CaseRun& r) { return legacy_load(r, r.legacy_header(r.fixture_builders({"digits/model.onnx"}), 0xFFFFFFFF)); }},
    {"legacy_load", "builder_array_out_of_range", L, kNone, kInvalidArgument, "wasi_nn.load: header {0xFFFFFFF0, 1}",
     [](CaseRun& r) { return legacy_load(r, r.legacy_header(kWildPtr, 1)); }},
    {"legacy_load", "encoding_unknown_9", L, kNone, kInvalidEncoding, "wasi_nn.load: encoding 9",
     [](CaseRun& r) { return legacy_load(r, digits_header(r), 9); }},
    {"legacy_load", "target_unknown_7", L, kNone, kInvalidArgument, "wasi_nn.load: target 7",
     [](CaseRun& r) { return legacy_load(r, digits_header(r), 1, 7); }},
    {"legacy_load", "graph_out_out_of_range", L, kOrt, kInvalidArgument, "wasi_nn.load: graph out-pointer 0xFFFFFFF0",
     [](CaseRun& r) { return legacy::load(r.call(), digits_header(r), 1, 0, kWildPtr); }},
    {"legacy_load", "truncated_tflite", L, Backend::tensorflowlite, kInvalidArgument,
     "wasi_nn.load: the TFLite digits model cut to half its size",
     [](CaseRun& r) {
       auto bytes = r.host.fixture("tflite/digits_f32.tflite");
       bytes.resize(bytes.size() / 2);
       return legacy_load(r, r.legacy_header(r.builders({bytes}), 1), 4);
     }},
    {"legacy_load", "by_name_with_nul", L, kNone, kInvalidArgument, "wasi_nn.load_by_name: \"dig\\0its\"",
     [](CaseRun& r) {
       const uint32_t out = r.guest.out_u32();
       const Status st = legacy::load_by_name(r.call(), r.guest.put(std::string("dig\0its", 7)), 7, out);
       EXPECT_TRUE(r.untouched(out));
       return r.tracked_graph(st, out);
     }},
    {"legacy_load", "by_name_invalid_utf8", L, kNone, kInvalidArgument, "wasi_nn.load_by_name: \"digits\\xE2\\x82\"",
     [](CaseRun& r) {
       const uint32_t out = r.guest.out_u32();
       const Status st = legacy::load_by_name(r.call(), r.guest.put("digits\xE2\x82"), 8, out);
       EXPECT_TRUE(r.untouched(out));
       return r.tracked_graph(st, out);
     }},
    {"legacy_load", "init_after_unload", L, kOrt, kInvalidArgument,
     "wasi_nn.init_execution_context on a graph unloaded through wasi_ephemeral_nn",
     [](CaseRun& r) {
       const uint32_t g = r.graph(kOrt);
       EXPECT_EQ(nn::errno_of(nn::unload(r.call(), g)), kSuccess);
       const uint32_t out = r.guest.out_u32();
       const Status st = legacy::init_execution_context(r.call(), g, out);
       EXPECT_TRUE(r.untouched(out));
       return r.tracked_context(st, out);
     }},

    {"legacy_set_input", "tensor_out_of_range", L, kOrt, kInvalidArgument,
     "wasi_nn.set_input: tensor pointer 0xFFFFFFF0", [](CaseRun& r) { return legacy_set(r, kWildPtr); }},
    {"legacy_set_input", "dims_header_out_of_range", L, kOrt, kInvalidArgument,
     "wasi_nn.set_input: record's dims struct pointer 0xFFFFFFF0",
     [](CaseRun& r) {
       return legacy_set(r, r.guest.put_u32s({kWildPtr, 1, r.guest.put_f32s(r.host.digit(r.sample).pixels)}));
     }},
    {"legacy_set_input", "dims_out_of_range", L, kOrt, kInvalidArgument, "wasi_nn.set_input: dims {0xFFFFFFF0, 2}",
     [](CaseRun& r) { return legacy_set(r, r.legacy_tensor_raw(kWildPtr, 2, 1, r.guest.alloc(256))); }},
    {"legacy_set_input", "rank_u32_max", L, kOrt, kInvalidArgument, "wasi_nn.set_input: rank 0xFFFFFFFF",
     [](CaseRun& r) {
       return legacy_set(r, r.legacy_tensor_raw(r.guest.put_u32s({1, 64}), 0xFFFFFFFF, 1, r.guest.alloc(256)));
     }},
    {"legacy_set_input", "dims_bytes_overflow_32_bits", L, kOrt, kInvalidArgument,
     "wasi_nn.set_input: fp32 [65536, 65536] (16 GiB implied by dims, no data length)",
     [](CaseRun& r) {
       return legacy_set(r, r.legacy_tensor({65536, 65536}, 1, r.guest.alloc(256)));
     }},
    {"legacy_set_input", "dims_wrap_to_256_bytes_in_32_bits", L, kOrt, kInvalidArgument,
     "wasi_nn.set_input: fp32 [67108865, 64]: 2^34 + 256 bytes, 256 modulo 2^32",
     [](CaseRun& r) {
       return legacy_set(r, r.legacy_tensor({67108865, 64}, 1, r.guest.alloc(256)));
     }},
    {"legacy_set_input", "dims_product_overflows_64_bits", L, kOrt, kInvalidArgument,
     "wasi_nn.set_input: fp32 [0xFFFFFFFF x 3]",
     [](CaseRun& r) {
       return legacy_set(r, r.legacy_tensor({0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF}, 1, r.guest.alloc(256)));
     }},
    {"legacy_set_input", "type_unknown_4", L, kOrt, kInvalidArgument,
     "wasi_nn.set_input: tensor type 4 (legacy has 0-3)",
     [](CaseRun& r) {
       return legacy_set(r, r.legacy_tensor({1, 64}, 4, r.guest.alloc(256)));
     }},
    {"legacy_set_input", "type_garbage_high_bytes", L, kOrt, kSuccess,
     "wasi_nn.set_input: type 0xABCD0001 (u8 type + garbage padding: fp32)",
     [](CaseRun& r) {
       return legacy_set(r, r.legacy_tensor({1, 64}, 0xABCD0001, r.guest.put_f32s(r.host.digit(r.sample).pixels)));
     }},
    {"legacy_set_input", "wrong_type_up8", L, kOrt, kInvalidArgument, "wasi_nn.set_input: up8 [1, 64] for an f32 input",
     [](CaseRun& r) {
       return legacy_set(r, r.legacy_tensor({1, 64}, 2, r.guest.alloc(64)));
     }},
    {"legacy_set_input", "data_past_memory_end", L, kOrt, kInvalidArgument,
     "wasi_nn.set_input: fp32 [1, 64] whose 256 bytes start 100 bytes before the end",
     [](CaseRun& r) {
       return legacy_set(r, r.legacy_tensor({1, 64}, 1, r.memory_size() - 100));
     }},
    {"legacy_set_input", "zero_sized_features", L, kOrt, kInvalidArgument, "wasi_nn.set_input: fp32 [1, 0]",
     [](CaseRun& r) {
       return legacy_set(r, r.legacy_tensor({1, 0}, 1, r.guest.alloc(4)));
     }},
    {"legacy_set_input", "index_out_of_range", L, kOrt, kInvalidArgument, "wasi_nn.set_input index 3",
     [](CaseRun& r) { return legacy::set_input(r.call(), legacy_context(r), 3, r.legacy_digit_tensor()); }},

    {"legacy_compute", "without_inputs", L, kOrt, kInvalidArgument, "wasi_nn.compute before set_input",
     [](CaseRun& r) { return legacy::compute(r.call(), legacy_context(r)); }},
    {"legacy_get_output", "before_compute", L, kOrt, kInvalidArgument, "wasi_nn.get_output after set_input only",
     [](CaseRun& r) {
       const uint32_t ctx = legacy_context(r);
       EXPECT_TRUE(legacy::set_input(r.call(), ctx, 0, r.legacy_digit_tensor()).ok());
       return legacy_output(r, ctx, 0, 16);
     }},
    {"legacy_get_output", "size_pointer_out_of_range", L, kOrt, kInvalidArgument,
     "wasi_nn.get_output: size in/out pointer 0xFFFFFFF0",
     [](CaseRun& r) {
       const uint32_t buf = r.guest.buffer(64);
       const Status st = legacy::get_output(r.call(), legacy_computed_context(r), 0, buf, kWildPtr);
       EXPECT_TRUE(r.untouched(buf, 64));
       return st;
     }},
    {"legacy_get_output", "capacity_one_short", L, kOrt, kTooLarge,
     "wasi_nn.get_output: capacity 9 f32 for 10 logits (size must become 10, buffer untouched)",
     [](CaseRun& r) {
       uint32_t size = 0;
       const Status st = legacy_output(r, legacy_computed_context(r), 0, 9, &size);
       EXPECT_EQ(r.guest.u32_at(size), 10u);
       return st;
     }},
    {"legacy_get_output", "capacity_bytes_overflow", L, kOrt, kInvalidArgument,
     "wasi_nn.get_output: capacity 0x40000000 f32 (4 GiB, past the memory)",
     [](CaseRun& r) { return legacy_output(r, legacy_computed_context(r), 0, 0x40000000); }},
    {"legacy_get_output", "size_overlaps_buffer", L, kOrt, kSuccess,
     "wasi_nn.get_output: the size in/out word is the output buffer's first word",
     [](CaseRun& r) {
       const uint32_t buf = r.guest.buffer(64);
       r.guest.write_at(buf, std::string("\x10\0\0\0", 4));  // capacity 16
       const Status st = legacy::get_output(r.call(), legacy_computed_context(r), 0, buf, buf);
       if (st.ok()) {
         EXPECT_EQ(r.guest.u32_at(buf), 10u);
       }
       return st;
     }},
    {"legacy_get_output", "index_out_of_range", L, kOrt, kInvalidArgument, "wasi_nn.get_output index 1",
     [](CaseRun& r) { return legacy_output(r, legacy_computed_context(r), 1, 16); }},
    {"legacy_get_output", "context_never_created", L, kNone, kInvalidArgument, "wasi_nn.get_output on context 1000000",
     [](CaseRun& r) { return legacy_output(r, 1000000, 0, 16); }},
};

}  // namespace
}  // namespace wasinn::bad_input
