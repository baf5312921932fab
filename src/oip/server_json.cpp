// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "server_json.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>

#include "json_data.h"
#include "json_fast_data.h"

namespace wasinn::oip {
namespace {

using nlohmann::json;

sdk::Error bad(const std::string& what) { return sdk::invalid(what); }

// A syntax error as a client can act on it: where (the byte; the line and column too, for a
// request written over several lines) and what the parser found and expected, without
// nlohmann's exception id. What it last read is cut short: it can be the rest of the request.
std::string describe_syntax_error(const json::parse_error& e) {
  std::string where = "at byte " + std::to_string(e.byte);
  // "[json.exception.parse_error.101] parse error at line 1, column 2: syntax error while
  // parsing value - invalid literal; last read: 'no'"
  const std::string_view what = e.what();
  const size_t line = what.find("at line "), colon = what.find(": ", line);
  if (line != std::string_view::npos && colon != std::string_view::npos)
    where += " (" + std::string(what.substr(line + 3, colon - line - 3)) + ")";
  const size_t dash = what.find(" - ");
  std::string detail(dash == std::string_view::npos ? what.substr(colon == std::string_view::npos ? 0 : colon + 2)
                                                    : what.substr(dash + 3));
  constexpr std::string_view kLastRead = "last read: '";
  constexpr size_t kShown = 24;  // the token's end, where the error is
  if (const size_t from = detail.find(kLastRead); from != std::string::npos) {
    const size_t start = from + kLastRead.size();
    size_t close = detail.find("'; expected", start);  // the token may hold quotes of its own
    if (close == std::string::npos) close = detail.size() - 1;
    if (close > start + kShown) detail = detail.substr(0, start) + "..." + detail.substr(close - kShown);
  }
  return "syntax error " + where + ": " + detail;
}

std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

// A parameter's value as text: a string as it is, anything else as JSON writes it.
std::string parameter_text(const json& v) { return v.is_string() ? v.get<std::string>() : describe_json(v); }

sdk::Error decode_shape(const json& input, const std::string& name, std::vector<int64_t>& shape) {
  auto it = input.find("shape");
  if (it == input.end() || !it->is_array()) return bad("input '" + name + "' has no \"shape\" array");
  if (it->size() > 64) return bad("input '" + name + "' has a shape of rank " + std::to_string(it->size()));
  for (const json& d : *it) {
    if (!d.is_number_integer() || (d.is_number_integer() && !d.is_number_unsigned() && d.get<int64_t>() < 0))
      return bad("input '" + name + "' has a shape holding " + describe_json(d) + ", not a size");
    if (d.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX))
      return bad("input '" + name + "' has a shape dimension too large");
    shape.push_back(d.get<int64_t>());
  }
  return {};
}

// One input of "inputs": its name, datatype, shape and bytes (from the binary tail at *used,
// or from its JSON "data").
// `arrays`: the "data" arrays cut out of the text (json_fast_data.h); *arrays_read counts those
// an input's "data" turned out to be.
sdk::Error decode_input(const json& input, std::span<const uint8_t> tail, size_t* used,
                        const std::vector<std::string_view>& arrays, size_t* arrays_read,
                        const InputNameCheck& check_name, RequestInput& in) {
  if (!input.is_object()) return bad("an entry of \"inputs\" is not an object");
  auto name = input.find("name"), datatype = input.find("datatype");
  if (name == input.end() || !name->is_string()) return bad("an input has no string \"name\"");
  in.name = name->get<std::string>();
  if (check_name)
    if (std::string refused = check_name(in.name); !refused.empty()) return bad(refused);
  if (datatype == input.end() || !datatype->is_string())
    return bad("input '" + in.name + "' has no string \"datatype\"");
  in.datatype = datatype->get<std::string>();
  if (datatype_size(in.datatype) == 0)
    return bad(
        "input '" + in.name + "' has datatype " + in.datatype +
        (in.datatype == "BYTES" ? ", which wasinn's models do not take" : ", which the protocol does not define"));
  if (sdk::Error e = decode_shape(input, in.name, in.shape)) return e;
  const std::optional<size_t> want = tensor_bytes(in.datatype, in.shape);
  if (!want) return bad("input '" + in.name + "': its shape's size overflows");
  std::optional<uint64_t> binary_size;
  if (auto p = input.find("parameters"); p != input.end()) {
    if (!p->is_object()) return bad("input '" + in.name + "': \"parameters\" is not an object");
    if (auto b = p->find("binary_data_size"); b != p->end()) {
      if (!b->is_number_unsigned()) return bad("input '" + in.name + "': binary_data_size is not a count");
      binary_size = b->get<uint64_t>();
    }
  }
  if (binary_size) {
    if (input.contains("data")) return bad("input '" + in.name + "' has both \"data\" and binary_data_size");
    if (*binary_size > tail.size() - *used)
      return bad("input '" + in.name + "' claims " + std::to_string(*binary_size) + " binary bytes, only " +
                 std::to_string(tail.size() - *used) + " follow the JSON");
    if (*binary_size != *want)
      return bad("input '" + in.name + "' has " + std::to_string(*binary_size) + " bytes; shape and datatype " +
                 in.datatype + " need " + std::to_string(*want));
    in.data = tail.subspan(*used, *binary_size);
    *used += *binary_size;
    return {};
  }
  auto data = input.find("data");
  if (data == input.end()) return bad("input '" + in.name + "' has neither \"data\" nor binary_data_size");
  if (const auto cut_out = marked_array(*data, arrays)) {
    ++*arrays_read;
    // The shape is the client's word: reserve no more than the text can hold (a character at
    // least per element, 8 bytes at most each); the size check below judges the rest.
    in.owned.reserve(std::min<uint64_t>(*want, 8 * uint64_t{cut_out->size()}));
    if (!read_fast(*cut_out, in.datatype, in.owned)) {
      in.owned.clear();
      const json whole = json::parse(cut_out->begin(), cut_out->end(), nullptr, /*allow_exceptions=*/false);
      if (sdk::Error e = flatten_json_data(whole, in.datatype, in.owned))
        return bad("input '" + in.name + "': " + e.detail);
    }
  } else if (sdk::Error e = flatten_json_data(*data, in.datatype, in.owned)) {
    return bad("input '" + in.name + "': " + e.detail);
  }
  if (in.owned.size() != *want) {
    const size_t es = datatype_size(in.datatype);
    return bad("input '" + in.name + "' has " + std::to_string(in.owned.size() / es) + " elements; its shape needs " +
               std::to_string(*want / es));
  }
  return {};
}

sdk::Error decode_request(std::string_view text, std::span<const uint8_t> tail, bool fast_data,
                          const InputNameCheck& check_name, InferRequest& out) {
  out = {};
  std::vector<std::string_view> arrays;  // the cut-out "data" arrays, by marker number
  size_t arrays_read = 0;
  const std::string cut = fast_data ? cut_data_arrays(text, arrays) : std::string();
  const std::string_view parsed = arrays.empty() ? text : std::string_view(cut);
  json j;
  try {
    j = json::parse(parsed.begin(), parsed.end());
  } catch (const json::parse_error& e) {
    return bad("the request is not valid JSON: " + describe_syntax_error(e));
  } catch (const json::exception& e) {  // a number past a double's range (out_of_range.406)
    const std::string_view what = e.what();
    return bad("the request is not valid JSON: " + std::string(what.substr(what.find("] ") + 2)));
  }
  if (!j.is_object()) return bad(std::string("the request is a JSON ") + j.type_name() + ", not an object");
  if (auto id = j.find("id"); id != j.end()) {
    if (!id->is_string()) return bad("\"id\" is not a string");
    out.id = id->get<std::string>();
  }
  if (auto p = j.find("parameters"); p != j.end()) {
    if (!p->is_object()) return bad("\"parameters\" is not an object");
    for (const auto& [key, value] : p->items()) {
      if (key == "binary_data_output") {
        if (!value.is_boolean()) return bad("binary_data_output is not a boolean");
        out.binary_output = value.get<bool>();
      } else {
        if (value.is_structured()) return bad("parameter '" + key + "' is not a string, number or boolean");
        out.parameters.emplace_back(key, parameter_text(value));
      }
    }
  }
  auto inputs = j.find("inputs");
  if (inputs == j.end() || !inputs->is_array()) return bad("the request has no \"inputs\" array");
  size_t used = 0;
  out.inputs.resize(inputs->size());
  for (size_t i = 0; i < inputs->size(); ++i)
    if (sdk::Error e = decode_input((*inputs)[i], tail, &used, arrays, &arrays_read, check_name, out.inputs[i]))
      return e;
  if (used != tail.size())
    return bad(std::to_string(tail.size() - used) + " bytes after the JSON that no input's binary_data_size claims");
  for (RequestInput& in : out.inputs)  // after the vector is final: `owned` no longer moves
    if (in.data.empty() && !in.owned.empty())
      in.data = std::span(reinterpret_cast<const uint8_t*>(in.owned.data()), in.owned.size());
  if (auto outputs = j.find("outputs"); outputs != j.end()) {
    if (!outputs->is_array()) return bad("\"outputs\" is not an array");
    for (const json& o : *outputs) {
      if (!o.is_object()) return bad("an entry of \"outputs\" is not an object");
      auto name = o.find("name");
      if (name == o.end() || !name->is_string()) return bad("an output has no string \"name\"");
      RequestedOutput r{name->get<std::string>(), std::nullopt};
      if (auto p = o.find("parameters"); p != o.end()) {
        if (!p->is_object()) return bad("output '" + r.name + "': \"parameters\" is not an object");
        if (auto b = p->find("binary_data"); b != p->end()) {
          if (!b->is_boolean()) return bad("output '" + r.name + "': binary_data is not a boolean");
          r.binary = b->get<bool>();
        }
      }
      out.outputs.push_back(std::move(r));
    }
  }
  // A cut-out array no input read (a "data" key elsewhere, say in "parameters") was never
  // checked where it stands: the general reading decides.
  if (arrays_read != arrays.size()) return sdk::invalid("a \"data\" array no input read");
  return {};
}

}  // namespace

