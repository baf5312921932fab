// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "core/model_format.h"

#include <cstring>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace wasinn {

namespace {

bool starts_with(std::span<const uint8_t> b, const char* magic, size_t offset = 0) {
  const size_t n = std::strlen(magic);
  return b.size() >= offset + n && std::memcmp(b.data() + offset, magic, n) == 0;
}

bool looks_like_xml(std::span<const uint8_t> b) {
  size_t i = starts_with(b, "\xEF\xBB\xBF") ? 3 : 0;  // a UTF-8 BOM
  while (i < b.size() && (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t')) ++i;
  return i < b.size() && b[i] == '<';
}

// The top-level fields of a protobuf message: field number -> wire type, and the first field.
// Empty when the bytes do not parse to their end (truncated, or not a protobuf).
struct ProtobufShape {
  std::map<uint32_t, uint32_t> wire_types;
  std::map<uint32_t, std::span<const uint8_t>> first_payloads;  // of each length-delimited field
  uint32_t first_field = 0;
};

bool read_varint(std::span<const uint8_t> b, size_t& pos, uint64_t& out) {
  out = 0;
  for (int shift = 0; shift < 64 && pos < b.size(); shift += 7) {
    const uint8_t byte = b[pos++];
    out |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if (!(byte & 0x80)) return true;
  }
  return false;
}

std::optional<ProtobufShape> protobuf_shape(std::span<const uint8_t> b) {
  ProtobufShape shape;
  size_t pos = 0;
  while (pos < b.size()) {
    uint64_t tag = 0;
    if (!read_varint(b, pos, tag)) return std::nullopt;
    const uint32_t field = static_cast<uint32_t>(tag >> 3), wire = tag & 7;
    if (field == 0 || (tag >> 3) > 0x1fffffff) return std::nullopt;
    uint64_t len = 0;
    switch (wire) {
      case 0:
        if (!read_varint(b, pos, len)) return std::nullopt;
        break;
      case 1: len = 8; break;
      case 2:
        if (!read_varint(b, pos, len)) return std::nullopt;
        break;
      case 5: len = 4; break;
      default: return std::nullopt;  // groups (3, 4) appear in none of these formats
    }
    if (wire != 0) {
      if (len > b.size() - pos) return std::nullopt;
      pos += static_cast<size_t>(len);
    }
    const auto [it, fresh] = shape.wire_types.emplace(field, wire);
    if (!fresh && it->second != wire) return std::nullopt;
    if (fresh && wire == 2) shape.first_payloads.emplace(field, b.subspan(pos - len, len));
    if (shape.first_field == 0) shape.first_field = field;
  }
  if (shape.first_field == 0) return std::nullopt;
  return shape;
}

// Every field is one of `known` with its wire type (unknown numbers allowed when `open`).
bool fields_fit(const ProtobufShape& s, const std::map<uint32_t, uint32_t>& known, bool open) {
  for (const auto& [field, wire] : s.wire_types) {
    const auto it = known.find(field);
    if (it == known.end() ? !open : it->second != wire) return false;
  }
  return true;
}

ModelFormat identify_protobuf(std::span<const uint8_t> b) {
  const auto s = protobuf_shape(b);
  if (!s) return ModelFormat::unknown;
  // ModelProto: ir_version (1) first, and a graph (7). Later ONNX releases add fields: allowed.
  static const std::map<uint32_t, uint32_t> kOnnx = {{1, 0}, {2, 2}, {3, 2},  {4, 2},  {5, 0}, {6, 2},
                                                     {7, 2}, {8, 2}, {14, 2}, {20, 2}, {25, 2}};
  if (s->first_field == 1 && s->wire_types.at(1) == 0 && s->wire_types.count(7) && fields_fit(*s, kOnnx, true))
    return ModelFormat::onnx;
  // SavedModel: saved_model_schema_version (1) and meta_graphs (2), nothing else; a MetaGraphDef
  // holds only messages (fields 1-7), among them its graph_def (2).
  if (s->wire_types.count(2) && fields_fit(*s, {{1, 0}, {2, 2}}, false)) {
    const auto meta = protobuf_shape(s->first_payloads.at(2));
    if (meta && meta->wire_types.count(2) &&
        fields_fit(*meta, {{1, 2}, {2, 2}, {3, 2}, {4, 2}, {5, 2}, {6, 2}, {7, 2}}, false))
      return ModelFormat::tf_saved_model;
  }
  // GraphDef: nodes (1) first, then library (2), version (3), versions (4), debug info (5).
  if (s->first_field == 1 && fields_fit(*s, {{1, 2}, {2, 2}, {3, 0}, {4, 2}, {5, 2}}, false))
    return ModelFormat::tf_graph_def;
  return ModelFormat::unknown;
}

// WasmEdge's Piper run config: a JSON object with a "model" string ending in ".onnx".
bool is_piper_config(std::span<const uint8_t> b) {
  size_t i = 0;
  while (i < b.size() && (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t')) ++i;
  if (i == b.size() || b[i] != '{' || b.size() > (1u << 20)) return false;
  const auto doc = nlohmann::json::parse(b.begin(), b.end(), nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object() || !doc.contains("model") || !doc["model"].is_string()) return false;
  const std::string& model = doc["model"].get_ref<const std::string&>();
  return model.size() > 5 && model.compare(model.size() - 5, 5, ".onnx") == 0;
}

}  // namespace

ModelFormat identify_model(std::span<const std::span<const uint8_t>> builders) {
  if (builders.empty()) return ModelFormat::unknown;
  const auto first = builders[0];
  if (starts_with(first, "GGUF")) return ModelFormat::gguf;
  if (starts_with(first, "lmgg")) return ModelFormat::whisper_ggml;
  if (starts_with(first, "preload:")) return ModelFormat::ggml_preload;
  if (starts_with(first, "TFL3", 4)) return ModelFormat::tflite;
  if (starts_with(first, "PK\x03\x04")) return ModelFormat::torchscript;
  if (looks_like_xml(first)) return ModelFormat::openvino_ir;
  if (is_piper_config(first)) return ModelFormat::piper_config;
  return identify_protobuf(first);
}

std::string_view describe_format(ModelFormat format) {
  switch (format) {
    case ModelFormat::onnx: return "an ONNX model";
    case ModelFormat::openvino_ir: return "an OpenVINO IR (.xml and .bin)";
    case ModelFormat::torchscript: return "a TorchScript archive (zip)";
    case ModelFormat::tflite: return "a TensorFlow Lite FlatBuffer";
    case ModelFormat::gguf: return "a GGUF model";
    case ModelFormat::ggml_preload: return "a 'preload:' reference to a GGUF file";
    case ModelFormat::whisper_ggml: return "a whisper.cpp ggml model";
    case ModelFormat::tf_saved_model: return "a TensorFlow SavedModel's saved_model.pb";
    case ModelFormat::tf_graph_def: return "a TensorFlow GraphDef";
    case ModelFormat::piper_config: return "a Piper run config (JSON naming a .onnx voice)";
    case ModelFormat::unknown: break;
  }
  return "of no format wasinn knows";
}

std::optional<Encoding> encoding_of(ModelFormat format) {
  switch (format) {
    case ModelFormat::onnx: return Encoding::onnx;
    case ModelFormat::openvino_ir: return Encoding::openvino;
    case ModelFormat::torchscript: return Encoding::pytorch;
    case ModelFormat::tflite: return Encoding::tensorflowlite;
    case ModelFormat::gguf:
    case ModelFormat::ggml_preload: return Encoding::ggml;
    case ModelFormat::whisper_ggml: return Encoding::whisper;
    case ModelFormat::tf_saved_model:
    case ModelFormat::tf_graph_def: return Encoding::tensorflow;
    case ModelFormat::piper_config: return Encoding::piper;
    case ModelFormat::unknown: break;
  }
  return std::nullopt;
}

std::optional<Encoding> detect_encoding(std::span<const std::span<const uint8_t>> builders) {
  const ModelFormat format = identify_model(builders);
  // XML alone is not enough to go on: an IR's weights come as the second builder.
  if (format == ModelFormat::openvino_ir && builders.size() < 2) return std::nullopt;
  if (auto e = encoding_of(format)) return e;
  // An ONNX ModelProto starts with field 1 (ir_version, varint): tag byte 0x08. A head of a
  // file cannot be parsed to its end, so this is the guess for one.
  if (!builders.empty() && !builders[0].empty() && builders[0][0] == 0x08) return Encoding::onnx;
  return std::nullopt;
}

Status check_encoding_fits(Encoding requested, std::span<const std::span<const uint8_t>> builders) {
  const ModelFormat format = identify_model(builders);
  const auto loader = encoding_of(format);
  if (!loader || *loader == requested || requested == Encoding::autodetect) return {};
  // WasmEdge's whisper guests name a host file with "preload:" too.
  if (requested == Encoding::whisper && format == ModelFormat::ggml_preload) return {};
  // A Piper voice is an ONNX model (a registered voice's file is its builder).
  if (requested == Encoding::piper && format == ModelFormat::onnx) return {};
  // OpenVINO reads ONNX files as well as its own IR.
  if (requested == Encoding::openvino && format == ModelFormat::onnx) return {};
  return make_error(Errc::invalid_encoding,
                    fmt::format("the model bytes are {}: load them with encoding {}, not {}", describe_format(format),
                                encoding_name(*loader), encoding_name(requested)));
}

Encoding refine_encoding(Encoding requested, std::span<const std::span<const uint8_t>> builders) {
  if (requested != Encoding::ggml) return requested;
  // `wasinn serve --openai NAME=FILE` asks GGML of every file: a whisper model or a Piper run
  // config goes to the backend that reads it.
  const ModelFormat format = identify_model(builders);
  if (format == ModelFormat::whisper_ggml) return Encoding::whisper;
  if (format == ModelFormat::piper_config) return Encoding::piper;
  return requested;
}

}  // namespace wasinn
