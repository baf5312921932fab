// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "abi/ephemeral_nn.h"

#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/model_format.h"
#include "abi/guest_output.h"
#include "abi/name_check.h"
#include "abi/nn_call_log.h"

namespace wasinn::ephemeral_nn {

int32_t errno_of(Errc code) {
  switch (code) {  // core/errc.def's witx errno
#define WASINN_ERRC(name, plugin_status, witx_errno, wit_case, http_status, grpc_code) \
  case Errc::name:                                                                     \
    return witx_errno;
#include "core/errc.def"
#undef WASINN_ERRC
  }
  return errno_of(Errc::unknown);  // not an Errc at all (a cast of a stray number)
}

int32_t errno_of(const Status& status) { return status.ok() ? 0 : errno_of(status.error().code); }

int32_t answer(const Status& status, std::string_view module, std::string_view function) {
  const int32_t code = errno_of(status);
  if (!status.ok()) log_nn_refusal(module, function, status.error(), std::to_string(code));
  return code;
}

Result<TensorType> decode_tensor_type(uint8_t raw, uint64_t elements, uint64_t data_len) {
  switch (raw) {
    case 0: return TensorType::f16;
    case 1: return TensorType::f32;
    case 2: return (elements > 0 && data_len == elements) ? TensorType::u8 : TensorType::f64;
    case 3: return (elements > 0 && data_len == elements * 4) ? TensorType::i32 : TensorType::u8;
    case 4: return TensorType::i32;
    case 5: return TensorType::i64;
    default:
      return make_error(Errc::invalid_argument,
                        fmt::format("tensor type {} is not a witx tensor_type (0-5: f16 f32 f64 u8 i32 i64)", raw));
  }
}

Result<Target> decode_target(uint32_t raw) {
  if (raw > 3) {
    return make_error(Errc::invalid_argument,
                      fmt::format("execution target {} is not one of 0 cpu, 1 gpu, 2 tpu, 3 auto", raw));
  }
  return static_cast<Target>(raw);
}

Result<Encoding> decode_encoding(uint32_t raw, std::span<const std::span<const uint8_t>> builders) {
  if (raw <= 4) return static_cast<Encoding>(raw);
  if (raw == 5 || raw == 6) {
    if (auto e = detect_encoding(builders)) return *e;
    if (raw == 6) return Encoding::ggml;
    return make_error(Errc::invalid_encoding, std::string(kNoKnownFormat));
  }
  if (raw == 9) return Encoding::whisper;  // WasmEdge's numbering (7 NeuralSpeed, 8 unused)
  if (raw == 11) return Encoding::piper;   // WasmEdge's (10 MLX)
  if (raw == 12) {
    return make_error(Errc::invalid_encoding,
                      "graph encoding 12 is WasmEdge's ChatTTS, which wasinn does not serve: ChatTTS runs as "
                      "Python and PyTorch code at run time (WasmEdge embeds a Python interpreter for it); "
                      "encoding 11, Piper, speaks text with ONNX voices");
  }
  return make_error(
      Errc::invalid_encoding,
      fmt::format("graph encoding {} is not supported: 0 openvino, 1 onnx, 2 tensorflow, 3 pytorch, "
                  "4 tensorflowlite; 5 and 6 autodetect the format from the model bytes (hosts disagree on "
                  "which is ggml; 6, ggml for the Rust crates and WasmEdge, loads as ggml when the "
                  "bytes tell nothing); 9 whisper and 11 piper, as WasmEdge numbers them",
                  raw));
}

namespace {

// A u32 out-parameter is checked before the work, so a bad pointer never leaks a new handle.
Status check_out(const GuestMemoryView& m, uint32_t ptr, std::string_view what) {
  auto b = m.bytes(ptr, 4, what);
  if (!b) return b.take_error();
  return {};
}

Status store_handle(const GuestMemoryView& m, Result<uint32_t> handle, uint32_t out, std::string_view what) {
  if (!handle) return handle.take_error();
  return m.write_u32(out, *handle, what);
}

Result<std::string_view> read_name(const GuestMemoryView& m, uint32_t ptr, uint32_t len) {
  auto name = m.string(ptr, len, "load_by_name: name");
  if (!name) return name.take_error();
  WASINN_TRY(check_model_name(*name));
  return *name;
}

constexpr OutputCall kGetOutput{"get_output", "get_output: bytes_written", "get_output: output buffer"};
constexpr OutputCall kGetOutputSingle{"get_output_single", "get_output_single: bytes_written",
                                      "get_output_single: output buffer"};

// WasmEdge's rule for a text model's output, which LlamaEdge's llama-core relies on: it passes an
// empty Vec (length 0, a large capacity) and reads what WasmEdge's releases wrote there. A
// zero-length buffer of a text model's graph (the plugin's "text_model" fact) takes the output
// where the guest's memory holds it from out_ptr; it lands in the guest's own memory, bounds-checked.
uint32_t wasmedge_text_buffer(const GuestMemoryView& m, const HeldOutput& held, uint32_t out_ptr, uint32_t out_max) {
  const size_t size = held.view.data.size();
  if (out_max != 0 || size == 0 || size > UINT32_MAX || !held.context->graph().plugin().facts().text_model)
    return out_max;
  return m.in_bounds(out_ptr, size) ? static_cast<uint32_t>(size) : out_max;
}

Status copy_output(const GuestMemoryView& m, Result<HeldOutput> held, uint32_t out_ptr, uint32_t out_max,
                   uint32_t written_out, const OutputCall& k) {
  if (!held) return held.take_error();
  const TensorView& view = held->view;
  out_max = wasmedge_text_buffer(m, *held, out_ptr, out_max);
  WASINN_TRY(write_output(m, view.data, out_ptr, out_max, written_out, k, "output",
                          [&] { return " " + describe_tensor(view.type, view.dims); }));
  held->context->graph().metrics().add_output_bytes(view.data.size());
  return {};
}

}  // namespace

Status load(Call c, uint32_t builders_ptr, uint32_t builders_len, uint32_t encoding, uint32_t target,
            uint32_t graph_out) {
  const auto& limits = c.session.environment().limits();
  WASINN_TRY(check_out(c.memory, graph_out, "load: graph out-pointer"));
  // WasmEdge's ChatTTS guest loads with no builders (its model is Python's): the encoding's
  // refusal says why, where "no graph builders" would not.
  if (encoding == 12) return decode_encoding(encoding, {}).take_error();
  if (builders_len == 0) return make_error(Errc::invalid_argument, "load: no graph builders given");
  if (builders_len > limits.max_builders) {
    return make_error(Errc::invalid_argument,
                      fmt::format("load: {} graph builders exceed the limit of {}", builders_len, limits.max_builders));
  }
  auto array = c.memory.bytes(builders_ptr, uint64_t{builders_len} * 8, "load: builder array");
  if (!array) return array.take_error();
  std::vector<std::span<const uint8_t>> builders;
  builders.reserve(builders_len);
  for (uint32_t i = 0; i < builders_len; ++i) {
    uint32_t ptr, len;
    std::memcpy(&ptr, array->data() + i * 8, 4);
    std::memcpy(&len, array->data() + i * 8 + 4, 4);
    auto b = c.memory.bytes(ptr, len, fmt::format("load: builder {}", i));
    if (!b) return b.take_error();
    builders.emplace_back(b->data(), b->size());
  }
  auto t = decode_target(target);
  if (!t) return t.take_error();
  auto e = decode_encoding(encoding, builders);
  if (!e) return e.take_error();
  return store_handle(c.memory, c.session.load(builders, *e, *t), graph_out, "load: graph out-pointer");
}

Status load_by_name(Call c, uint32_t name_ptr, uint32_t name_len, uint32_t graph_out) {
  WASINN_TRY(check_out(c.memory, graph_out, "load_by_name: graph out-pointer"));
  auto name = read_name(c.memory, name_ptr, name_len);
  if (!name) return name.take_error();
  return store_handle(c.memory, c.session.load_by_name(*name, {}), graph_out, "load_by_name: graph out-pointer");
}

Status load_by_name_with_config(Call c, uint32_t name_ptr, uint32_t name_len, uint32_t config_ptr, uint32_t config_len,
                                uint32_t graph_out) {
  WASINN_TRY(check_out(c.memory, graph_out, "load_by_name_with_config: graph out-pointer"));
  auto name = read_name(c.memory, name_ptr, name_len);
  if (!name) return name.take_error();
  const auto& limits = c.session.environment().limits();
  if (config_len > limits.max_config_bytes) {
    return make_error(Errc::too_large, fmt::format("load_by_name_with_config: config of {} bytes exceeds the "
                                                   "limit of {}",
                                                   config_len, limits.max_config_bytes));
  }
  auto config = c.memory.string(config_ptr, config_len, "load_by_name_with_config: config");
  if (!config) return config.take_error();
  auto graph = c.session.load_by_name(*name, *config);
  // Only WasmEdge's GGML guests use this extension, and they expect model_not_found (103).
  if (!graph && graph.error().code == Errc::not_found && !c.session.environment().models().contains(*name)) {
    return make_error(Errc::model_not_found, graph.error().detail);
  }
  return store_handle(c.memory, std::move(graph), graph_out, "load_by_name_with_config: graph out-pointer");
}

Status init_execution_context(Call c, uint32_t graph, uint32_t ctx_out) {
  WASINN_TRY(check_out(c.memory, ctx_out, "init_execution_context: context out-pointer"));
  return store_handle(c.memory, c.session.init_execution_context(graph), ctx_out,
                      "init_execution_context: context out-pointer");
}

Result<std::span<const uint32_t>> read_tensor_dims(Call c, uint32_t dims_ptr, uint32_t rank) {
  const auto& limits = c.session.environment().limits();
  if (rank > limits.max_rank) {
    return make_error(Errc::invalid_argument,
                      fmt::format("set_input: rank {} exceeds the limit of {}", rank, limits.max_rank));
  }
  thread_local std::vector<uint32_t> dims_scratch;
  return c.memory.u32_array(dims_ptr, rank, dims_scratch, "set_input: tensor dims");
}

Status set_input(Call c, uint32_t ctx, uint32_t index, uint32_t tensor_ptr) {
  // The 20-byte witx tensor: dims {ptr, len}, type (one byte; the 3 padding bytes may be
  // garbage), data {ptr, len}.
  auto rec = c.memory.bytes(tensor_ptr, 20, "set_input: tensor");
  if (!rec) return rec.take_error();
  uint32_t dims_ptr, dims_len, data_ptr, data_len;
  std::memcpy(&dims_ptr, rec->data(), 4);
  std::memcpy(&dims_len, rec->data() + 4, 4);
  const uint8_t type_byte = (*rec)[8];
  std::memcpy(&data_ptr, rec->data() + 12, 4);
  std::memcpy(&data_len, rec->data() + 16, 4);

  auto dims = read_tensor_dims(c, dims_ptr, dims_len);
  if (!dims) return dims.take_error();
  auto data = c.memory.bytes(data_ptr, data_len, "set_input: tensor data");
  if (!data) return data.take_error();

  uint64_t elements = 1;
  bool overflow = false;
  for (uint32_t d : *dims) {
    if (d != 0 && elements > UINT64_MAX / d) overflow = true;
    elements *= d;
  }
  if (overflow) {
    return make_error(
        Errc::invalid_argument,
        fmt::format("set_input: the product of the tensor dims [{}] overflows 64 bits", fmt::join(*dims, ", ")));
  }
  auto type = decode_tensor_type(type_byte, elements, data_len);
  if (!type) return type.take_error();
  return c.session.set_input(ctx, TensorId{index, std::nullopt},
                             TensorView{*type, *dims, std::span<const uint8_t>(data->data(), data->size())});
}

Status compute(Call c, uint32_t ctx) { return c.session.compute(ctx); }

Status get_output(Call c, uint32_t ctx, uint32_t index, uint32_t out_ptr, uint32_t out_max, uint32_t written_out) {
  WASINN_TRY(check_output_args(c.memory, out_ptr, out_max, written_out, kGetOutput));
  return copy_output(c.memory, c.session.get_output(ctx, TensorId{index, std::nullopt}), out_ptr, out_max, written_out,
                     kGetOutput);
}

Status compute_single(Call c, uint32_t ctx) { return c.session.compute_single(ctx); }

Status get_output_single(Call c, uint32_t ctx, uint32_t index, uint32_t out_ptr, uint32_t out_max,
                         uint32_t written_out) {
  WASINN_TRY(check_output_args(c.memory, out_ptr, out_max, written_out, kGetOutputSingle));
  return copy_output(c.memory, c.session.get_output_single(ctx, TensorId{index, std::nullopt}), out_ptr, out_max,
                     written_out, kGetOutputSingle);
}

Status fini_single(Call c, uint32_t ctx) { return c.session.fini_single(ctx); }
Status unload(Call c, uint32_t graph) { return c.session.unload(graph); }
Status finalize_execution_context(Call c, uint32_t ctx) { return c.session.finalize_execution_context(ctx); }

}  // namespace wasinn::ephemeral_nn
