// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "serve/oip/model_repository.h"

#include <algorithm>
#include <fstream>
#include <optional>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "core/model_files.h"

namespace wasinn::oip_server {
namespace {

namespace fs = std::filesystem;

bool is_version(const std::string& name) {
  return !name.empty() && name.size() <= 18 && name.find_first_not_of("0123456789") == std::string::npos;
}

// DIR/NAME/config.json into m and config.
Status read_config(const fs::path& file, RepositoryModel& m) {
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  const auto j = nlohmann::json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  auto bad = [&](const std::string& what) {
    return make_error(Errc::invalid_argument, fmt::format("--model-repository: {}: {}", file.string(), what));
  };
  if (!j.is_object()) return bad("not a JSON object");
  // A whole number within [0, most]: JSON's 16.0 or -1 is not a batch size.
  auto whole = [&](const nlohmann::json& value, const std::string& key, uint64_t most) -> Result<uint64_t> {
    if (!value.is_number_unsigned() || value.get<uint64_t>() > most)  // nlohmann: a negative integer is not unsigned
      return bad(fmt::format("\"{}\" is not a whole number from 0 to {}", key, most));
    return value.get<uint64_t>();
  };
  for (const auto& [key, value] : j.items()) {
    if (key == "encoding") {
      const auto e = value.is_string() ? parse_encoding(value.get<std::string>()) : std::nullopt;
      if (!e || *e == Encoding::remote)
        return bad("\"encoding\" is not an encoding of a model file (onnx, openvino, ...)");
      m.model.encoding = *e;
    } else if (key == "target") {
      const auto t = value.is_string() ? parse_target(value.get<std::string>()) : std::nullopt;
      if (!t) return bad("\"target\" is not cpu, gpu, tpu or auto");
      m.model.target = *t;
    } else if (key == "config") {
      if (value.is_string())
        m.config = value.get<std::string>();
      else if (value.is_object())
        m.config = value.dump();
      else
        return bad("\"config\" is neither a JSON object nor a string");
    } else if (key == "max_batch_size") {
      auto n = whole(value, key, kMaxBatchSize);
      if (!n) return n.take_error();
      m.batching.max_batch_size = static_cast<uint32_t>(*n);
    } else if (key == "max_queue_delay_us") {
      auto n = whole(value, key, kMaxQueueDelayUs);
      if (!n) return n.take_error();
      m.batching.max_queue_delay_us = *n;
    } else {
      return bad(fmt::format("unknown key \"{}\" (encoding, target, config, max_batch_size, max_queue_delay_us)", key));
    }
  }
  if (j.contains("max_queue_delay_us") && !m.batching.enabled())
    return bad("\"max_queue_delay_us\" without a \"max_batch_size\" of 1 or more: dynamic batching is off");
  return {};
}

// DIR/NAME/config.pbtxt and then DIR/NAME/config.json, each when it is there, into m.
Status read_configs(const fs::path& dir, const std::string& name, RepositoryModel& m) {
  std::error_code ec;
  if (fs::exists(dir / "config.pbtxt", ec)) {
    auto triton = read_triton_config(dir / "config.pbtxt", name);
    if (!triton) return triton.take_error();
    if (triton->encoding) m.model.encoding = *triton->encoding;
    m.batching = triton->batching;
    m.triton_io = std::move(triton->io);
    m.ignored_fields = std::move(triton->ignored_fields);
  }
  if (fs::exists(dir / "config.json", ec)) return read_config(dir / "config.json", m);
  return {};
}

// The files directly in DIR that are a model's (is_model_file's rules, or a .wasm pipeline),
// sorted; hidden files and config.json are not, nor a SavedModel's other .pb (fingerprint.pb).
std::vector<fs::path> loose_model_files(const fs::path& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  const bool saved_model =
      fs::is_regular_file(dir / "saved_model.pb", ec) || fs::is_regular_file(dir / "saved_model.pbtxt", ec);
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name[0] == '.' || name == "config.json" || name == "config.pbtxt") continue;
    if (saved_model && e.path().extension() == ".pb" && name != "saved_model.pb") continue;
    if (is_model_file(e.path()) || (e.path().extension() == ".wasm" && fs::is_regular_file(e.path(), ec)))
      out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The highest numeric VERSION directory of DIR/NAME, as Triton's default policy ("latest 1").
std::optional<uint64_t> highest_version(const fs::path& model_dir) {
  std::optional<uint64_t> best;
  std::error_code ec;
  for (const auto& v : fs::directory_iterator(model_dir, ec)) {
    const std::string name = v.path().filename().string();
    if (v.is_directory() && is_version(name) && (!best || std::stoull(name) > *best)) best = std::stoull(name);
  }
  return best;
}

std::string file_names(const std::vector<fs::path>& paths, const char* suffix = "") {
  std::vector<std::string> names;
  for (const auto& p : paths) names.push_back(p.filename().string() + suffix);
  return fmt::format("{}", fmt::join(names, ", "));
}

// A DIR whose own files are one model (model_repository.h: flat), named flat_name or by its file.
Result<RepositoryModel> scan_flat(const fs::path& dir, const std::vector<fs::path>& loose,
                                  const std::vector<fs::path>& subdirs, const std::string& flat_name) {
  std::vector<fs::path> triton_dirs;
  for (const auto& d : subdirs)
    if (highest_version(d)) triton_dirs.push_back(d);
  if (!triton_dirs.empty())
    return make_error(Errc::invalid_argument,
                      fmt::format("--model-repository {}: holds model files directly ({}) and model directories in "
                                  "Triton's layout ({}); it must be one or the other: move the files into {}/NAME/1/ "
                                  "to serve every model, or keep only the files to serve that one model",
                                  dir.string(), file_names(loose), file_names(triton_dirs, "/VERSION/"), dir.string()));
  if (loose.size() > 1)
    return make_error(Errc::invalid_argument,
                      fmt::format("--model-repository {}: holds several model files directly ({}), and a repository "
                                  "of files serves one model: put each in {}/NAME/1/ (Triton's layout, NAME the name "
                                  "to serve it under), or remove the ones not to serve",
                                  dir.string(), file_names(loose), dir.string()));
  RepositoryModel m;
  m.flat = true;
  m.version = "1";
  const fs::path& file = loose.front();
  const bool saved_model = file.filename() == "saved_model.pb" || file.filename() == "saved_model.pbtxt";
  m.model.name = !flat_name.empty() ? flat_name : saved_model ? "model" : file.stem().string();
  if (Status s = read_configs(dir, "", m); !s) return s.take_error();  // a flat model is named by the caller
  if (file.extension() == ".wasm") {
    m.pipeline = file;
    return m;
  }
  const fs::path given = saved_model ? dir : file;  // the TensorFlow backend reads a SavedModel's directory
  auto files = resolve_model_files(std::span(&given, 1), m.model.encoding);
  if (!files) {
    Error e = files.take_error();
    e.detail = fmt::format("--model-repository: {}", e.detail);
    return e;
  }
  m.model.encoding = files->encoding;
  m.model.paths = files->paths;
  return m;
}

}  // namespace

Result<std::vector<RepositoryModel>> scan_model_repository(const fs::path& dir, const std::string& flat_name) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    return make_error(Errc::not_found, fmt::format("--model-repository: {} is not a directory", dir.string()));
  std::vector<fs::path> names;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.is_directory() && e.path().filename().string()[0] != '.') names.push_back(e.path());
  std::sort(names.begin(), names.end());
  if (const auto loose = loose_model_files(dir); !loose.empty()) {
    auto flat = scan_flat(dir, loose, names, flat_name);
    if (!flat) return flat.take_error();
    return std::vector<RepositoryModel>{std::move(*flat)};
  }
  std::vector<RepositoryModel> out;
  for (const auto& model_dir : names) {
    RepositoryModel m;
    m.model.name = model_dir.filename().string();
    if (Status s = read_configs(model_dir, m.model.name, m); !s) return s.take_error();
    const std::optional<uint64_t> best = highest_version(model_dir);
    if (!best)
      return make_error(
          Errc::not_found,
          fmt::format("--model-repository: {} has no version directory (NAME/1/model.onnx)", model_dir.string()));
    m.version = std::to_string(*best);
    const fs::path version_dir = model_dir / m.version;
    if (fs::is_regular_file(version_dir / "model.wasm", ec)) {
      m.pipeline = version_dir / "model.wasm";
      out.push_back(std::move(m));
      continue;
    }
    auto files = resolve_model_files(std::span(&version_dir, 1), m.model.encoding);
    if (!files) {
      Error e = files.take_error();
      e.detail = fmt::format("--model-repository: {}: {}", version_dir.string(), e.detail);
      return e;
    }
    m.model.encoding = files->encoding;
    m.model.paths = files->paths;
    out.push_back(std::move(m));
  }
  return out;
}

}  // namespace wasinn::oip_server
