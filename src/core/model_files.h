// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Which files a model given by path is, and its encoding: what `wasinn models inspect` accepts.
// A model file (recognised by its bytes, else its extension), an OpenVINO .xml whose .bin is
// beside it, a directory holding one model (Wasmtime's nn-graph names preferred: model.onnx,
// model.xml, ...), a TensorFlow SavedModel directory or a frozen GraphDef .pb. When the format
// cannot be told, the error says which --encoding to give (the command's flag: this serves it).
#pragma once

#include <filesystem>
#include <span>
#include <vector>

#include "core/error.h"
#include "core/types.h"

namespace wasinn {

struct ModelFiles {
  Encoding encoding = Encoding::autodetect;
  std::vector<std::filesystem::path> paths;  // in graph-builder order (OpenVINO: .xml, then .bin)
};

// `encoding` autodetect: recognised from the paths and the files' first bytes; any other: that
// encoding's files (in a directory, the one file of that format, or Wasmtime's name for it).
// A path that does not exist is not_found; a format that cannot be told, or a directory holding
// several models, is invalid_encoding naming what was found.
Result<ModelFiles> resolve_model_files(std::span<const std::filesystem::path> given, Encoding encoding);

// Whether `file` is a model's file by those rules: its extension names a format (.onnx, .xml, .pt,
// .tflite, .gguf, .pb...) or its first bytes are one for sure (a magic number). An OpenVINO .bin
// beside its .xml is not: it is that model's weights. For telling a model from a README.
bool is_model_file(const std::filesystem::path& file);

}  // namespace wasinn
