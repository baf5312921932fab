// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// wasinn's functions beyond the spec in module `wasi_ephemeral_nn`, as WasmEdge adds its own:
// describing a graph's inputs and outputs, its properties, and prompting a text model
// (guest/include/wasinn_nn_ext.h is the guest's side; wit_nn_ext is the component twin).
// Buffers work as get_output's: too small is too_large, with the size needed written back.
// Stateless functions; thread-safe as far as the NnSession is.
#pragma once

#include <cstdint>

#include "abi/ephemeral_nn.h"

namespace wasinn::ephemeral_nn {

// graph_io_info's type number for a type witx cannot name, and its rank for an unknown one.
inline constexpr uint32_t kTypeNone = 255;
inline constexpr uint32_t kRankUnknown = 0xFFFFFFFFu;
// The current witx number of a type, or kTypeNone (bf16, i8).
uint32_t witx_type_number(TensorType type);

Status graph_io_count(Call c, uint32_t graph, uint32_t side, uint32_t count_out);
Status graph_io_info(Call c, uint32_t graph, uint32_t side, uint32_t index, uint32_t name_ptr, uint32_t name_max,
                     uint32_t name_len_out, uint32_t type_out, uint32_t dims_ptr, uint32_t dims_max, uint32_t rank_out);
Status graph_list_properties(Call c, uint32_t graph, uint32_t buf, uint32_t buf_max, uint32_t written_out);
Status graph_get_property(Call c, uint32_t graph, uint32_t name_ptr, uint32_t name_len, uint32_t buf, uint32_t buf_max,
                          uint32_t written_out);
Status graph_set_property(Call c, uint32_t graph, uint32_t name_ptr, uint32_t name_len, uint32_t value_ptr,
                          uint32_t value_len);
Status context_set_property(Call c, uint32_t ctx, uint32_t name_ptr, uint32_t name_len, uint32_t value_ptr,
                            uint32_t value_len);
Status prompt(Call c, uint32_t ctx, uint32_t prompt_ptr, uint32_t prompt_len, uint32_t out_ptr, uint32_t out_max,
              uint32_t written_out);

}  // namespace wasinn::ephemeral_nn
