// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "core/model_files.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <optional>
#include <string>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/model_format.h"

namespace wasinn {

namespace fs = std::filesystem;

namespace {

// Said wherever the format cannot be told: the one flag that tells it (wasinn models inspect).
constexpr const char* kGiveEncoding =
    "give --encoding onnx, openvino, pytorch, tensorflow, tensorflowlite, ggml or whisper";

// Enough of a file for detect_encoding's magics.
std::vector<uint8_t> head_of(const fs::path& file) {
  std::vector<uint8_t> bytes(64);
  std::ifstream in(file, std::ios::binary);
  in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  bytes.resize(static_cast<size_t>(in.gcount()));
  return bytes;
}

std::string lower_extension(const fs::path& p) {
  std::string ext = p.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext;
}

// What a file's extension says. .pb is a frozen GraphDef: its bytes (field 1, a node) match
// no magic, and a SavedModel's saved_model.pb is told by its name before this is asked.
std::optional<Encoding> encoding_of_extension(const fs::path& p) {
  static const std::map<std::string, Encoding> kByExtension = {
      {".onnx", Encoding::onnx},   {".xml", Encoding::openvino},        {".pt", Encoding::pytorch},
      {".pth", Encoding::pytorch}, {".torchscript", Encoding::pytorch}, {".tflite", Encoding::tensorflowlite},
      {".gguf", Encoding::ggml},   {".pb", Encoding::tensorflow}};
  const auto it = kByExtension.find(lower_extension(p));
  if (it == kByExtension.end()) return std::nullopt;
  return it->second;
}

bool is_saved_model_file(const fs::path& p) {
  return p.filename() == "saved_model.pb" || p.filename() == "saved_model.pbtxt";
}

bool is_saved_model_dir(const fs::path& dir) {
  std::error_code ec;
  return fs::is_regular_file(dir / "saved_model.pb", ec) || fs::is_regular_file(dir / "saved_model.pbtxt", ec);
}

// The file name Wasmtime's nn-graph looks for in a directory of this encoding.
std::string wasmtime_name(Encoding e) {
  switch (e) {
    case Encoding::openvino: return "model.xml";
    case Encoding::onnx: return "model.onnx";
    case Encoding::pytorch: return "model.pt";
    case Encoding::tensorflowlite: return "model.tflite";
    case Encoding::ggml: return "model.gguf";
    case Encoding::whisper: return "model.bin";
    case Encoding::piper: return "model.onnx";
    default: return "";
  }
}

std::string joined(std::span<const fs::path> files, bool file_names_only) {
  std::vector<std::string> names;
  for (const auto& f : files) names.push_back(file_names_only ? f.filename().string() : f.string());
  return fmt::format("{}", fmt::join(names, ", "));
}

Status check_exists(const fs::path& p) {
  std::error_code ec;
  if (!fs::exists(p, ec)) return make_error(Errc::not_found, fmt::format("{} does not exist", p.string()));
  return {};
}

// One file: OpenVINO IR gets its weights (the .bin of the same name), the rest load alone.
Result<ModelFiles> resolve_file(const fs::path& file, Encoding requested) {
  ModelFiles out{requested, {file}};
  if (requested == Encoding::autodetect) {
    const auto head = head_of(file);
    const std::span<const uint8_t> builder(head);
    const auto by_bytes = detect_encoding(std::span<const std::span<const uint8_t>>(&builder, 1));
    const auto by_name = encoding_of_extension(file);
    // The bytes decide, except where they cannot: an .xml's weights are another file, and the
    // protobufs of TensorFlow (.pb) may start as ONNX's does.
    if (is_saved_model_file(file)) {
      out.encoding = Encoding::tensorflow;  // the backend reads its directory
    } else if (by_name == Encoding::openvino || by_name == Encoding::tensorflow) {
      out.encoding = *by_name;
    } else if (by_bytes || by_name) {
      out.encoding = by_bytes ? *by_bytes : *by_name;
    } else {
      return make_error(Errc::invalid_encoding,
                        fmt::format("cannot tell the format of {}: neither its first bytes nor its name match a "
                                    "model format; {}",
                                    file.string(), kGiveEncoding));
    }
  }
  if (out.encoding == Encoding::openvino && lower_extension(file) == ".xml") {
    fs::path weights = file;
    weights.replace_extension(".bin");
    std::error_code ec;
    if (!fs::is_regular_file(weights, ec)) {
      return make_error(Errc::not_found,
                        fmt::format("{} is OpenVINO IR, whose weights {} are missing; give both files (.xml then .bin)",
                                    file.string(), weights.filename().string()));
    }
    out.paths.push_back(std::move(weights));
  }
  return out;
}

// The model files directly in `dir`, by encoding; an OpenVINO .xml counts only with its .bin.
std::map<Encoding, std::vector<fs::path>> models_in(const fs::path& dir) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    std::error_code type_ec;
    if (entry.is_regular_file(type_ec)) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  std::map<Encoding, std::vector<fs::path>> found;
  for (const auto& f : files) {
    const auto e = encoding_of_extension(f);
    if (!e) continue;
    if (*e == Encoding::openvino) {
      fs::path weights = f;
      if (!fs::is_regular_file(weights.replace_extension(".bin"), ec)) continue;
    }
    found[*e].push_back(f);
  }
  return found;
}

// A directory: a SavedModel, or the one model file in it (Wasmtime's name when there are more).
Result<ModelFiles> resolve_directory(const fs::path& dir, Encoding requested) {
  if (is_saved_model_dir(dir) && (requested == Encoding::autodetect || requested == Encoding::tensorflow)) {
    return ModelFiles{Encoding::tensorflow, {dir}};
  }
  const auto found = models_in(dir);
  Encoding encoding = requested;
  if (requested == Encoding::autodetect) {
    if (found.empty()) {
      return make_error(Errc::invalid_encoding,
                        fmt::format("{} holds no model wasinn recognises (.onnx, .xml with its .bin, .pt, .tflite, "
                                    ".gguf, a frozen .pb, or a TensorFlow SavedModel)",
                                    dir.string()));
    }
    if (found.size() > 1) {
      std::vector<std::string> kinds;
      for (const auto& [e, files] : found)
        kinds.push_back(fmt::format("{} ({})", encoding_name(e), joined(files, true)));
      return make_error(Errc::invalid_encoding,
                        fmt::format("{} holds models of several formats: {}; give --encoding, or the file",
                                    dir.string(), fmt::join(kinds, ", ")));
    }
    encoding = found.begin()->first;
  }
  const auto it = found.find(encoding);
  if (it == found.end()) {
    return make_error(Errc::not_found, fmt::format("{} holds no {} model", dir.string(), encoding_name(encoding)));
  }
  const auto& files = it->second;
  fs::path chosen;
  if (files.size() == 1) {
    chosen = files.front();
  } else if (const std::string name = wasmtime_name(encoding); !name.empty() && fs::exists(dir / name)) {
    chosen = dir / name;
  } else {
    return make_error(Errc::invalid_encoding, fmt::format("{} holds several {} models ({}); give the file",
                                                          dir.string(), encoding_name(encoding), joined(files, true)));
  }
  return resolve_file(chosen, encoding);
}

}  // namespace

