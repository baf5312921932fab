// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "core/types.h"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/name_table.h"
#include "wasinn/backend_plugin.h"

namespace wasinn {

size_t element_size(TensorType type) {
  switch (type) {
    case TensorType::f16:
    case TensorType::bf16: return 2;
    case TensorType::f32:
    case TensorType::i32: return 4;
    case TensorType::f64:
    case TensorType::i64: return 8;
    case TensorType::u8:
    case TensorType::i8: return 1;
  }
  return 0;
}

std::string_view type_name(TensorType type) {
  switch (type) {
    case TensorType::f16: return "f16";
    case TensorType::f32: return "f32";
    case TensorType::f64: return "f64";
    case TensorType::bf16: return "bf16";
    case TensorType::u8: return "u8";
    case TensorType::i32: return "i32";
    case TensorType::i64: return "i64";
    case TensorType::i8: return "i8";
  }
  return "?";
}

bool is_valid_type(uint32_t raw) { return raw <= static_cast<uint32_t>(TensorType::i8); }

namespace {

// TensorType crosses the plugin ABI by a cast (graph.cpp, served_model.cpp): each type's number
// is asserted to be its wasinn_tensor_type, and a switch with no default makes a type added
// without one fail to build.
#pragma GCC diagnostic push
#pragma GCC diagnostic error "-Wswitch"
#define WASINN_SAME_TYPE(type, c_type) \
  case TensorType::type: static_assert(static_cast<int>(TensorType::type) == (c_type), #c_type); return c_type;
[[maybe_unused]] constexpr wasinn_tensor_type plugin_type(TensorType type) {
  switch (type) {
    WASINN_SAME_TYPE(f16, WASINN_TYPE_F16)
    WASINN_SAME_TYPE(f32, WASINN_TYPE_F32)
    WASINN_SAME_TYPE(f64, WASINN_TYPE_F64)
    WASINN_SAME_TYPE(bf16, WASINN_TYPE_BF16)
    WASINN_SAME_TYPE(u8, WASINN_TYPE_U8)
    WASINN_SAME_TYPE(i32, WASINN_TYPE_I32)
    WASINN_SAME_TYPE(i64, WASINN_TYPE_I64)
    WASINN_SAME_TYPE(i8, WASINN_TYPE_I8)
  }
  return WASINN_TYPE_UNKNOWN;
}
#undef WASINN_SAME_TYPE
#pragma GCC diagnostic pop

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}
}  // namespace

constexpr NameTable<Encoding, 10> kEncodings{{{{Encoding::openvino, "openvino"},
                                               {Encoding::onnx, "onnx"},
                                               {Encoding::tensorflow, "tensorflow"},
                                               {Encoding::pytorch, "pytorch"},
                                               {Encoding::tensorflowlite, "tensorflowlite"},
                                               {Encoding::ggml, "ggml"},
                                               {Encoding::autodetect, "autodetect"},
                                               {Encoding::remote, "remote"},
                                               {Encoding::whisper, "whisper"},
                                               {Encoding::piper, "piper"}}}};
static_assert(kEncodings.entries.size() == static_cast<size_t>(Encoding::piper) + 1, "an encoding has no name");

std::string_view encoding_name(Encoding encoding) { return kEncodings.name_of(encoding); }

std::optional<Encoding> parse_encoding(std::string_view name) {
  const std::string n = lower(name);
  if (n == "tflite") return Encoding::tensorflowlite;
  if (n == "torch") return Encoding::pytorch;
  if (n == "auto") return Encoding::autodetect;
  return kEncodings.value_of(n);
}

constexpr NameTable<Target, 4> kTargets{
    {{{Target::cpu, "cpu"}, {Target::gpu, "gpu"}, {Target::tpu, "tpu"}, {Target::autodetect, "auto"}}}};

std::string_view target_name(Target target) { return kTargets.name_of(target); }

std::optional<Target> parse_target(std::string_view name) {
  const std::string n = lower(name);
  if (n == "npu") return Target::tpu;
  return kTargets.value_of(n);
}

std::string TensorId::describe() const {
  if (name) return fmt::format("\"{}\"", *name);
  return fmt::format("{}", index);
}

Result<uint64_t> tensor_byte_size(std::span<const uint32_t> dims, TensorType type) {
  uint64_t n = element_size(type);
  for (uint32_t d : dims) {
    if (d != 0 && n > UINT64_MAX / d) {
      return make_error(Errc::invalid_argument,
                        fmt::format("tensor dims {} overflow 64 bits", describe_tensor(type, dims)));
    }
    n *= d;
  }
  return n;
}

std::string describe_tensor(TensorType type, std::span<const uint32_t> dims) {
  return fmt::format("{} [{}]", type_name(type), fmt::join(dims, ", "));
}

}  // namespace wasinn
