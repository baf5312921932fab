// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "cli/hub_select.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace wasinn_cli::hub {

namespace {

using wasinn::Errc;
using wasinn::make_error;

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool ends_with_icase(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && lower(s.substr(s.size() - suffix.size())) == suffix;
}

std::string file_name(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string dir_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash + 1);
}

bool all_digits(const std::string& s) {
  return !s.empty() &&
         std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

struct Split {
  std::string prefix;  // the path before "-00001-of-00003.gguf"
  int index = 1;
  int count = 1;
};

// NAME-IIIII-of-NNNNN.gguf, five digits each, as llama.cpp's gguf-split names its parts.
std::optional<Split> split_of(const std::string& path) {
  if (!ends_with_icase(path, ".gguf")) return std::nullopt;
  const std::string stem = path.substr(0, path.size() - 5);
  // "-00001-of-00003": 15 characters
  if (stem.size() < 16) return std::nullopt;
  const std::string tail = stem.substr(stem.size() - 15);
  if (tail[0] != '-' || lower(tail.substr(6, 4)) != "-of-" || !all_digits(tail.substr(1, 5)) ||
      !all_digits(tail.substr(10, 5)))
    return std::nullopt;
  Split s{stem.substr(0, stem.size() - 15), std::stoi(tail.substr(1, 5)), std::stoi(tail.substr(10, 5))};
  if (s.count < 1 || s.index < 1 || s.index > s.count) return std::nullopt;
  return s;
}

bool is_gguf_model(const std::string& path) {
  if (!ends_with_icase(path, ".gguf")) return false;
  const std::string name = lower(file_name(path));
  for (const char* side : {"mmproj", "imatrix", "mtp-", "eagle3-", "dflash-", "dspark-"}) {
    if (name.find(side) != std::string::npos) return false;
  }
  return true;
}

// The bits of a GGUF's quantization, from the last '-' or '.' part of its name (split suffix
// aside), as llama.cpp's -hf reads them: Q4_K_M -> 4, F16 -> 16, none -> 0.
int quant_bits(const std::string& path) {
  std::string stem = path.size() > 5 ? path.substr(0, path.size() - 5) : path;
  if (auto split = split_of(path)) stem = split->prefix;
  const size_t cut = stem.find_last_of("-./");
  if (cut == std::string::npos || stem[cut] == '/') return 0;
  const std::string tag = stem.substr(cut + 1);
  const size_t digit = tag.find_first_of("0123456789");
  if (digit == std::string::npos) return 0;
  int bits = 0;
  for (size_t i = digit; i < tag.size() && std::isdigit(static_cast<unsigned char>(tag[i])) && bits < 1000; ++i)
    bits = bits * 10 + (tag[i] - '0');
  return bits;
}

bool first_part_or_whole(const std::string& path) {
  const auto split = split_of(path);
  return !split || split->index == 1;
}

// TAG followed by '.' or '-', any case (llama.cpp: std::regex(tag + "[.-]", icase)).
bool has_tag(const std::string& path, const std::string& tag) {
  const std::string p = lower(path);
  const std::string t = lower(tag);
  for (size_t at = p.find(t); at != std::string::npos; at = p.find(t, at + 1)) {
    const size_t after = at + t.size();
    if (after < p.size() && (p[after] == '.' || p[after] == '-')) return true;
  }
  return false;
}

std::string listing(const std::vector<std::string>& files, size_t most = 20) {
  std::vector<std::string> shown(files.begin(), files.begin() + std::min(files.size(), most));
  std::string text = fmt::format("{}", fmt::join(shown, ", "));
  if (files.size() > most) text += fmt::format(" and {} more", files.size() - most);
  return text;
}

wasinn::Result<Selection> select_gguf(const std::vector<std::string>& files, const std::string& tag,
                                      const std::string& repo) {
  std::vector<std::string> models;
  for (const auto& f : files) {
    if (is_gguf_model(f) && first_part_or_whole(f)) models.push_back(f);
  }
  std::string chosen;
  const std::vector<std::string> tags = tag.empty() ? std::vector<std::string>{"Q4_K_M", "Q8_0"} : std::vector{tag};
  for (const auto& t : tags) {
    for (const auto& f : models) {
      if (chosen.empty() && has_tag(f, t)) chosen = f;
    }
  }
  if (chosen.empty() && tag.empty() && !models.empty()) chosen = models.front();
  if (chosen.empty()) {
    return make_error(Errc::not_found, fmt::format("{} has no GGUF model file tagged {} (a name with '{}.' or '{}-', "
                                                   "any case); its GGUF models: {}",
                                                   repo, tag, tag, tag, listing(models)));
  }
  Selection s;
  for (const auto& part : split_parts(chosen)) {
    if (std::find(files.begin(), files.end(), part) == files.end()) {
      return make_error(
          Errc::not_found,
          fmt::format("{}: {} is a split model, but its part {} is not in the repository", repo, chosen, part));
    }
    s.model.push_back(part);
  }
  s.projector = best_projector(files, chosen);
  return s;
}

wasinn::Result<Selection> select_onnx(const std::vector<std::string>& files, const std::string& tag,
                                      const std::string& repo) {
  std::vector<std::string> onnx;
  for (const auto& f : files) {
    if (ends_with_icase(f, ".onnx")) onnx.push_back(f);
  }
  const auto present = [&](const std::string& path) { return std::find(onnx.begin(), onnx.end(), path) != onnx.end(); };
  std::string chosen;
  if (tag.empty()) {
    if (present("onnx/model.onnx")) {
      chosen = "onnx/model.onnx";
    } else if (present("model.onnx")) {
      chosen = "model.onnx";
    } else if (onnx.size() == 1) {
      chosen = onnx.front();
    } else {
      return make_error(Errc::not_found,
                        fmt::format("{} has {} ONNX files and no onnx/model.onnx or model.onnx: name one as {}/PATH, "
                                    "or give a tag as {}:TAG (model_TAG.onnx); its ONNX files: {}",
                                    repo, onnx.size(), repo, repo, listing(onnx)));
    }
  } else {
    for (const auto& exact : {"onnx/model_" + tag + ".onnx", "model_" + tag + ".onnx"}) {
      for (const auto& f : onnx) {
        if (chosen.empty() && lower(f) == lower(exact)) chosen = f;
      }
    }
    if (chosen.empty()) {
      std::vector<std::string> tagged;
      for (const auto& f : onnx) {
        const std::string stem = lower(file_name(f).substr(0, file_name(f).size() - 5));
        const std::string t = lower(tag);
        if (stem == t || (stem.size() > t.size() && stem.compare(stem.size() - t.size(), t.size(), t) == 0 &&
                          (stem[stem.size() - t.size() - 1] == '_' || stem[stem.size() - t.size() - 1] == '-')))
          tagged.push_back(f);
      }
      if (tagged.size() != 1) {
        return make_error(Errc::not_found,
                          fmt::format("{} has {} ONNX files tagged {} (model_{}.onnx, or a name ending in _{} or "
                                      "-{}); its ONNX files: {}",
                                      repo, tagged.empty() ? "no" : "several", tag, tag, tag, tag, listing(onnx)));
      }
      chosen = tagged.front();
    }
  }
  Selection s;
  s.model.push_back(chosen);
  s.extra = onnx_data_files(files, chosen);
  for (const char* json : {"config.json", "generation_config.json", "preprocessor_config.json", "tokenizer.json",
                           "tokenizer_config.json", "special_tokens_map.json"}) {
    if (std::find(files.begin(), files.end(), json) != files.end()) s.extra.push_back(json);
  }
  return s;
}

}  // namespace

