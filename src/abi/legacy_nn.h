// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// WAMR's legacy guest ABI, module `wasi_nn` (deprecated by WAMR in 2.4 but still in guests):
// load takes a pointer to {builders_ptr, count}; the 12-byte tensor has dims behind one more
// pointer, a type from fp16 0, fp32 1, up8 2, ip32 3, and no data length (it is
// product(dims) x element size); get_output counts capacity and result in f32 elements.
// Errnos are the witx ones, which WAMR's legacy 0-5 share. Stateless; thread-safe as far as
// the NnSession is.
#pragma once

#include <cstdint>

#include "abi/ephemeral_nn.h"

namespace wasinn::legacy_nn {

using ephemeral_nn::Call;

Result<TensorType> decode_tensor_type(uint32_t raw);

Status load(Call c, uint32_t builder_array_ptr, uint32_t encoding, uint32_t target, uint32_t graph_out);
Status load_by_name(Call c, uint32_t name_ptr, uint32_t name_len, uint32_t graph_out);
Status init_execution_context(Call c, uint32_t graph, uint32_t ctx_out);
Status set_input(Call c, uint32_t ctx, uint32_t index, uint32_t tensor_ptr);
Status compute(Call c, uint32_t ctx);
Status get_output(Call c, uint32_t ctx, uint32_t index, uint32_t out_ptr, uint32_t size_inout_ptr);

}  // namespace wasinn::legacy_nn
