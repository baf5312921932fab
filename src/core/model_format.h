// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What a model's bytes are: for the autodetect encoding, for guests whose encoding numbers are
// ambiguous across hosts (witx 5 vs 6), and for telling a user who picked the wrong encoding
// which one loads their model. Pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "core/error.h"
#include "core/types.h"

namespace wasinn {

// The formats wasinn's backends load, as told by their bytes.
enum class ModelFormat : uint8_t {
  unknown,
  onnx,            // an ONNX ModelProto
  openvino_ir,     // XML (an IR's weights come as a second builder)
  torchscript,     // a zip archive, as torch.jit.save writes
  tflite,          // a FlatBuffer with "TFL3" at offset 4
  gguf,            // "GGUF" magic
  ggml_preload,    // WasmEdge's "preload:<path>" text (a GGUF, or a whisper model)
  whisper_ggml,    // whisper.cpp's legacy ggml file: magic 0x67676d6c ("lmgg" as bytes)
  tf_saved_model,  // a SavedModel's saved_model.pb
  tf_graph_def,    // a frozen GraphDef
  piper_config,    // WasmEdge's Piper run config: a JSON object whose "model" names a .onnx voice
};

// Magic numbers decide first; a protobuf (ONNX, SavedModel, GraphDef) counts only when its whole
// top level parses as that message, so a truncated head stays unknown here.
ModelFormat identify_model(std::span<const std::span<const uint8_t>> builders);

// "an ONNX model", "a TensorFlow SavedModel's saved_model.pb", ...
std::string_view describe_format(ModelFormat format);

// The encoding that loads this format (onnx for ONNX, although openvino loads it too).
std::optional<Encoding> encoding_of(ModelFormat format);

// The detail of an autodetect load whose bytes match nothing.
inline constexpr std::string_view kNoKnownFormat =
    "autodetect: the model bytes match no known format (ONNX, OpenVINO IR, TorchScript, TensorFlow "
    "SavedModel or GraphDef, TensorFlow Lite, GGUF, whisper.cpp ggml, a Piper run config)";

// identify_model's answer as an encoding, else the first bytes' best guess (ONNX's field-1 tag),
// which is what a head of a file read for `models inspect` can give. nullopt when nothing fits.
std::optional<Encoding> detect_encoding(std::span<const std::span<const uint8_t>> builders);

// Ok unless the bytes are, for sure, a format that `requested` does not load; then
// invalid_encoding naming what the bytes are and the encoding that loads them.
Status check_encoding_fits(Encoding requested, std::span<const std::span<const uint8_t>> builders);

// The encoding a load asks for, made exact by the bytes where a guest ABI cannot say it: ggml
// with a whisper.cpp model is whisper (WIT's graph-encoding has no whisper case), with a Piper run
// config piper (`wasinn serve --openai NAME=voice.json` asks GGML of every file). Else `requested`.
Encoding refine_encoding(Encoding requested, std::span<const std::span<const uint8_t>> builders);

}  // namespace wasinn