bool is_model_file(const fs::path& file) {
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) return false;
  if (lower_extension(file) == ".bin") {
    fs::path xml = file;
    if (fs::is_regular_file(xml.replace_extension(".xml"), ec)) return false;
  }
  if (encoding_of_extension(file) || is_saved_model_file(file)) return true;
  // Only a sure identification: detect_encoding's guess from ONNX's first tag would take raw
  // weights (an ONNX model's external data) for a model.
  const auto head = head_of(file);
  const std::span<const uint8_t> builder(head);
  return identify_model(std::span<const std::span<const uint8_t>>(&builder, 1)) != ModelFormat::unknown;
}

Result<ModelFiles> resolve_model_files(std::span<const fs::path> given, Encoding encoding) {
  if (given.empty()) return make_error(Errc::invalid_argument, "no model files given");
  for (const auto& p : given) WASINN_TRY(check_exists(p));
  std::error_code ec;
  if (given.size() == 1) {
    return fs::is_directory(given[0], ec) ? resolve_directory(given[0], encoding) : resolve_file(given[0], encoding);
  }
  // Several files are the graph builders, in order, as a guest would pass them.
  ModelFiles out{encoding, {given.begin(), given.end()}};
  if (encoding != Encoding::autodetect) return out;
  std::vector<std::vector<uint8_t>> heads;
  for (const auto& p : given) heads.push_back(head_of(p));
  const std::vector<std::span<const uint8_t>> builders(heads.begin(), heads.end());
  if (auto detected = detect_encoding(builders)) {
    out.encoding = *detected;
  } else if (auto by_name = encoding_of_extension(given[0])) {
    out.encoding = *by_name;
  } else {
    return make_error(Errc::invalid_encoding,
                      fmt::format("cannot tell the format of {}: {}", joined(given, false), kGiveEncoding));
  }
  return out;
}

}  // namespace wasinn
