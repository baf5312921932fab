#include "core/model_format.h"

#include <cstring>

namespace wasinn {

namespace {
bool starts_with(std::span<const uint8_t> b, const char* magic, size_t offset = 0) {
  const size_t n = std::strlen(magic);
  return b.size() >= offset + n && std::memcmp(b.data() + offset, magic, n) == 0;
}
}  // namespace

std::optional<Encoding> detect_encoding(std::span<const std::span<const uint8_t>> builders) {
  if (builders.empty()) return std::nullopt;
  const auto first = builders[0];
  if (starts_with(first, "GGUF") || starts_with(first, "preload:")) return Encoding::ggml;
  if (starts_with(first, "TFL3", 4)) return Encoding::tensorflowlite;
  if (starts_with(first, "PK\x03\x04")) return Encoding::pytorch;
  // OpenVINO IR is XML text, optionally after a UTF-8 BOM or whitespace.
  size_t i = 0;
  if (starts_with(first, "\xEF\xBB\xBF")) i = 3;
  while (i < first.size() && (first[i] == ' ' || first[i] == '\n' || first[i] == '\r' || first[i] == '\t')) ++i;
  if (i < first.size() && first[i] == '<' && builders.size() >= 2) return Encoding::openvino;
  // An ONNX ModelProto starts with field 1 (ir_version, varint): tag byte 0x08.
  if (!first.empty() && first[0] == 0x08) return Encoding::onnx;
  return std::nullopt;
}

}  // namespace wasinn
