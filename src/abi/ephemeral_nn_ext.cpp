// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "abi/ephemeral_nn_ext.h"

#include "abi/guest_output.h"

#include <cstring>
#include <string>

#include <fmt/format.h>

namespace wasinn::ephemeral_nn {

uint32_t witx_type_number(TensorType type) {
  switch (type) {
    case TensorType::f16: return 0;
    case TensorType::f32: return 1;
    case TensorType::f64: return 2;
    case TensorType::u8: return 3;
    case TensorType::i32: return 4;
    case TensorType::i64: return 5;
    case TensorType::bf16:
    case TensorType::i8: break;
  }
  return kTypeNone;
}

namespace {

Result<const std::vector<IoInfo>*> io_side(const Graph& g, uint32_t side, std::string_view fn) {
  if (side > 1) {
    return make_error(Errc::invalid_argument,
                      fmt::format("{}: side {} is neither 0 (inputs) nor 1 (outputs)", fn, side));
  }
  return side == 0 ? &g.inputs() : &g.outputs();
}

constexpr OutputCall kListProperties{"graph_list_properties", "graph_list_properties: bytes written",
                                     "graph_list_properties: buffer"};
constexpr OutputCall kGetProperty{"graph_get_property", "graph_get_property: bytes written",
                                  "graph_get_property: buffer"};
constexpr OutputCall kPrompt{"prompt", "prompt: bytes written", "prompt: buffer"};

// Text into a guest buffer, as get_output writes bytes.
Status write_text(const GuestMemoryView& m, std::string_view text, uint32_t buf, uint32_t buf_max, uint32_t written_out,
                  const OutputCall& k, std::string_view noun) {
  WASINN_TRY(check_output_args(m, buf, buf_max, written_out, k));
  return write_output(m, {reinterpret_cast<const uint8_t*>(text.data()), text.size()}, buf, buf_max, written_out, k,
                      noun, [] { return ""; });
}

// A name over --max-name-bytes is a bad argument, as a model name is; a value or prompt over its
// limit is too_large, as a config or tensor is.
Result<std::string_view> read_text(const GuestMemoryView& m, uint32_t ptr, uint32_t len, uint64_t max,
                                   std::string_view what, Errc over = Errc::too_large) {
  if (len > max) return make_error(over, fmt::format("{}: {} bytes exceed the limit of {}", what, len, max));
  return m.string(ptr, len, what);
}

}  // namespace

Status graph_io_count(Call c, uint32_t graph, uint32_t side, uint32_t count_out) {
  WASINN_TRY(c.memory.bytes(count_out, 4, "graph_io_count: count out-pointer"));
  auto g = c.session.graph(graph);
  if (!g) return g.take_error();
  auto io = io_side(**g, side, "graph_io_count");
  if (!io) return io.take_error();
  return c.memory.write_u32(count_out, static_cast<uint32_t>((*io)->size()), "graph_io_count: count out-pointer");
}

Status graph_io_info(Call c, uint32_t graph, uint32_t side, uint32_t index, uint32_t name_ptr, uint32_t name_max,
                     uint32_t name_len_out, uint32_t type_out, uint32_t dims_ptr, uint32_t dims_max,
                     uint32_t rank_out) {
  const GuestMemoryView& m = c.memory;
  WASINN_TRY(m.bytes(name_len_out, 4, "graph_io_info: name length out-pointer"));
  WASINN_TRY(m.bytes(type_out, 4, "graph_io_info: type out-pointer"));
  WASINN_TRY(m.bytes(rank_out, 4, "graph_io_info: rank out-pointer"));
  auto name_buf = m.bytes(name_ptr, name_max, "graph_io_info: name buffer");
  if (!name_buf) return name_buf.take_error();
  auto dims_buf = m.bytes(dims_ptr, uint64_t{dims_max} * 8, "graph_io_info: dims buffer");
  if (!dims_buf) return dims_buf.take_error();
  auto g = c.session.graph(graph);
  if (!g) return g.take_error();
  auto io = io_side(**g, side, "graph_io_info");
  if (!io) return io.take_error();
  if (index >= (*io)->size()) {
    return make_error(Errc::invalid_argument, fmt::format("graph_io_info: {} {} does not exist; the graph has {}",
                                                          side == 0 ? "input" : "output", index, (*io)->size()));
  }
  const IoInfo& info = (**io)[index];
  const uint32_t rank = info.dims ? static_cast<uint32_t>(info.dims->size()) : kRankUnknown;
  const bool fits = info.name.size() <= name_max && (!info.dims || info.dims->size() <= dims_max);
  // The name and dims first, then the counts: the counts win where the guest made them overlap.
  if (fits) {
    if (!info.name.empty()) std::memcpy(name_buf->data(), info.name.data(), info.name.size());
    if (info.dims && !info.dims->empty()) std::memcpy(dims_buf->data(), info.dims->data(), info.dims->size() * 8);
  }
  WASINN_TRY(
      m.write_u32(name_len_out, static_cast<uint32_t>(info.name.size()), "graph_io_info: name length out-pointer"));
  WASINN_TRY(
      m.write_u32(type_out, info.type ? witx_type_number(*info.type) : kTypeNone, "graph_io_info: type out-pointer"));
  WASINN_TRY(m.write_u32(rank_out, rank, "graph_io_info: rank out-pointer"));
  if (!fits) {
    return make_error(Errc::too_large,
                      fmt::format("graph_io_info: the name needs {} bytes (buffer {}) and the dims {} "
                                  "entries (buffer {})",
                                  info.name.size(), name_max, info.dims ? info.dims->size() : 0, dims_max));
  }
  return {};
}

Status graph_list_properties(Call c, uint32_t graph, uint32_t buf, uint32_t buf_max, uint32_t written_out) {
  auto all = c.session.properties(graph);
  if (!all) return all.take_error();
  std::string names;
  for (const auto& p : *all) {
    names += p.name;
    names += '\0';
  }
  return write_text(c.memory, names, buf, buf_max, written_out, kListProperties, "the property list");
}

Status graph_get_property(Call c, uint32_t graph, uint32_t name_ptr, uint32_t name_len, uint32_t buf, uint32_t buf_max,
                          uint32_t written_out) {
  auto name = read_text(c.memory, name_ptr, name_len, c.session.environment().limits().max_name_bytes,
                        "graph_get_property: name", Errc::invalid_argument);
  if (!name) return name.take_error();
  auto value = c.session.get_property(graph, *name);
  if (!value) return value.take_error();
  return write_text(c.memory, *value, buf, buf_max, written_out, kGetProperty, "the value");
}

namespace {
template <class Set>
Status set_property(Call c, uint32_t name_ptr, uint32_t name_len, uint32_t value_ptr, uint32_t value_len,
                    std::string_view fn, Set&& set) {
  const auto& limits = c.session.environment().limits();
  auto name = read_text(c.memory, name_ptr, name_len, limits.max_name_bytes, fmt::format("{}: name", fn),
                        Errc::invalid_argument);
  if (!name) return name.take_error();
  auto value = read_text(c.memory, value_ptr, value_len, limits.max_config_bytes, fmt::format("{}: value", fn));
  if (!value) return value.take_error();
  return set(*name, *value);
}
}  // namespace

Status graph_set_property(Call c, uint32_t graph, uint32_t name_ptr, uint32_t name_len, uint32_t value_ptr,
                          uint32_t value_len) {
  return set_property(
      c, name_ptr, name_len, value_ptr, value_len, "graph_set_property",
      [&](std::string_view n, std::string_view v) { return c.session.set_graph_property(graph, n, v); });
}

Status context_set_property(Call c, uint32_t ctx, uint32_t name_ptr, uint32_t name_len, uint32_t value_ptr,
                            uint32_t value_len) {
  return set_property(
      c, name_ptr, name_len, value_ptr, value_len, "context_set_property",
      [&](std::string_view n, std::string_view v) { return c.session.set_context_property(ctx, n, v); });
}

Status prompt(Call c, uint32_t ctx, uint32_t prompt_ptr, uint32_t prompt_len, uint32_t out_ptr, uint32_t out_max,
              uint32_t written_out) {
  WASINN_TRY(check_output_args(c.memory, out_ptr, out_max, written_out, kPrompt));
  auto text =
      read_text(c.memory, prompt_ptr, prompt_len, c.session.environment().limits().max_tensor_bytes, "prompt: prompt");
  if (!text) return text.take_error();
  auto answer = c.session.prompt(ctx, *text);
  if (!answer) return answer.take_error();
  return write_text(c.memory, *answer, out_ptr, out_max, written_out, kPrompt, "the answer");
}

}  // namespace wasinn::ephemeral_nn
