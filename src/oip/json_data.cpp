// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "json_data.h"

#include <charconv>
#include <cmath>
#include <limits>
#include <optional>
#include <type_traits>

#include "oip_types.h"

namespace wasinn::oip {
namespace {

using nlohmann::json;

sdk::Error bad(const std::string& what) { return sdk::invalid(what); }

template <typename T>
void write_numbers(std::string& s, const uint8_t* p, size_t n) {
  char buf[32];
  for (size_t i = 0; i < n; ++i) {
    if (i) s += ',';
    T v;
    std::memcpy(&v, p + i * sizeof(T), sizeof(T));
    if constexpr (std::is_floating_point_v<T>) {
      if (!std::isfinite(v)) {
        write_json_number(s, v);
        continue;
      }
    }
    auto r = std::to_chars(buf, buf + sizeof buf, v);
    s.append(buf, r.ptr);
  }
}

}  // namespace

// One JSON number as datatype's bytes. Integers must be integers in range; floats take any number.
sdk::Error append_json_number(const json& v, std::string_view dt, std::string& out) {
  auto integer = [&]<typename T>(T) -> sdk::Error {
    if (v.is_boolean() && dt == "BOOL") {
      append_bytes<T>(out, v.get<bool>() ? 1 : 0);
      return {};
    }
    if (!v.is_number_integer()) return bad(std::string(dt) + " data holds " + describe_json(v));
    if (v.is_number_unsigned()) {
      const uint64_t u = v.get<uint64_t>();
      if (u > static_cast<uint64_t>(std::numeric_limits<T>::max()))
        return bad(std::string(dt) + " data holds " + describe_json(v) + ", out of range");
      append_bytes<T>(out, static_cast<T>(u));
    } else {
      const int64_t s = v.get<int64_t>();
      if ((std::is_unsigned_v<T> && s < 0) ||
          (!std::is_unsigned_v<T> && (s < static_cast<int64_t>(std::numeric_limits<T>::min()) ||
                                      s > static_cast<int64_t>(std::numeric_limits<T>::max()))))
        return bad(std::string(dt) + " data holds " + describe_json(v) + ", out of range");
      append_bytes<T>(out, static_cast<T>(s));
    }
    return {};
  };
  auto real = [&]() -> std::optional<double> {
    if (v.is_number()) return v.get<double>();
    // Triton and numpy write non-finite floats as strings.
    if (v.is_string()) {
      const std::string& s = v.get_ref<const std::string&>();
      if (s == "NaN" || s == "nan") return std::numeric_limits<double>::quiet_NaN();
      if (s == "Infinity" || s == "inf") return std::numeric_limits<double>::infinity();
      if (s == "-Infinity" || s == "-inf") return -std::numeric_limits<double>::infinity();
    }
    return std::nullopt;
  };
  if (dt == "BOOL" || dt == "UINT8") return integer(uint8_t{});
  if (dt == "INT8") return integer(int8_t{});
  if (dt == "UINT16") return integer(uint16_t{});
  if (dt == "INT16") return integer(int16_t{});
  if (dt == "UINT32") return integer(uint32_t{});
  if (dt == "INT32") return integer(int32_t{});
  if (dt == "UINT64") return integer(uint64_t{});
  if (dt == "INT64") return integer(int64_t{});
  const auto d = real();
  if (!d) return bad(std::string(dt) + " data holds " + describe_json(v));
  if (dt == "FP32")
    append_bytes<float>(out, static_cast<float>(*d));
  else if (dt == "FP64")
    append_bytes<double>(out, *d);
  else if (dt == "FP16")
    append_bytes<uint16_t>(out, float_to_half(static_cast<float>(*d)));
  else if (dt == "BF16")
    append_bytes<uint16_t>(out, float_to_bf16(static_cast<float>(*d)));
  else
    return bad("datatype \"" + std::string(dt) + "\" cannot be read from JSON");
  return {};
}

// Flattens nested arrays (the spec allows either form), depth-bounded against hostile input.
sdk::Error flatten_json_data(const json& v, std::string_view dt, std::string& out, int depth) {
  if (depth > 64) return bad("data nested more than 64 deep");
  if (!v.is_array()) return append_json_number(v, dt, out);
  for (const json& e : v)
    if (sdk::Error err = flatten_json_data(e, dt, out, depth + 1)) return err;
  return {};
}

std::string describe_json(const json& v) {
  if (v.is_array()) return "an array";
  if (v.is_object()) return "an object";
  return v.dump(-1, ' ', false, json::error_handler_t::replace);
}

void write_json_number(std::string& s, double d) {
  char buf[32];
  if (!std::isfinite(d)) {
    s += std::isnan(d) ? "\"NaN\"" : (d > 0 ? "\"Infinity\"" : "\"-Infinity\"");
    return;
  }
  auto r = std::to_chars(buf, buf + sizeof buf, d);
  s.append(buf, r.ptr);
}

void write_json_data(std::string& s, std::string_view dt, std::span<const uint8_t> bytes) {
  const size_t es = datatype_size(dt);
  const size_t n = es ? bytes.size() / es : 0;
  const uint8_t* p = bytes.data();
  if (dt == "FP32")
    write_numbers<float>(s, p, n);
  else if (dt == "FP64")
    write_numbers<double>(s, p, n);
  else if (dt == "INT8")
    write_numbers<int8_t>(s, p, n);
  else if (dt == "INT16")
    write_numbers<int16_t>(s, p, n);
  else if (dt == "INT32")
    write_numbers<int32_t>(s, p, n);
  else if (dt == "INT64")
    write_numbers<int64_t>(s, p, n);
  else if (dt == "UINT8")
    write_numbers<uint8_t>(s, p, n);
  else if (dt == "UINT16")
    write_numbers<uint16_t>(s, p, n);
  else if (dt == "UINT32")
    write_numbers<uint32_t>(s, p, n);
  else if (dt == "UINT64")
    write_numbers<uint64_t>(s, p, n);
  else if (dt == "BOOL") {
    for (size_t i = 0; i < n; ++i) s += i ? (p[i] ? ",true" : ",false") : (p[i] ? "true" : "false");
  } else if (dt == "FP16" || dt == "BF16") {
    for (size_t i = 0; i < n; ++i) {
      if (i) s += ',';
      uint16_t h;
      std::memcpy(&h, p + 2 * i, 2);
      const float f = dt == "FP16" ? half_to_float(h) : bf16_to_float(h);
      if (!std::isfinite(f)) {
        write_json_number(s, f);
        continue;
      }
      char buf[32];
      auto r = std::to_chars(buf, buf + sizeof buf, f);
      s.append(buf, r.ptr);
    }
  }
}

void write_json_shape(std::string& s, std::span<const int64_t> shape) {
  s += '[';
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ',';
    s += std::to_string(shape[i]);
  }
  s += ']';
}

}  // namespace wasinn::oip
