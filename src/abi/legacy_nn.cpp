// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "abi/legacy_nn.h"

#include <cstring>

#include <fmt/format.h>

namespace wasinn::legacy_nn {

Result<TensorType> decode_tensor_type(uint32_t raw) {
  // Newer WAMR headers make the type a u8 followed by padding: only the low byte counts.
  switch (raw & 0xFF) {
    case 0: return TensorType::f16;
    case 1: return TensorType::f32;
    case 2: return TensorType::u8;
    case 3: return TensorType::i32;
    default:
      return make_error(
          Errc::invalid_argument,
          fmt::format("tensor type {} is not a wasi_nn tensor_type (0 fp16, 1 fp32, 2 up8, 3 ip32)", raw & 0xFF));
  }
}

Status load(Call c, uint32_t builder_array_ptr, uint32_t encoding, uint32_t target, uint32_t graph_out) {
  // {u32 builders_ptr, u32 count} leads to the same builder array as the witx load.
  auto header = c.memory.bytes(builder_array_ptr, 8, "load: builder array header");
  if (!header) return header.take_error();
  uint32_t builders_ptr, count;
  std::memcpy(&builders_ptr, header->data(), 4);
  std::memcpy(&count, header->data() + 4, 4);
  return ephemeral_nn::load(c, builders_ptr, count, encoding, target, graph_out);
}

Status load_by_name(Call c, uint32_t name_ptr, uint32_t name_len, uint32_t graph_out) {
  // WAMR opens the name as a host path; wasinn only serves names the host registered
  // (--nn-preload), so a guest cannot reach files outside what the host chose.
  return ephemeral_nn::load_by_name(c, name_ptr, name_len, graph_out);
}

Status init_execution_context(Call c, uint32_t graph, uint32_t ctx_out) {
  return ephemeral_nn::init_execution_context(c, graph, ctx_out);
}

Status set_input(Call c, uint32_t ctx, uint32_t index, uint32_t tensor_ptr) {
  auto rec = c.memory.bytes(tensor_ptr, 12, "set_input: tensor");
  if (!rec) return rec.take_error();
  uint32_t dims_struct, raw_type, data_ptr;
  std::memcpy(&dims_struct, rec->data(), 4);
  std::memcpy(&raw_type, rec->data() + 4, 4);
  std::memcpy(&data_ptr, rec->data() + 8, 4);
  auto dims_header = c.memory.bytes(dims_struct, 8, "set_input: tensor dims header");
  if (!dims_header) return dims_header.take_error();
  uint32_t dims_ptr, rank;
  std::memcpy(&dims_ptr, dims_header->data(), 4);
  std::memcpy(&rank, dims_header->data() + 4, 4);

  auto dims = ephemeral_nn::read_tensor_dims(c, dims_ptr, rank);
  if (!dims) return dims.take_error();
  auto type = decode_tensor_type(raw_type);
  if (!type) return type.take_error();
  auto bytes = tensor_byte_size(*dims, *type);
  if (!bytes) return bytes.take_error();
  if (*bytes > UINT32_MAX) {
    return make_error(Errc::invalid_argument,
                      fmt::format("set_input: {} is larger than a 32-bit guest memory", describe_tensor(*type, *dims)));
  }
  auto data = c.memory.bytes(data_ptr, *bytes, "set_input: tensor data (product(dims) x element size)");
  if (!data) return data.take_error();
  return c.session.set_input(ctx, TensorId{index, std::nullopt},
                             TensorView{*type, *dims, std::span<const uint8_t>(data->data(), data->size())});
}

Status compute(Call c, uint32_t ctx) { return c.session.compute(ctx); }

Status get_output(Call c, uint32_t ctx, uint32_t index, uint32_t out_ptr, uint32_t size_inout_ptr) {
  auto capacity = c.memory.read_u32(size_inout_ptr, "get_output: size in/out pointer");
  if (!capacity) return capacity.take_error();
  // Counted in f32 elements, as WAMR's legacy TFLite backend does (its tests rely on it).
  const uint64_t capacity_bytes = uint64_t{*capacity} * 4;
  auto buf = c.memory.bytes(out_ptr, capacity_bytes, "get_output: output buffer");
  if (!buf) return buf.take_error();
  auto held = c.session.get_output(ctx, TensorId{index, std::nullopt});
  if (!held) return held.take_error();
  const auto& data = held->view.data;
  const uint64_t elements = (data.size() + 3) / 4;
  if (data.size() > capacity_bytes) {
    WASINN_TRY(c.memory.write_u32(size_inout_ptr, static_cast<uint32_t>(elements), "get_output: size"));
    return make_error(Errc::too_large,
                      fmt::format("get_output: output {} needs {} f32 slots, the buffer holds {}",
                                  describe_tensor(held->view.type, held->view.dims), elements, *capacity));
  }
  if (!data.empty()) std::memcpy(buf->data(), data.data(), data.size());
  held->context->graph().metrics().add_output_bytes(data.size());
  return c.memory.write_u32(size_inout_ptr, static_cast<uint32_t>(elements), "get_output: size");
}

}  // namespace wasinn::legacy_nn
