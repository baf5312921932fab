// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "cli/models_dir.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <system_error>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "cli/hub_select.h"

namespace wasinn_cli {

namespace fs = std::filesystem;

namespace {

bool is_gguf(const fs::path& file) {
  std::string ext = file.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  return ext == ".gguf";
}

bool is_projector(const fs::path& file) {
  std::string name = file.filename().string();
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
  return name.find("mmproj") != std::string::npos;
}

// A split model's parts after the first are its first part's: not models of their own.
bool is_later_part(const std::string& path) {
  const auto parts = hub::split_parts(path);
  return parts.size() > 1 && parts.front() != path;
}

OpenaiModel model_of(const std::string& name, const std::vector<std::string>& parts, const fs::path& dir) {
  OpenaiModel m;
  m.name = name;
  for (const auto& part : parts) m.files.push_back(fs::absolute(dir / part));
  m.given = m.files.front().string();
  m.source = m.given;
  return m;
}

// DIR's own *.gguf files (not its subdirectories').
void add_plain_files(const fs::path& dir, std::vector<OpenaiModel>& models) {
  std::error_code ec;
  std::vector<std::string> names;
  for (const auto& item : fs::directory_iterator(dir, ec)) {
    if (item.is_regular_file(ec) && is_gguf(item.path())) names.push_back(item.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  for (const auto& file : names) {
    if (is_projector(file)) {
      spdlog::debug("--models-dir: {} skipped: a multimodal projector (mmproj), not a model", (dir / file).string());
      continue;
    }
    if (is_later_part(file)) continue;
    models.push_back(model_of(model_name_of_file(file), hub::split_parts(file), dir));
  }
}

// The revision refs/main names, else every snapshot's (the newest name wins nothing: duplicates
// are skipped, said at debug level).
std::vector<fs::path> snapshots_of(const fs::path& repo_dir) {
  std::error_code ec;
  std::ifstream main_ref(repo_dir / "refs" / "main");
  std::string revision;
  if (main_ref >> revision && fs::is_directory(repo_dir / "snapshots" / revision, ec))
    return {repo_dir / "snapshots" / revision};
  std::vector<fs::path> out;
  for (const auto& item : fs::directory_iterator(repo_dir / "snapshots", ec)) {
    if (item.is_directory(ec)) out.push_back(item.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// A snapshot's GGUF paths, relative to it ('/'-separated, as the Hub lists them).
std::vector<std::string> gguf_paths(const fs::path& snapshot) {
  std::error_code ec;
  std::vector<std::string> out;
  for (auto it = fs::recursive_directory_iterator(snapshot, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (is_gguf(it->path()) && fs::is_regular_file(it->path(), ec))  // follows the cache's symlinks to blobs
      out.push_back(it->path().lexically_relative(snapshot).generic_string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// OWNER/REPO:TAG for a file of the repository: TAG the last '-' or '.' separated word of its
// name when `wasinn pull OWNER/REPO:TAG` picks that file, else the file's name without .gguf.
std::string hub_name(const std::string& repo, const std::string& path, const std::vector<std::string>& files) {
  const std::string stem = model_name_of_file(fs::path(path).filename());
  const size_t cut = stem.find_last_of("-.");
  if (cut != std::string::npos && cut + 1 < stem.size()) {
    const std::string tag = stem.substr(cut + 1);
    auto picked = hub::select_files(files, tag, repo);
    if (picked && !picked->model.empty() && picked->model.front() == path) return repo + ":" + tag;
  }
  return repo + ":" + stem;
}

// models--OWNER--REPO directories: a Hub cache's.
void add_hub_cache(const fs::path& dir, std::vector<OpenaiModel>& models) {
  std::error_code ec;
  std::vector<fs::path> repos;
  for (const auto& item : fs::directory_iterator(dir, ec)) {
    const std::string name = item.path().filename().string();
    if (item.is_directory(ec) && name.rfind("models--", 0) == 0) repos.push_back(item.path());
  }
  std::sort(repos.begin(), repos.end());
  for (const auto& repo_dir : repos) {
    std::string repo = repo_dir.filename().string().substr(8);
    const size_t sep = repo.find("--");
    if (sep == std::string::npos) continue;
    repo = repo.substr(0, sep) + "/" + repo.substr(sep + 2);
    for (const auto& snapshot : snapshots_of(repo_dir)) {
      const std::vector<std::string> files = gguf_paths(snapshot);
      for (const auto& path : files) {
        if (is_projector(fs::path(path).filename())) {
          spdlog::debug("--models-dir: {} skipped: a multimodal projector (mmproj), not a model",
                        (snapshot / path).string());
          continue;
        }
        if (is_later_part(path)) continue;
        const std::string name = hub_name(repo, path, files);
        const bool seen = std::any_of(models.begin(), models.end(), [&](const auto& m) { return m.name == name; });
        if (seen) {
          spdlog::debug("--models-dir: {} skipped: '{}' is named by another revision already",
                        (snapshot / path).string(), name);
          continue;
        }
        models.push_back(model_of(name, hub::split_parts(path), snapshot));
      }
    }
  }
}

}  // namespace

std::vector<OpenaiModel> scan_models_dir(const fs::path& dir) {
  std::error_code ec;
  if (!fs::exists(dir, ec))
    throw UsageError(
        fmt::format("--models-dir '{}': no such directory: give a directory of .gguf files (or a Hugging "
                    "Face Hub cache, e.g. ~/.cache/huggingface/hub)",
                    dir.string()));
  if (!fs::is_directory(dir, ec))
    throw UsageError(
        fmt::format("--models-dir '{}' is not a directory: give a directory of .gguf files, or serve "
                    "one file with --openai {}",
                    dir.string(), dir.string()));
  std::vector<OpenaiModel> models;
  add_plain_files(dir, models);
  add_hub_cache(dir, models);
  if (models.empty())
    throw UsageError(
        fmt::format("--models-dir '{}' holds no GGUF model (*.gguf, or a Hub cache's "
                    "models--OWNER--REPO/snapshots): put models there (wasinn pull OWNER/REPO:QUANT "
                    "fills the Hub cache), or serve files with --openai MODEL",
                    dir.string()));
  std::map<std::string, const OpenaiModel*> by_name;
  for (const auto& m : models) {
    if (!valid_model_name(m.name, true))
      throw UsageError(
          fmt::format("--models-dir: the file {} gives the name '{}', which cannot name a model (no ',', "
                      "'=', space): rename the file",
                      m.given, m.name));
    auto [it, added] = by_name.emplace(m.name, &m);
    if (!added)
      throw UsageError(fmt::format("--models-dir: two models named '{}' ({} and {}): rename one of the files", m.name,
                                   it->second->given, m.given));
  }
  std::sort(models.begin(), models.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  return models;
}

}  // namespace wasinn_cli
