// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The fast path for JSON "data" arrays (json_fast_data.h).
#include "json_fast_data.h"

#include <charconv>
#include <cstdint>
#include <type_traits>

#include "json_data.h"
#include "oip_types.h"

namespace wasinn::oip {
namespace {

using nlohmann::json;

constexpr std::string_view kMarker = "\\u0001wasinn-data:";    // as it stands in JSON text
constexpr std::string_view kMarkerValue = "\x01wasinn-data:";  // the string nlohmann makes of it

// The end of a JSON number token starting at p (RFC 8259 grammar), or nullptr if none starts there.
const char* json_number_end(const char* p, const char* end) {
  if (p < end && *p == '-') ++p;
  if (p >= end) return nullptr;
  if (*p == '0') {
    ++p;
  } else if (*p >= '1' && *p <= '9') {
    while (p < end && *p >= '0' && *p <= '9') ++p;
  } else {
    return nullptr;
  }
  if (p < end && *p == '.') {
    ++p;
    const char* digits = p;
    while (p < end && *p >= '0' && *p <= '9') ++p;
    if (p == digits) return nullptr;
  }
  if (p < end && (*p == 'e' || *p == 'E')) {
    ++p;
    if (p < end && (*p == '+' || *p == '-')) ++p;
    const char* digits = p;
    while (p < end && *p >= '0' && *p <= '9') ++p;
    if (p == digits) return nullptr;
  }
  return p;
}

bool is_ws(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// If [p, end) starts with a flat array of JSON numbers, the end of that array (after ']').
const char* flat_number_array_end(const char* p, const char* end) {
  if (p >= end || *p != '[') return nullptr;
  ++p;
  while (p < end && is_ws(*p)) ++p;
  if (p < end && *p == ']') return p + 1;
  for (;;) {
    while (p < end && is_ws(*p)) ++p;
    p = json_number_end(p, end);
    if (!p) return nullptr;
    while (p < end && is_ws(*p)) ++p;
    if (p >= end) return nullptr;
    if (*p == ']') return p + 1;
    if (*p != ',') return nullptr;
    ++p;
  }
}

bool integer_token(const char* p, const char* end) {
  for (; p < end; ++p)
    if (*p == '.' || *p == 'e' || *p == 'E') return false;
  return true;
}

// A number token as the double nlohmann's get<double>() gives: an integer token is read as a
// 64-bit integer first (so "-0" is 0, not -0.0), one too large for that as a float.
bool token_as_double(const char* p, const char* end, double& d) {
  if (integer_token(p, end)) {
    if (*p == '-') {
      int64_t i;
      auto [ptr, ec] = std::from_chars(p, end, i);
      if (ec == std::errc() && ptr == end) {
        d = static_cast<double>(i);
        return true;
      }
    } else {
      uint64_t u;
      auto [ptr, ec] = std::from_chars(p, end, u);
      if (ec == std::errc() && ptr == end) {
        d = static_cast<double>(u);
        return true;
      }
    }
  }
  auto [ptr, ec] = std::from_chars(p, end, d);
  return ec == std::errc() && ptr == end;  // out of double's range: the general path decides
}

// Reads a flat number array's text as datatype `dt` into out, as append_number would read the
// same numbers parsed by nlohmann; false for anything it would not accept alike (it then takes
// the general path).
template <typename T>
bool read_numbers(std::string_view array, std::string& out) {
  const char *p = array.data() + 1, *end = array.data() + array.size() - 1;  // inside [ ]
  for (;;) {
    while (p < end && (is_ws(*p) || *p == ',')) ++p;
    if (p >= end) return true;
    const char* tok_end = json_number_end(p, end);  // validated already; finds the token's end
    if (!tok_end) return false;
    T v;
    if constexpr (std::is_integral_v<T>) {
      // nlohmann reads a token with '.', 'e' or 'E' as a float, which append_number refuses for
      // an integer datatype: leave such tokens (and any out of range) to the general path.
      if (!integer_token(p, tok_end)) return false;
      auto [ptr, ec] = std::from_chars(p, tok_end, v);
      if (ec != std::errc() || ptr != tok_end) return false;
    } else {
      double d;
      if (!token_as_double(p, tok_end, d)) return false;
      v = static_cast<T>(d);
    }
    append_bytes<T>(out, v);
    p = tok_end;
  }
}

bool read_halves(std::string_view array, bool bf16, std::string& out) {
  const char *p = array.data() + 1, *end = array.data() + array.size() - 1;
  for (;;) {
    while (p < end && (is_ws(*p) || *p == ',')) ++p;
    if (p >= end) return true;
    const char* tok_end = json_number_end(p, end);
    if (!tok_end) return false;
    double d;
    if (!token_as_double(p, tok_end, d)) return false;
    const float f = static_cast<float>(d);
    append_bytes<uint16_t>(out, bf16 ? float_to_bf16(f) : float_to_half(f));
    p = tok_end;
  }
}

}  // namespace

// `text` with every flat number array that is the value of a "data" key replaced by the marker
// string numbered by its place in `arrays`, or `text` unchanged when it has none.
std::string cut_data_arrays(std::string_view text, std::vector<std::string_view>& arrays) {
  std::string out;
  const char *p = text.data(), *end = p + text.size(), *copied = p;
  while (p < end) {
    if (*p != '"') {
      ++p;
      continue;
    }
    const char* str = ++p;  // a string token: skip to its closing quote
    while (p < end && *p != '"') p += (*p == '\\') ? 2 : 1;
    if (p >= end) break;
    const bool data_key = std::string_view(str, p - str) == "data";
    ++p;
    if (!data_key) continue;
    const char* q = p;
    while (q < end && is_ws(*q)) ++q;
    if (q >= end || *q != ':') continue;
    ++q;
    while (q < end && is_ws(*q)) ++q;
    const char* array_end = flat_number_array_end(q, end);
    if (!array_end) continue;
    out.append(copied, q);
    out += '"';
    out += kMarker;
    out += std::to_string(arrays.size());
    out += '"';
    arrays.emplace_back(q, array_end - q);
    p = copied = array_end;
  }
  if (arrays.empty()) return std::string(text);
  out.append(copied, end);
  return out;
}

// The cut-out array as datatype dt's bytes; false: take the general path.
bool read_fast(std::string_view array, std::string_view dt, std::string& out) {
  if (dt == "UINT8") return read_numbers<uint8_t>(array, out);
  if (dt == "INT8") return read_numbers<int8_t>(array, out);
  if (dt == "UINT16") return read_numbers<uint16_t>(array, out);
  if (dt == "INT16") return read_numbers<int16_t>(array, out);
  if (dt == "UINT32") return read_numbers<uint32_t>(array, out);
  if (dt == "INT32") return read_numbers<int32_t>(array, out);
  if (dt == "UINT64") return read_numbers<uint64_t>(array, out);
  if (dt == "INT64") return read_numbers<int64_t>(array, out);
  if (dt == "FP32") return read_numbers<float>(array, out);
  if (dt == "FP64") return read_numbers<double>(array, out);
  if (dt == "FP16" || dt == "BF16") return read_halves(array, dt == "BF16", out);
  return false;  // BOOL takes true/false, not numbers alone; others are refused there
}

// The cut-out array a "data" value stands for, when it is one of the markers.
std::optional<std::string_view> marked_array(const json& data, const std::vector<std::string_view>& arrays) {
  if (arrays.empty() || !data.is_string()) return std::nullopt;
  const std::string& s = data.get_ref<const std::string&>();
  if (!s.starts_with(kMarkerValue)) return std::nullopt;
  size_t k = 0;
  const char* digits = s.data() + kMarkerValue.size();
  auto [ptr, ec] = std::from_chars(digits, s.data() + s.size(), k);
  // A server's own string that merely looks like a marker is its data, refused as a string.
  if (ec != std::errc() || ptr != s.data() + s.size() || k >= arrays.size()) return std::nullopt;
  return arrays[k];
}

}  // namespace wasinn::oip
