// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Models named by a Hugging Face Hub reference (or a URL) where a command takes a model file:
// --nn-preload NAME:ENCODING:TARGET:hf://owner/repo[:QUANT] (run, serve, the config file's
// nn-preload) and serve --openai (openai_models.h). Pulled by the CLI at start, before the host
// is built, as `wasinn pull` pulls (hub_download.h: the Hub's cache, shared with huggingface_hub
// and llama.cpp; what it holds is used without the network; HF_ENDPOINT, HF_TOKEN and
// HF_HUB_OFFLINE honoured), with its progress display: the host only ever sees local paths.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "cli/cli_common.h"
#include "cli/run_command.h"

namespace wasinn_cli {

// Whether a preload's PATH part is a reference rather than a file: it starts with hf://,
// https:// or http:// (and is then taken whole, colons and all).
bool is_model_ref(std::string_view path);

// The local paths of the model files `reference` names (hub::parse_ref's forms), pulling what the
// cache lacks. `what` says where it was given ("--nn-preload 'x:GGML:AUTO:hf://o/r'"), for
// errors: a reference parse_ref refuses (or a Hub endpoint that is no URL) is a UsageError, a
// failed pull a std::runtime_error, each naming `what` and the reference.
// With `projector`: a GGUF repository's multimodal projector too, its path set there ("" for none).
std::vector<std::filesystem::path> pull_model_ref(const std::string& reference, const std::string& what, bool quiet,
                                                  std::filesystem::path* projector = nullptr);

// FILE as a preload's PATH holds it: absolute, and without a ':' (the spec's separator), else a
// UsageError naming `what` and saying how to move the file or the Hub's cache.
std::string preload_path(const std::filesystem::path& file, const std::string& what);

// Rewrites each of o.host.preloads whose PATH part is a reference (NAME:ENCODING:TARGET:REF, the
// encoding not remote) into NAME:ENCODING:TARGET:FILE[:FILE...], the pulled files (a split
// GGUF's parts). A config file's entry is named by its file and line (apply_common's sources).
// Progress on stderr unless common says -q.
void pull_preload_refs(RunOptions& o, const CommonOptions& common);

}  // namespace wasinn_cli
