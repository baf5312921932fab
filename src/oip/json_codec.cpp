// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "json_codec.h"

#include "json_data.h"
#include "json_fast_data.h"

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

sdk::Error malformed(const std::string& what) { return malformed_response(what); }

// The JSON of `text`, or discarded.
json parse(std::string_view text) { return json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false); }

sdk::Error decode_tensor_meta(const json& list, const char* what, std::vector<TensorMeta>& out) {
  if (!list.is_array()) return malformed(std::string("\"") + what + "\" is not an array");
  for (const json& t : list) {
    if (!t.is_object()) return malformed(std::string("an entry of \"") + what + "\" is not an object");
    auto name = t.find("name"), datatype = t.find("datatype"), shape = t.find("shape");
    if (name == t.end() || !name->is_string() || datatype == t.end() || !datatype->is_string() || shape == t.end() ||
        !shape->is_array())
      return malformed(std::string("an entry of \"") + what +
                       "\" lacks a string name, a string datatype or an array shape");
    TensorMeta m;
    m.name = name->get<std::string>();
    m.datatype = datatype->get<std::string>();
    for (const json& d : *shape) {
      if (!d.is_number_integer()) return malformed("a shape holds a non-integer: " + describe_json(d));
      m.shape.push_back(d.is_number_unsigned() && d.get<uint64_t>() > INT64_MAX ? INT64_MAX : d.get<int64_t>());
    }
    out.push_back(std::move(m));
  }
  return {};
}

}  // namespace

sdk::Error decode_model_metadata_json(std::string_view body, ModelMeta& out) {
  out = {};
  const json j = parse(body);
  if (!j.is_object()) return malformed("model metadata is not a JSON object");
  if (auto it = j.find("name"); it != j.end() && it->is_string()) out.name = it->get<std::string>();
  if (auto it = j.find("platform"); it != j.end() && it->is_string()) out.platform = it->get<std::string>();
  if (auto it = j.find("versions"); it != j.end() && it->is_array())
    for (const json& v : *it)
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
    for (const json& e : *it)
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
  for (char& c : text)
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) c = ' ';
  return sdk::one_line(text);
}

std::string encode_infer_json(std::span<const InputTensor> inputs, std::span<const std::string> output_names,
                              bool binary) {
  std::string s;
  size_t guess = 64;
  for (const auto& t : inputs) guess += 96 + (binary ? 0 : t.data.size() * 3);
  s.reserve(guess);
  s += "{\"inputs\":[";
  for (size_t i = 0; i < inputs.size(); ++i) {
    const InputTensor& t = inputs[i];
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

sdk::Error decode_infer_json(std::string_view text, std::span<const uint8_t> tail, std::vector<OutputTensor>& out,
                             bool fast_data) {
  out.clear();
  std::vector<std::string_view> arrays;  // the cut-out "data" arrays, by marker number
  const std::string cut = fast_data ? cut_data_arrays(text, arrays) : std::string();
  const json j = parse(arrays.empty() ? text : std::string_view(cut));
  if (!j.is_object()) return malformed("the inference response is not a JSON object");
  auto outputs = j.find("outputs");
  if (outputs == j.end() || !outputs->is_array()) return malformed("no \"outputs\" array");
  size_t used = 0;
  size_t arrays_read = 0;  // cut-out arrays some output's "data" turned out to be
  for (const json& o : *outputs) {
    if (!o.is_object()) return malformed("an output is not an object");
    std::vector<TensorMeta> one;
    if (sdk::Error e = decode_tensor_meta(json::array({o}), "outputs", one)) return e;
    OutputTensor t{std::move(one[0].name), std::move(one[0].datatype), std::move(one[0].shape), {}};
    const std::optional<size_t> want = tensor_bytes(t.datatype, t.shape);
    if (!want)
      return malformed("output \"" + t.name + "\" has datatype " + t.datatype + " and shape " + o["shape"].dump() +
                       ", whose size is not a fixed number of bytes");
    std::optional<uint64_t> binary_size;
    if (auto p = o.find("parameters"); p != o.end() && p->is_object())
      if (auto b = p->find("binary_data_size"); b != p->end()) {
        if (!b->is_number_unsigned()) return malformed("a binary_data_size is not a count");
        binary_size = b->get<uint64_t>();
      }
    if (binary_size) {
      if (*binary_size > tail.size() - used)
        return malformed("output \"" + t.name + "\" claims " + std::to_string(*binary_size) + " binary bytes, only " +
                         std::to_string(tail.size() - used) + " follow");
      if (sdk::Error e = bytes_fit(t, *binary_size, *want, true)) return e;
      t.data.assign(reinterpret_cast<const char*>(tail.data()) + used, *binary_size);
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
  if (used != tail.size()) return malformed(std::to_string(tail.size() - used) + " binary bytes no output claims");
  return {};
}

}  // namespace wasinn::oip
