// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Tensor data as JSON numbers, both ways, for every v2 datatype with a fixed size: what the
// client's request encoder and response decoder (json_codec) and the server's request decoder
// and response encoder (server_json) share. Reading takes untrusted JSON: every value is
// checked against its datatype (an integer in range for an integer type, a number or Triton's
// "NaN"/"Infinity" strings for a float type), nesting is bounded. Errors are invalid_argument
// with a bare detail; each caller says whose data it was. Pure; thread-safe.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "wasinn/plugin_sdk/error.hpp"

namespace wasinn::oip {

template <typename T>
void append_bytes(std::string& out, T v) {
  const size_t at = out.size();
  out.resize(at + sizeof v);
  std::memcpy(out.data() + at, &v, sizeof v);
}

// One JSON value as datatype dt's little-endian bytes, appended to out.
sdk::Error append_json_number(const nlohmann::json& v, std::string_view dt, std::string& out);

// A "data" value: a number, or arrays of them nested any way (the spec allows flat or
// nested), flattened in row-major order; nesting deeper than 64 is refused.
sdk::Error flatten_json_data(const nlohmann::json& v, std::string_view dt, std::string& out, int depth = 0);

// A number as JSON; a non-finite one as the string Triton and numpy write ("NaN", "Infinity").
void write_json_number(std::string& s, double d);

// The elements of `bytes` (datatype dt, row-major) as comma-separated JSON numbers, without
// the brackets; BOOL as true/false. A datatype with no fixed size writes nothing.
void write_json_data(std::string& s, std::string_view dt, std::span<const uint8_t> bytes);

// A JSON value for a message: a scalar as JSON writes it (bad UTF-8 replaced), an array or
// object by its kind only: dumping a hostile value nested a million deep would recurse as deep.
std::string describe_json(const nlohmann::json& v);

// [d0,d1,...]
void write_json_shape(std::string& s, std::span<const int64_t> shape);

}  // namespace wasinn::oip
