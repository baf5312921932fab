// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The witx guest ABI, module `wasi_ephemeral_nn`: decodes one guest call's raw arguments
// against guest memory into checked NnSession calls, with the current witx numbering and
// WasmEdge's extensions (docs: ../../docs/ARCHITECTURE.md, shared wasi-nn-abi.md section 1).
// Stateless functions; thread-safe as far as the NnSession is.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "abi/guest_memory.h"
#include "core/error.h"
#include "core/nn_session.h"

namespace wasinn::ephemeral_nn {

// The witx nn_errno for a result: 0 for success.
int32_t errno_of(const Status& status);
int32_t errno_of(Errc code);
// The errno a call answers the guest with, logging a refusal (module::function names the call).
int32_t answer(const Status& status, std::string_view module, std::string_view function);

// Tensor type byte -> type. Values 2 and 3 changed meaning between witx versions; the data
// length decides: 2 is u8 (old) when data_len == n, else f64; 3 is i32 (old) when
// data_len == 4n and n > 0, else u8.
Result<TensorType> decode_tensor_type(uint8_t raw, uint64_t elements, uint64_t data_len);
Result<Target> decode_target(uint32_t raw);
// 0-4 as witx; 5 (witx autodetect, WAMR ggml) and 6 (WasmEdge ggml, WAMR autodetect) are
// both autodetected from the model bytes, with 6 falling back to ggml.
Result<Encoding> decode_encoding(uint32_t raw, std::span<const std::span<const uint8_t>> builders);

struct Call {
  NnSession& session;
  const GuestMemoryView& memory;
};

// A tensor's dims from guest memory, both ABIs' way: `rank` u32s at dims_ptr, the rank within
// the environment's limit. The span stays valid until the thread's next call.
Result<std::span<const uint32_t>> read_tensor_dims(Call c, uint32_t dims_ptr, uint32_t rank);

Status load(Call c, uint32_t builders_ptr, uint32_t builders_len, uint32_t encoding, uint32_t target,
            uint32_t graph_out);
Status load_by_name(Call c, uint32_t name_ptr, uint32_t name_len, uint32_t graph_out);
Status load_by_name_with_config(Call c, uint32_t name_ptr, uint32_t name_len, uint32_t config_ptr, uint32_t config_len,
                                uint32_t graph_out);
Status init_execution_context(Call c, uint32_t graph, uint32_t ctx_out);
Status set_input(Call c, uint32_t ctx, uint32_t index, uint32_t tensor_ptr);
Status compute(Call c, uint32_t ctx);
Status get_output(Call c, uint32_t ctx, uint32_t index, uint32_t out_ptr, uint32_t out_max, uint32_t written_out);
Status compute_single(Call c, uint32_t ctx);
Status get_output_single(Call c, uint32_t ctx, uint32_t index, uint32_t out_ptr, uint32_t out_max,
                         uint32_t written_out);
Status fini_single(Call c, uint32_t ctx);
Status unload(Call c, uint32_t graph);
Status finalize_execution_context(Call c, uint32_t ctx);

}  // namespace wasinn::ephemeral_nn
