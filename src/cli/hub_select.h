// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Which files of a Hub repository `wasinn pull owner/repo[:TAG]` fetches, from the repository's
// file list (the Hub's tree API, or a cached snapshot). Pure functions: no network, no disk.
//
// GGUF, as llama.cpp's -hf: a model file is a .gguf whose name has none of mmproj, imatrix, mtp-,
// eagle3-, dflash-, dspark-; TAG picks the first whose path contains TAG followed by '.' or '-'
// (any case); without TAG, Q4_K_M, then Q8_0, then the first model file. A split model
// (NAME-00001-of-00003.gguf) is all its parts, chosen by its first. Its projector is named too
// (best_projector), pulled only when asked for.
// ONNX (a repository with no GGUF model file): onnx/model.onnx, else model.onnx, else the one
// .onnx file there is; TAG picks onnx/model_TAG.onnx or model_TAG.onnx, else the one .onnx whose
// name ends in _TAG or -TAG. Its external data (MODEL.onnx_data*, MODEL.onnx.data beside it) and
// the repository's config.json, generation_config.json, preprocessor_config.json,
// tokenizer.json, tokenizer_config.json and special_tokens_map.json come along.
#pragma once

#include <string>
#include <vector>

#include "core/error.h"

namespace wasinn_cli::hub {

struct Selection {
  std::vector<std::string> model;  // the model's files, in load order (a split GGUF's parts)
  std::vector<std::string> extra;  // files the model needs beside it (ONNX external data, JSONs)
  std::string projector;           // a GGUF model's multimodal projector there, "" when none
};

// The projector (a .gguf whose name has "mmproj") for the GGUF `model` among `files`, as llama.cpp's
// -hf picks it: in the model's folder or one above it, the deepest first, then the nearest in
// quantization bits (F16 16, Q8_0 8); "" when there is none.
std::string best_projector(const std::vector<std::string>& files, const std::string& model);

// `files`: the repository's paths ('/'-separated). `repo`: for messages. An error names what
// the repository holds when nothing fits.
wasinn::Result<Selection> select_files(const std::vector<std::string>& files, const std::string& tag,
                                       const std::string& repo);

// A split GGUF part's every part, in order (NAME-0000i-of-0000N.gguf); {path} for any other path.
std::vector<std::string> split_parts(const std::string& path);

// An .onnx file's external data among `files`: PATH_data, PATH_data_*, PATH.data.
std::vector<std::string> onnx_data_files(const std::vector<std::string>& files, const std::string& onnx_path);

}  // namespace wasinn_cli::hub