sdk::Error decode_infer_request_json(std::string_view text, std::span<const uint8_t> tail, InferRequest& out,
                                     const InputNameCheck& check_name) {
  // The fast reading of "data" arrays first; any refusal (or an array it did not read) is
  // decided by the general reading, so both accept and refuse the same requests alike.
  if (!decode_request(text, tail, /*fast_data=*/true, check_name, out)) return {};
  return decode_request(text, tail, /*fast_data=*/false, check_name, out);
}

std::string encode_infer_response_json(const std::string& model, const std::string& version, const std::string& id,
                                       std::span<const ResponseOutput> outputs, size_t* json_length) {
  std::string s;
  size_t guess = 128;
  for (const auto& o : outputs) guess += 96 + (o.binary ? 0 : o.data.size() * 4);
  s.reserve(guess);
  s += "{\"model_name\":" + dump(model) + ",\"model_version\":" + dump(version);
  if (!id.empty()) s += ",\"id\":" + dump(id);
  s += ",\"outputs\":[";
  for (size_t i = 0; i < outputs.size(); ++i) {
    const ResponseOutput& o = outputs[i];
    if (i) s += ',';
    s += "{\"name\":" + dump(o.name) + ",\"datatype\":\"" + o.datatype + "\",\"shape\":";
    write_json_shape(s, o.shape);
    if (o.binary) {
      s += ",\"parameters\":{\"binary_data_size\":" + std::to_string(o.data.size()) + "}}";
    } else {
      s += ",\"data\":[";
      write_json_data(s, o.datatype, o.data);
      s += "]}";
    }
  }
  s += "]}";
  *json_length = s.size();
  for (const auto& o : outputs)
    if (o.binary) s.append(reinterpret_cast<const char*>(o.data.data()), o.data.size());
  return s;
}

std::string encode_model_metadata_json(const ModelMeta& meta) {
  auto tensors = [](const std::vector<TensorMeta>& list) {
    json a = json::array();
    for (const auto& t : list) a.push_back({{"name", t.name}, {"datatype", t.datatype}, {"shape", t.shape}});
    return a;
  };
  json j = {{"name", meta.name},
            {"versions", meta.versions},
            {"platform", meta.platform},
            {"inputs", tensors(meta.inputs)},
            {"outputs", tensors(meta.outputs)}};
  return dump(j);
}

std::string error_json(std::string_view message) { return dump(json{{"error", std::string(message)}}); }

}  // namespace wasinn::oip
