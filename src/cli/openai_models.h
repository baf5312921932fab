// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// `wasinn serve --openai MODEL...`: the OpenAI-compatible endpoint in one command. The component
// is wasinn's own http_openai guest, found beside the running wasinn (the build tree's guests/, an
// install's share/wasinn/guests/); each MODEL, [NAME=]SOURCE, is a local GGUF file or a Hub
// reference pulled at start (model_refs.h), registered as NAME:GGML:AUTO:FILE and listed by
// /v1/models (MODELS=NAME,...); the chat page at GET / is public (--public-path /) so that a
// browser loads it before its user types --api-key's key into it.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "cli/cli_common.h"
#include "wasinn/host.h"
#include "wasinn/server.h"

namespace wasinn_cli {

struct OpenaiModel {
  std::string name;                          // the request's "model"
  std::vector<std::filesystem::path> files;  // a split GGUF: its parts
  std::filesystem::path mmproj;              // its projector (--mmproj, or its Hub repository's); "" if none
  bool mmproj_pulled = false;                // mmproj came with the model from the Hub
  std::filesystem::path vocoder;             // an OuteTTS model's WavTokenizer decoder (--vocoder); "" if none
  std::string given;                         // as on the command line
  std::string source;                        // the file or reference, NAME= aside
};

// The component --openai serves: http_openai.component.wasm in the install's share/wasinn/guests
// or the build tree's guests/, relative to the running executable. Throws std::runtime_error
// naming where it looked and how to build or install it.
std::filesystem::path openai_component();

// --openai's MODELs in order, each [NAME=]SOURCE: a path that exists is a file; else SOURCE is a
// Hub reference or URL (hub::parse_ref's forms), pulled by pull_openai_models. NAME defaults to
// the file's name without .gguf (and a split GGUF's -00001-of-0000N). Throws UsageError for no
// MODEL (saying how to give one), a component path among them, a missing file, a bad NAME, or two
// models of one name (those known before any pull).
std::vector<OpenaiModel> parse_openai_models(const std::vector<std::string>& given);
// Pulls the models given by reference (their files, their names when not given): a UsageError
// for a bad reference, one that names no GGUF or a name taken; std::runtime_error for a failed pull.
// With `projectors`, a repository's multimodal projector comes along as the model's mmproj (as
// llama-server's -hf; hub_select.h's best_projector), said on stderr unless `quiet`.
void pull_openai_models(std::vector<OpenaiModel>& models, bool quiet, bool projectors = true);

// --mmproj's [NAME=]FILE each, the projector of the --openai model NAME (without NAME: the only
// one): set as that model's `mmproj`, which its preload then holds as its last file
// (NAME:GGML:AUTO:model.gguf:mmproj.gguf, the llama.cpp plugin's form), in place of one pulled with
// it from the Hub. Throws UsageError for a NAME no --openai model has, no NAME among several
// models, two projectors for one model, or a
// FILE that is missing or not a projector GGUF (general.architecture "clip").
void attach_projectors(const std::vector<std::string>& given, std::vector<OpenaiModel>& models);

// The --mmproj flag's help.
extern const char* const kMmprojHelp;

// --vocoder's [NAME=]FILE each, the WavTokenizer decoder of the OuteTTS --openai model NAME (as
// --mmproj's: the preload's last file, NAME:GGML:AUTO:model.gguf:vocoder.gguf, which the llama.cpp
// plugin takes as the vocoder and so speaks). UsageErrors as attach_projectors', for a FILE whose
// general.architecture is not "wavtokenizer-dec", and for a model given a projector too. Sets
// TTS_MODELS (apply_openai_models) for GET /v1/audio/voices.
void attach_vocoders(const std::vector<std::string>& given, std::vector<OpenaiModel>& models);
extern const char* const kVocoderHelp;

// --image-urls MAX[,TIMEOUT]: the most bytes one fetched image may have and the time a request's
// fetches may take together.
struct ImageUrlLimits {
  uint64_t max_bytes = 0;
  uint64_t timeout_ms = 10000;
};
// MAX is bytes with an optional unit (B, KB, MB, GB of 1000; KiB, MiB, GiB of 1024), 1 B to 1 GiB;
// TIMEOUT a DURATION from 1ms to 10m (default 10s). Throws UsageError saying what to write.
ImageUrlLimits parse_image_urls(const std::string& text);
// Sets the guest's IMAGE_URL_MAX_BYTES and IMAGE_URL_TIMEOUT_MS (each unless --env sets it).
void apply_image_urls(const ImageUrlLimits& limits, wasinn::Program& program);
// The --image-urls flag's help.
extern const char* const kImageUrlsHelp;

// What --openai sets: a preload per model (after host.preloads'), MODELS=NAME,... in the guest's
// environment (unless --env sets it), and "/" public in `serve` (the chat page).
// --models-dir's models (on_demand) are registered on demand, not as preloads, and listed too.
void apply_openai_models(const std::vector<OpenaiModel>& models, const std::vector<OpenaiModel>& on_demand,
                         wasinn::HostOptions& host, wasinn::Program& program, wasinn::ServeOptions& serve);

// The lines printed once the server listens: the API's base URL (what an OpenAI client's base_url
// takes) and the chat page's.
void print_openai_urls(const std::string& scheme, const std::string& address, const std::vector<OpenaiModel>& models);

// A model name as a preload (NAME:...) and MODELS (a,b) hold it, and a request's "model" sends it:
// 1 to 256 characters, no ',', '=', space or control character, and no ':' unless `colon`.
bool valid_model_name(const std::string& name, bool colon = false);
// tiny-Q8_0.gguf -> tiny-Q8_0 (.bin, .onnx and .json go too); a split model's first part,
// m-Q4_K_M-00001-of-00003.gguf -> m-Q4_K_M.
std::string model_name_of_file(const std::filesystem::path& file);

// The --openai flag's help and the usage error's example.
extern const char* const kOpenaiHelp;

}  // namespace wasinn_cli