std::vector<std::string> split_parts(const std::string& path) {
  const auto split = split_of(path);
  if (!split || split->count == 1) return {path};
  // The parts keep the given part's spelling of the suffix (".gguf" or ".GGUF").
  const std::string ext = path.substr(path.size() - 5);
  const std::string of = path.substr(path.size() - 5 - 9, 4);
  std::vector<std::string> parts;
  for (int i = 1; i <= split->count; ++i)
    parts.push_back(fmt::format("{}-{:05d}{}{:05d}{}", split->prefix, i, of, split->count, ext));
  return parts;
}

std::vector<std::string> onnx_data_files(const std::vector<std::string>& files, const std::string& onnx_path) {
  std::vector<std::string> out;
  for (const auto& f : files) {
    if (dir_of(f) != dir_of(onnx_path) || f.size() <= onnx_path.size() || f.compare(0, onnx_path.size(), onnx_path))
      continue;
    const std::string rest = f.substr(onnx_path.size());
    if (rest == "_data" || rest == ".data" || rest.rfind("_data_", 0) == 0) out.push_back(f);
  }
  return out;
}

std::string best_projector(const std::vector<std::string>& files, const std::string& model) {
  const size_t slash = model.rfind('/');
  const std::string model_dir = slash == std::string::npos ? "" : model.substr(0, slash + 1);
  const int model_bits = quant_bits(model);
  std::string best;
  size_t best_depth = 0;
  int best_diff = 0;
  for (const auto& f : files) {
    if (!ends_with_icase(f, ".gguf") || file_name(f).find("mmproj") == std::string::npos) continue;
    // In the model's folder or one above it: the deeper the folder they share, the better.
    const size_t f_slash = f.rfind('/');
    const std::string dir = f_slash == std::string::npos ? "" : f.substr(0, f_slash + 1);
    if (model_dir.compare(0, dir.size(), dir) != 0) continue;
    const size_t depth = static_cast<size_t>(std::count(dir.begin(), dir.end(), '/'));
    const int diff = std::abs(quant_bits(f) - model_bits);
    if (best.empty() || depth > best_depth || (depth == best_depth && diff < best_diff)) {
      best = f;
      best_depth = depth;
      best_diff = diff;
    }
  }
  return best;
}

wasinn::Result<Selection> select_files(const std::vector<std::string>& files, const std::string& tag,
                                       const std::string& repo) {
  const bool any_gguf = std::any_of(files.begin(), files.end(), is_gguf_model);
  if (any_gguf) return select_gguf(files, tag, repo);
  const bool any_onnx =
      std::any_of(files.begin(), files.end(), [](const std::string& f) { return ends_with_icase(f, ".onnx"); });
  if (any_onnx) return select_onnx(files, tag, repo);
  std::vector<std::string> ggufs;
  for (const auto& f : files) {
    if (ends_with_icase(f, ".gguf")) ggufs.push_back(f);
  }
  if (!ggufs.empty()) {
    return make_error(Errc::not_found,
                      fmt::format("{} has GGUF files but no model among them (projectors, imatrix...): {}; name one "
                                  "as {}/PATH",
                                  repo, listing(ggufs), repo));
  }
  return make_error(Errc::not_found,
                    fmt::format("{} has no GGUF or ONNX model file (wasinn pull picks those; name any other file as "
                                "{}/PATH); its files: {}",
                                repo, repo, files.empty() ? "none" : listing(files)));
}

}  // namespace wasinn_cli::hub
