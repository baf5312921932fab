// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// wasi_ephemeral_nn set_input with bad 20-byte tensor records: pointers out of range or
// overlapping the record, ranks and dims whose product overflows 32 and 64 bits, zero-sized
// tensors, wrong and unknown tensor types, data lengths that disagree with the dims, bad
// indices. Every case runs against a real ONNX Runtime context of the digits model (f32 [?, 64]).
#include <algorithm>
#include <cstring>

#include "matrix_case.h"

namespace wasinn::bad_input {
namespace {

// set_input on a fresh ORT digits context with the record `make` builds.
template <class Make>
Status set(CaseRun& r, Make&& make, uint32_t index = 0) {
  const uint32_t ctx = r.context(kOrt);
  return nn::set_input(r.call(), ctx, index, make(r));
}

// A record over `dims` and `data_len` bytes of in-bounds data (contents: the digit's pixels).
uint32_t record(CaseRun& r, const std::vector<uint32_t>& dims, uint8_t type, uint32_t data_len) {
  const uint32_t data = r.guest.alloc(std::max<uint32_t>(data_len, 4));
  const auto& pixels = r.host.digit(r.sample).pixels;
  std::vector<uint8_t> bytes(data_len);
  std::copy_n(reinterpret_cast<const uint8_t*>(pixels.data()), std::min<size_t>(data_len, pixels.size() * 4),
              bytes.begin());
  r.guest.write_at(data, std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
  return r.guest.tensor_record(r.guest.put_u32s(dims), static_cast<uint32_t>(dims.size()), type, data, data_len);
}

const CaseList set_input_cases{
    {"ephemeral_set_input", "tensor_out_of_range", E, kOrt, kInvalidArgument, "set_input: tensor pointer 0xFFFFFFF0",
     [](CaseRun& r) { return set(r, [](CaseRun&) { return kWildPtr; }); }},
    {"ephemeral_set_input", "tensor_straddles_memory_end", E, kOrt, kInvalidArgument,
     "set_input: 20-byte record starting 12 bytes before the end of memory",
     [](CaseRun& r) { return set(r, [](CaseRun& r) { return r.memory_size() - 12; }); }},
    {"ephemeral_set_input", "dims_out_of_range", E, kOrt, kInvalidArgument, "set_input: dims pointer 0xFFFFFFF0",
     [](CaseRun& r) {
       return set(r, [](CaseRun& r) { return r.guest.tensor_record(kWildPtr, 2, 1, r.guest.alloc(256), 256); });
     }},
    {"ephemeral_set_input", "data_out_of_range", E, kOrt, kInvalidArgument, "set_input: data pointer 0xFFFFFFF0",
     [](CaseRun& r) {
       return set(r, [](CaseRun& r) { return r.guest.tensor_record(r.guest.put_u32s({1, 64}), 2, 1, kWildPtr, 256); });
     }},
    {"ephemeral_set_input", "data_past_memory_end", E, kOrt, kInvalidArgument,
     "set_input: 256 bytes of data starting 100 bytes before the end of memory",
     [](CaseRun& r) {
       return set(r, [](CaseRun& r) {
         return r.guest.tensor_record(r.guest.put_u32s({1, 64}), 2, 1, r.memory_size() - 100, 256);
       });
     }},
    {"ephemeral_set_input", "data_len_u32_max", E, kOrt, kInvalidArgument, "set_input: data_len 0xFFFFFFFF",
     [](CaseRun& r) {
       return set(r, [](CaseRun& r) {
         return r.guest.tensor_record(r.guest.put_u32s({1, 64}), 2, 1, r.guest.alloc(256), 0xFFFFFFFF);
       });
     }},
    {"ephemeral_set_input", "rank_over_limit", E, kOrt, kInvalidArgument, "set_input: rank 65 (limit 64)",
     [](CaseRun& r) { return set(r, [](CaseRun& r) { return record(r, std::vector<uint32_t>(65, 1), 1, 4); }); }},
    {"ephemeral_set_input", "rank_u32_max", E, kOrt, kInvalidArgument, "set_input: dims_len 0xFFFFFFFF",
     [](CaseRun& r) {
       return set(r, [](CaseRun& r) { return r.guest.tensor_record(r.guest.put_u32s({1, 64}), 0xFFFFFFFF, 1, 0, 0); });
     }},
    {"ephemeral_set_input", "dims_product_overflows_32_bits", E, kOrt, kInvalidArgument,
     "set_input: f32 [65536, 65536, 64] (2^38 elements) with 256 bytes of data",
     [](CaseRun& r) { return set(r, [](CaseRun& r) {
                        return record(r, {65536, 65536, 64}, 1, 256);
                      }); }},
    {"ephemeral_set_input", "dims_product_wraps_to_64_in_32_bits", E, kOrt, kInvalidArgument,
     "set_input: f32 [67108865, 64]: 2^32 + 64 elements, 64 modulo 2^32, with 256 bytes",
     [](CaseRun& r) { return set(r, [](CaseRun& r) {
                        return record(r, {67108865, 64}, 1, 256);
                      }); }},
    {"ephemeral_set_input", "dims_product_overflows_64_bits", E, kOrt, kInvalidArgument,
     "set_input: f32 [0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF]",
     [](CaseRun& r) {
       return set(r, [](CaseRun& r) { return record(r, {0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF}, 1, 256); });
     }},
    {"ephemeral_set_input", "byte_size_overflows_64_bits", E, kOrt, kInvalidArgument,
     "set_input: f32 [2^31, 2^31]: 2^62 elements fit, 2^64 bytes do not",
     [](CaseRun& r) { return set(r, [](CaseRun& r) {
                        return record(r, {0x80000000u, 0x80000000u}, 1, 256);
                      }); }},
    {"ephemeral_set_input", "zero_dim_with_huge_dims", E, kOrt, kInvalidArgument,
     "set_input: f32 [0, 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF] (zero elements; not the model's shape)",
     [](CaseRun& r) {
       return set(r, [](CaseRun& r) { return record(r, {0, 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF}, 1, 0); });
     }},
    {"ephemeral_set_input", "zero_sized_batch", E, kOrt, kSuccess,
     "f32 [0, 64], 0 bytes (an empty batch fits the dynamic batch dim), compute, get_output: 0 bytes",
     [](CaseRun& r) -> Status {
       const uint32_t ctx = r.context(kOrt);
       if (auto st = nn::set_input(r.call(), ctx, 0, record(r, {0, 64}, 1, 0)); !st.ok()) return st;
       if (auto st = nn::compute(r.call(), ctx); !st.ok()) return st;
       const uint32_t buf = r.guest.buffer(64);
       const uint32_t written = r.guest.out_u32();
       const Status st = nn::get_output(r.call(), ctx, 0, buf, 64, written);
       if (st.ok()) {
         EXPECT_EQ(r.guest.u32_at(written), 0u) << "an empty batch has empty logits";
       }
       return st;
     }},
    {"ephemeral_set_input", "data_overwritten_after_set_input", E, kOrt, kSuccess,
     "the guest overwrites its input data after set_input, then compute: the host's copy counts",
     [](CaseRun& r) -> Status {
       const uint32_t ctx = r.context(kOrt);
       const uint32_t rec = r.digit_tensor();
       if (auto st = nn::set_input(r.call(), ctx, 0, rec); !st.ok()) return st;
       const uint32_t data = r.guest.u32_at(rec + 12);
       r.guest.write_at(data, std::string(256, '\x7f'));  // NaN-ish garbage where the pixels were
       if (auto st = nn::compute(r.call(), ctx); !st.ok()) return st;
       // The output buffer is the tensor record and its data: out-pointers may alias input memory.
       const uint32_t written = r.guest.out_u32();
       const Status st = nn::get_output(r.call(), ctx, 0, rec, 40, written);
       if (st.ok()) {
         const auto logits = r.guest.f32s_at(rec, 10);
         EXPECT_EQ(std::max_element(logits.begin(), logits.end()) - logits.begin(), r.host.digit(r.sample).label)
             << "the computation saw the guest's later writes";
       }
       return st;
     }},
    {"ephemeral_set_input", "zero_sized_features", E, kOrt, kInvalidArgument,
     "set_input: f32 [1, 0], 0 bytes (the model needs 64 features)",
     [](CaseRun& r) { return set(r, [](CaseRun& r) {
                        return record(r, {1, 0}, 1, 0);
                      }); }},
    {"ephemeral_set_input", "scalar_for_matrix_input", E, kOrt, kInvalidArgument,
     "set_input: rank-0 f32 scalar for a rank-2 input",
     [](CaseRun& r) { return set(r, [](CaseRun& r) { return record(r, {}, 1, 4); }); }},
    {"ephemeral_set_input", "empty_dims_at_odd_address", E, kOrt, kInvalidArgument,
     "set_input: dims_len 0 at an odd dims address (F1: misaligned empty span)",
     [](CaseRun& r) {
       return set(r, [](CaseRun& r) { return r.guest.tensor_record(r.guest.alloc(8) + 1, 0, 1, r.guest.alloc(4), 4); });
     }},
    {"ephemeral_set_input", "unaligned_dims", E, kOrt, kSuccess,
     "set_input: correct dims [1, 64] stored at an odd address (copied, not misread)",
     [](CaseRun& r) {
       return set(r, [](CaseRun& r) {
         const uint32_t dims = r.guest.alloc(12) + 1;
         r.guest.write_at(dims, std::string("\x01\0\0\0\x40\0\0\0", 8));
         const uint32_t data = r.guest.put_f32s(r.host.digit(r.sample).pixels);
         return r.guest.tensor_record(dims, 2, 1, data, 256);
       });
     }},
    {"ephemeral_set_input", "wrong_type_i64_same_bytes", E, kOrt, kInvalidArgument,
     "set_input: i64 [1, 32] (256 bytes) for an f32 [?, 64] input",
     [](CaseRun& r) { return set(r, [](CaseRun& r) {
                        return record(r, {1, 32}, 5, 256);
                      }); }},
    {"ephemeral_set_input", "wrong_type_u8", E, kOrt, kInvalidArgument,
     "set_input: u8 [1, 64] (type 3, 64 bytes) for an f32 input",
     [](CaseRun& r) { return set(r, [](CaseRun& r) {
                        return record(r, {1, 64}, 3, 64);
                      }); }},
    {"ephemeral_set_input", "wrong_type_f16", E, kOrt, kInvalidArgument,
     "set_input: f16 [1, 64] with 128 bytes for an f32 input",
     [](CaseRun& r) { return set(r, [](CaseRun& r) {
                        return record(r, {1, 64}, 0, 128);
                      }); }},
    {"ephemeral_set_input", "type_byte_6", E, kOrt, kInvalidArgument, "set_input: tensor type 6 (witx has 0-5)",
     [](CaseRun& r) { return set(r, [](CaseRun& r) {
                        return record(r, {1, 64}, 6, 256);
                      }); }},
    {"ephemeral_set_input", "type_byte_255", E, kOrt, kInvalidArgument, "set_input: tensor type 255",
     [](CaseRun& r) { return set(r, [](CaseRun& r) {
                        return record(r, {1, 64}, 255, 256);
                      }); }},
    {"ephemeral_set_input", "data_len_short", E, kOrt, kInvalidArgument,
     "set_input: f32 [1, 64] with 252 bytes of data",
     [](CaseRun& r) { return set(r, [](CaseRun& r) {
                        return record(r, {1, 64}, 1, 252);
                      }); }},
    {"ephemeral_set_input", "data_len_long", E, kOrt, kInvalidArgument, "set_input: f32 [1, 64] with 260 bytes of data",
     [](CaseRun& r) { return set(r, [](CaseRun& r) {
                        return record(r, {1, 64}, 1, 260);
                      }); }},
    {"ephemeral_set_input", "index_out_of_range", E, kOrt, kInvalidArgument, "set_input index 1 of a one-input model",
     [](CaseRun& r) {
       return set(
           r, [](CaseRun& r) { return r.digit_tensor(); }, 1);
     }},
    {"ephemeral_set_input", "index_u32_max", E, kOrt, kInvalidArgument, "set_input index 0xFFFFFFFF",
     [](CaseRun& r) {
       return set(
           r, [](CaseRun& r) { return r.digit_tensor(); }, 0xFFFFFFFF);
     }},
    {"ephemeral_set_input", "context_never_created", E, Backend::none, kInvalidArgument, "set_input on context 1000000",
     [](CaseRun& r) { return nn::set_input(r.call(), 1000000, 0, r.digit_tensor()); }},
    {"ephemeral_set_input", "dims_overlap_record", E, kOrt, kInvalidArgument,
     "set_input: dims pointer is the record itself (dims read as [dims_ptr, 2])",
     [](CaseRun& r) {
       return set(r, [](CaseRun& r) {
         const uint32_t at = r.guest.alloc(20, 4);
         const uint32_t data = r.guest.alloc(256);
         const uint32_t rec = r.guest.tensor_record(at, 2, 1, data, 256);
         r.guest.write_at(at, std::string_view(reinterpret_cast<const char*>(r.guest.bytes_at(rec, 20).data()), 20));
         return at;
       });
     }},
    {"ephemeral_set_input", "data_overlaps_record", E, kOrt, kSuccess,
     "set_input: the 256 data bytes start at the tensor record itself (legal aliasing)",
     [](CaseRun& r) {
       return set(r, [](CaseRun& r) {
         const uint32_t dims = r.guest.put_u32s({1, 64});
         const uint32_t at = r.guest.alloc(256);
         const uint32_t rec = r.guest.tensor_record(dims, 2, 1, at, 256);
         r.guest.write_at(at, std::string_view(reinterpret_cast<const char*>(r.guest.bytes_at(rec, 20).data()), 20));
         return at;
       });
     }},
};

}  // namespace
}  // namespace wasinn::bad_input
