// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "oip_types.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace wasinn::oip {
namespace {

struct Datatype {
  const char* name;
  size_t size;
  std::optional<wasinn_tensor_type> wasinn;
};

// Every datatype of the v2 spec, plus Triton's BF16.
constexpr Datatype kDatatypes[] = {
    {"BOOL", 1, std::nullopt},     {"UINT8", 1, WASINN_TYPE_U8},  {"UINT16", 2, std::nullopt},
    {"UINT32", 4, std::nullopt},   {"UINT64", 8, std::nullopt},   {"INT8", 1, WASINN_TYPE_I8},
    {"INT16", 2, std::nullopt},    {"INT32", 4, WASINN_TYPE_I32}, {"INT64", 8, WASINN_TYPE_I64},
    {"FP16", 2, WASINN_TYPE_F16},  {"FP32", 4, WASINN_TYPE_F32},  {"FP64", 8, WASINN_TYPE_F64},
    {"BF16", 2, WASINN_TYPE_BF16}, {"BYTES", 0, std::nullopt},
};

}  // namespace

const char* to_datatype(int32_t wasinn_type) {
  for (const Datatype& d : kDatatypes)
    if (d.wasinn && *d.wasinn == wasinn_type) return d.name;
  return nullptr;
}

std::optional<wasinn_tensor_type> from_datatype(std::string_view datatype) {
  for (const Datatype& d : kDatatypes)
    if (datatype == d.name) return d.wasinn;
  return std::nullopt;
}

size_t datatype_size(std::string_view datatype) {
  for (const Datatype& d : kDatatypes)
    if (datatype == d.name) return d.size;
  return 0;
}

std::optional<size_t> tensor_bytes(std::string_view datatype, std::span<const int64_t> shape) {
  size_t n = datatype_size(datatype);
  if (n == 0) return std::nullopt;
  for (int64_t d : shape) {
    if (d < 0) return std::nullopt;
    const auto ud = static_cast<uint64_t>(d);
    if (ud != 0 && n > std::numeric_limits<size_t>::max() / ud) return std::nullopt;
    n *= ud;
  }
  return n;
}

sdk::Error malformed_response(const std::string& what) {
  return sdk::runtime_error("remote: the server's response is malformed: " + what);
}

sdk::Error bytes_fit(const OutputTensor& t, size_t got, size_t want, bool as_bytes) {
  if (got == want) return {};
  if (as_bytes)
    return malformed_response("output \"" + t.name + "\" has " + std::to_string(got) +
                              " bytes, its shape and datatype need " + std::to_string(want));
  const size_t size = datatype_size(t.datatype);
  return malformed_response("output \"" + t.name + "\" has " + std::to_string(got / size) +
                            " elements, its shape needs " + std::to_string(want / size));
}

float half_to_float(uint16_t h) {
  const uint32_t sign = (h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1f;
  const uint32_t mant = h & 0x3ffu;
  float f;
  if (exp == 0) {
    f = std::ldexp(static_cast<float>(mant), -24);  // zero or subnormal
    return sign ? -f : f;
  }
  uint32_t u;
  if (exp == 31)
    u = sign | 0x7f800000u | (mant << 13);  // inf or nan
  else
    u = sign | ((exp + 112) << 23) | (mant << 13);
  std::memcpy(&f, &u, 4);
  return f;
}

uint16_t float_to_half(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  const uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000u);
  const uint32_t abs = u & 0x7fffffffu;
  if (abs >= 0x7f800000u) return sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0);  // inf/nan
  if (abs >= 0x477ff000u) return sign | 0x7c00u;                                     // overflow
  if (abs < 0x38800000u) {                                                           // subnormal
    float a;
    std::memcpy(&a, &abs, 4);
    return sign | static_cast<uint16_t>(std::nearbyint(a * 16777216.0f));
  }
  // Round to nearest even on the 13 dropped bits.
  const uint32_t rounded = abs + 0xfffu + ((abs >> 13) & 1u);
  return sign | static_cast<uint16_t>((rounded - 0x38000000u) >> 13);
}

uint16_t float_to_bf16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x40u);  // nan
  return static_cast<uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

}  // namespace wasinn::oip
