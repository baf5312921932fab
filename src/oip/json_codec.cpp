#include "json_codec.h"

#include "json_data.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <optional>
#include <cstring>
#include <limits>
#include <type_traits>

namespace wasinn::oip {
namespace {

using nlohmann::json;

sdk::Error malformed(const std::string &what) { return malformed_response(what); }

// The JSON of `text`, or discarded.
json parse(std::string_view text) {
  return json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
}

sdk::Error decode_tensor_meta(const json &list, const char *what, std::vector<TensorMeta> &out) {
  if (!list.is_array()) return malformed(std::string("\"") + what + "\" is not an array");
  for (const json &t : list) {
    if (!t.is_object()) return malformed(std::string("an entry of \"") + what + "\" is not an object");
    auto name = t.find("name"), datatype = t.find("datatype"), shape = t.find("shape");
    if (name == t.end() || !name->is_string() || datatype == t.end() || !datatype->is_string() ||
        shape == t.end() || !shape->is_array())
      return malformed(std::string("an entry of \"") + what +
                       "\" lacks a string name, a string datatype or an array shape");
    TensorMeta m;
    m.name = name->get<std::string>();
    m.datatype = datatype->get<std::string>();
    for (const json &d : *shape) {
      if (!d.is_number_integer()) return malformed("a shape holds a non-integer: " + describe_json(d));
      m.shape.push_back(d.is_number_unsigned() && d.get<uint64_t>() > INT64_MAX ? INT64_MAX
                                                                                 : d.get<int64_t>());
    }
    out.push_back(std::move(m));
  }
  return {};
}


// --- The fast path for "data" arrays -------------------------------------------------------
// The text's flat number arrays under "data" keys are cut out and replaced by a marker string
// before nlohmann parses the rest; each marked output is then read from its cut-out text.
constexpr std::string_view kMarker = "\\u0001wasinn-data:";  // as it stands in JSON text
constexpr std::string_view kMarkerValue = "\x01wasinn-data:";  // the string nlohmann makes of it

// The end of a JSON number token starting at p (RFC 8259 grammar), or nullptr if none starts there.
const char *json_number_end(const char *p, const char *end) {
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
    const char *digits = p;
    while (p < end && *p >= '0' && *p <= '9') ++p;
    if (p == digits) return nullptr;
  }
  if (p < end && (*p == 'e' || *p == 'E')) {
    ++p;
    if (p < end && (*p == '+' || *p == '-')) ++p;
    const char *digits = p;
    while (p < end && *p >= '0' && *p <= '9') ++p;
    if (p == digits) return nullptr;
  }
  return p;
}

bool is_ws(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// If [p, end) starts with a flat array of JSON numbers, the end of that array (after ']').
const char *flat_number_array_end(const char *p, const char *end) {
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

// `text` with every flat number array that is the value of a "data" key replaced by the marker
// string numbered by its place in `arrays`, or `text` unchanged when it has none.
std::string cut_data_arrays(std::string_view text, std::vector<std::string_view> &arrays) {
  std::string out;
  const char *p = text.data(), *end = p + text.size(), *copied = p;
  while (p < end) {
    if (*p != '"') {
      ++p;
      continue;
    }
    const char *str = ++p;  // a string token: skip to its closing quote
    while (p < end && *p != '"') p += (*p == '\\') ? 2 : 1;
    if (p >= end) break;
    const bool data_key = std::string_view(str, p - str) == "data";
    ++p;
    if (!data_key) continue;
    const char *q = p;
    while (q < end && is_ws(*q)) ++q;
    if (q >= end || *q != ':') continue;
    ++q;
    while (q < end && is_ws(*q)) ++q;
    const char *array_end = flat_number_array_end(q, end);
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

bool integer_token(const char *p, const char *end) {
  for (; p < end; ++p)
    if (*p == '.' || *p == 'e' || *p == 'E') return false;
  return true;
}

// A number token as the double nlohmann's get<double>() gives: an integer token is read as a
// 64-bit integer first (so "-0" is 0, not -0.0), one too large for that as a float.
bool token_as_double(const char *p, const char *end, double &d) {
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
bool read_numbers(std::string_view array, std::string &out) {
  const char *p = array.data() + 1, *end = array.data() + array.size() - 1;  // inside [ ]
  for (;;) {
    while (p < end && (is_ws(*p) || *p == ',')) ++p;
    if (p >= end) return true;
    const char *tok_end = json_number_end(p, end);  // validated already; finds the token's end
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

bool read_halves(std::string_view array, bool bf16, std::string &out) {
  const char *p = array.data() + 1, *end = array.data() + array.size() - 1;
  for (;;) {
    while (p < end && (is_ws(*p) || *p == ',')) ++p;
    if (p >= end) return true;
    const char *tok_end = json_number_end(p, end);
    if (!tok_end) return false;
    double d;
    if (!token_as_double(p, tok_end, d)) return false;
    const float f = static_cast<float>(d);
    append_bytes<uint16_t>(out, bf16 ? float_to_bf16(f) : float_to_half(f));
    p = tok_end;
  }
}

// The cut-out array as datatype dt's bytes; false: take the general path.
bool read_fast(std::string_view array, std::string_view dt, std::string &out) {
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
std::optional<std::string_view> marked_array(const json &data, const std::vector<std::string_view> &arrays) {
  if (arrays.empty() || !data.is_string()) return std::nullopt;
  const std::string &s = data.get_ref<const std::string &>();
  if (!s.starts_with(kMarkerValue)) return std::nullopt;
  size_t k = 0;
  const char *digits = s.data() + kMarkerValue.size();
  auto [ptr, ec] = std::from_chars(digits, s.data() + s.size(), k);
  // A server's own string that merely looks like a marker is its data, refused as a string.
  if (ec != std::errc() || ptr != s.data() + s.size() || k >= arrays.size()) return std::nullopt;
  return arrays[k];
}

}  // namespace

sdk::Error decode_model_metadata_json(std::string_view body, ModelMeta &out) {
  out = {};
  const json j = parse(body);
  if (!j.is_object()) return malformed("model metadata is not a JSON object");
  if (auto it = j.find("name"); it != j.end() && it->is_string()) out.name = it->get<std::string>();
  if (auto it = j.find("platform"); it != j.end() && it->is_string())
    out.platform = it->get<std::string>();
  if (auto it = j.find("versions"); it != j.end() && it->is_array())
    for (const json &v : *it)
      if (v.is_string()) out.versions.push_back(v.get<std::string>());
  // A model may declare no inputs or outputs at all (MLServer without a signature).
  if (auto it = j.find("inputs"); it != j.end())
    if (sdk::Error e = decode_tensor_meta(*it, "inputs", out.inputs)) return e;
  if (auto it = j.find("outputs"); it != j.end())
    if (sdk::Error e = decode_tensor_meta(*it, "outputs", out.outputs)) return e;
  return {};
}

std::vector<std::string> decode_server_extensions_json(std::string_view body) {
  std::vector<std::string> out;
  const json j = parse(body);
  if (!j.is_object()) return out;
  if (auto it = j.find("extensions"); it != j.end() && it->is_array())
    for (const json &e : *it)
      if (e.is_string()) out.push_back(e.get<std::string>());
  return out;
}

std::string error_text_json(std::string_view body) {
  const json j = parse(body);
  if (j.is_object())
    if (auto it = j.find("error"); it != j.end()) {
      if (it->is_string()) return sdk::one_line(it->get<std::string>());
      return sdk::one_line(describe_json(*it));
    }
  std::string text(body.substr(0, 200));
  for (char &c : text)
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) c = ' ';
  return sdk::one_line(text);
}

std::string encode_infer_json(std::span<const InputTensor> inputs,
                              std::span<const std::string> output_names, bool binary) {
  std::string s;
  size_t guess = 64;
  for (const auto &t : inputs) guess += 96 + (binary ? 0 : t.data.size() * 3);
  s.reserve(guess);
  s += "{\"inputs\":[";
  for (size_t i = 0; i < inputs.size(); ++i) {
    const InputTensor &t = inputs[i];
    if (i) s += ',';
    s += "{\"name\":";
    s += json(std::string(t.name)).dump();
    s += ",\"datatype\":\"";
    s += t.datatype;
    s += "\",\"shape\":";
    write_json_shape(s, t.shape);
    if (binary) {
      s += ",\"parameters\":{\"binary_data_size\":" + std::to_string(t.data.size()) + "}}";
    } else {
      s += ",\"data\":[";
      write_json_data(s, t.datatype, t.data);
      s += "]}";
    }
  }
  s += ']';
  if (binary) {
    s += ",\"outputs\":[";
    for (size_t i = 0; i < output_names.size(); ++i) {
      if (i) s += ',';
      s += "{\"name\":" + json(output_names[i]).dump() + ",\"parameters\":{\"binary_data\":true}}";
    }
    s += ']';
  }
  s += '}';
  return s;
}

sdk::Error decode_infer_json(std::string_view text, std::span<const uint8_t> tail,
                             std::vector<OutputTensor> &out, bool fast_data) {
  out.clear();
  std::vector<std::string_view> arrays;  // the cut-out "data" arrays, by marker number
  const std::string cut = fast_data ? cut_data_arrays(text, arrays) : std::string();
  const json j = parse(arrays.empty() ? text : std::string_view(cut));
  if (!j.is_object()) return malformed("the inference response is not a JSON object");
  auto outputs = j.find("outputs");
  if (outputs == j.end() || !outputs->is_array()) return malformed("no \"outputs\" array");
  size_t used = 0;
  size_t arrays_read = 0;  // cut-out arrays some output's "data" turned out to be
  for (const json &o : *outputs) {
    if (!o.is_object()) return malformed("an output is not an object");
    std::vector<TensorMeta> one;
    if (sdk::Error e = decode_tensor_meta(json::array({o}), "outputs", one)) return e;
    OutputTensor t{std::move(one[0].name), std::move(one[0].datatype), std::move(one[0].shape), {}};
    const std::optional<size_t> want = tensor_bytes(t.datatype, t.shape);
    if (!want)
      return malformed("output \"" + t.name + "\" has datatype " + t.datatype + " and shape " +
                       o["shape"].dump() + ", whose size is not a fixed number of bytes");
    std::optional<uint64_t> binary_size;
    if (auto p = o.find("parameters"); p != o.end() && p->is_object())
      if (auto b = p->find("binary_data_size"); b != p->end()) {
        if (!b->is_number_unsigned()) return malformed("a binary_data_size is not a count");
        binary_size = b->get<uint64_t>();
      }
    if (binary_size) {
      if (*binary_size > tail.size() - used)
        return malformed("output \"" + t.name + "\" claims " + std::to_string(*binary_size) +
                         " binary bytes, only " + std::to_string(tail.size() - used) + " follow");
      if (sdk::Error e = bytes_fit(t, *binary_size, *want, true)) return e;
      t.data.assign(reinterpret_cast<const char *>(tail.data()) + used, *binary_size);
      used += *binary_size;
    } else {
      auto data = o.find("data");
      if (data == o.end()) return malformed("output \"" + t.name + "\" has no data");
      // The shape is the server's word: reserve no more than the text can hold (an element takes
      // a character at least and decodes to 8 bytes at most); bytes_fit below judges the rest.
      t.data.reserve(std::min<uint64_t>(*want, 8 * uint64_t{text.size()}));
      if (const auto cut_out = marked_array(*data, arrays)) {
        ++arrays_read;
        // A flat number array cut out before parsing: from_chars, or nlohmann if it must.
        if (!read_fast(*cut_out, t.datatype, t.data)) {
          t.data.clear();
          const json whole = parse(*cut_out);
          if (sdk::Error e = flatten_json_data(whole, t.datatype, t.data)) return malformed(e.detail);
        }
      } else if (sdk::Error e = flatten_json_data(*data, t.datatype, t.data)) {
        return malformed(e.detail);
      }
      if (sdk::Error e = bytes_fit(t, t.data.size(), *want, false)) return e;
    }
    out.push_back(std::move(t));
  }
  // An array cut out but never read (a repeated "data" key, whose last value nlohmann keeps, or
  // a binary output's) was never parsed either: read the text whole, so a number there that the
  // general reading refuses (one past a double's range) is refused here too.
  if (arrays_read != arrays.size()) return decode_infer_json(text, tail, out, false);
  if (used != tail.size())
    return malformed(std::to_string(tail.size() - used) + " binary bytes no output claims");
  return {};
}

}  // namespace wasinn::oip
