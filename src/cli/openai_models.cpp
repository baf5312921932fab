// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "cli/openai_models.h"

#include <algorithm>
#include <cstring>
#include <cstdint>
#include <fstream>
#include <regex>
#include <stdexcept>
#include <system_error>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/install_layout.h"
#include "cli/hub_download.h"
#include "cli/model_refs.h"
#include "cli/stderr_lines.h"

// The install's guests from its bin/ (src/CMakeLists.txt: GNUInstallDirs' DATADIR/wasinn/guests).
#ifndef WASINN_BINDIR_TO_GUESTDIR
#define WASINN_BINDIR_TO_GUESTDIR "../share/wasinn/guests"
#endif

namespace wasinn_cli {

namespace fs = std::filesystem;

const char* const kOpenaiHelp =
    "Serve the OpenAI-compatible endpoint (/v1/chat/completions, /v1/completions, /v1/embeddings, /v1/rerank, "
    "/v1/audio/*, /v1/models, the Responses and Messages APIs) and its chat page (GET /) with these models, no "
    "component given: MODEL is [NAME=]SOURCE, SOURCE a local .gguf file (a chat, embedding or reranking model), "
    "a whisper.cpp model (speech to text), a Piper voice (its .onnx with the .onnx.json beside it, or a run "
    "config .json naming it), or a Hugging Face GGUF model pulled now into the Hub's cache as `wasinn pull` does "
    "(hf://owner/repo[:QUANT], owner/repo[:QUANT], owner/repo/FILE.gguf, an https:// URL); NAME (the "
    "requests' \"model\") defaults to the file's name without .gguf, .bin, .onnx or .json. Sets --nn-preload "
    "NAME:GGML:AUTO:FILE (a voice's .onnx: NAME:PIPER:AUTO:FILE), --env MODELS=NAME,... and --public-path / (the "
    "chat page loads without --api-key's key, which its user types into it); --mmproj gives a model its "
    "projector (images or audio in chat), --vocoder an OuteTTS model its vocoder (speech); every other serve option "
    "applies. E.g. --openai hf://Qwen/Qwen2.5-0.5B-Instruct-GGUF:Q4_K_M, --openai chat=models/model.gguf";

const char* const kVocoderHelp =
    "With --openai: the vocoder (a WavTokenizer decoder GGUF) of the OuteTTS model NAME (NAME= may be left out "
    "when there is one model), so that POST /v1/audio/speech speaks with it: a local file, checked at start; "
    "repeatable, one per model. The preload becomes NAME:GGML:AUTO:model.gguf:vocoder.gguf. E.g. --openai "
    "tts=OuteTTS-0.2-500M-Q8_0.gguf --vocoder tts=WavTokenizer-Large-75-F16.gguf";

const char* const kMmprojHelp =
    "With --openai: the multimodal projector (mmproj GGUF) of the model NAME (NAME= may be left out when there is "
    "one model), so that its chats take images (image_url parts as base64 data: URLs, Responses' input_image, "
    "Messages' image blocks) or, with a projector that has an audio encoder, audio (input_audio parts, WAV or "
    "MP3): a local file, checked at start; repeatable, one per model; it replaces the one a "
    "Hub model's repository gives (see --no-mmproj). The preload becomes "
    "NAME:GGML:AUTO:model.gguf:mmproj.gguf. E.g. --openai vl=model.gguf --mmproj vl=mmproj-model-f16.gguf";

namespace {

constexpr const char* kComponent = "http_openai.component.wasm";

// general.architecture of the GGUF `file`, "" when it is no GGUF or does not say (read from its
// header's first keys, skipping values it does not need).
std::string gguf_architecture(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  auto read = [&](void* p, size_t n) {
    return static_cast<bool>(in.read(static_cast<char*>(p), static_cast<std::streamsize>(n)));
  };
  char magic[4];
  uint32_t version = 0;
  uint64_t n_tensors = 0, n_kv = 0;
  if (!read(magic, 4) || std::string_view(magic, 4) != "GGUF" || !read(&version, 4) || version < 2 ||
      !read(&n_tensors, 8) || !read(&n_kv, 8))
    return "";
  // Sizes of GGUF's fixed-size value types, by type id (8: string, 9: array).
  const uint64_t sizes[] = {1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8};
  auto skip_string = [&]() {
    uint64_t len = 0;
    return read(&len, 8) && len < (1ull << 32) &&
           static_cast<bool>(in.seekg(static_cast<std::streamoff>(len), std::ios::cur));
  };
  for (uint64_t i = 0; i < n_kv && i < 256; ++i) {
    uint64_t key_len = 0;
    if (!read(&key_len, 8) || key_len > 65536) return "";
    std::string key(key_len, '\0');
    uint32_t type = 0;
    if (!read(key.data(), key_len) || !read(&type, 4) || type > 12) return "";
    if (type == 8) {
      uint64_t len = 0;
      if (!read(&len, 8) || len > 65536) return "";
      std::string value(len, '\0');
      if (!read(value.data(), len)) return "";
      if (key == "general.architecture") return value;
    } else if (type == 9) {
      uint32_t elem = 0;
      uint64_t count = 0;
      if (!read(&elem, 4) || !read(&count, 8) || elem > 12 || elem == 9) return "";
      if (elem == 8) {
        for (uint64_t j = 0; j < count; ++j)
          if (!skip_string()) return "";
      } else if (!in.seekg(static_cast<std::streamoff>(count * sizes[elem]), std::ios::cur)) {
        return "";
      }
    } else if (!in.seekg(static_cast<std::streamoff>(sizes[type]), std::ios::cur)) {
      return "";
    }
  }
  return "";
}

bool ends_with(const std::string& s, std::string_view tail) {
  if (s.size() < tail.size()) return false;
  return std::equal(tail.begin(), tail.end(), s.end() - static_cast<std::ptrdiff_t>(tail.size()),
                    [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == b; });
}

bool valid_name(const std::string& name) { return valid_model_name(name); }
std::string name_of_file(const fs::path& file) { return model_name_of_file(file); }

// A SOURCE that can only mean a file of this machine: a path that starts as one does, or a bare
// file name. owner/repo and owner/repo/PATH are the Hub's (hub_download.h).
bool looks_local(const std::string& source) {
  if (source.find("://") != std::string::npos) return false;
  if (source.rfind('/', 0) == 0 || source.rfind("./", 0) == 0 || source.rfind("../", 0) == 0 ||
      source.rfind("~/", 0) == 0)
    return true;
  return std::count(source.begin(), source.end(), '/') < 2 && ends_with(source, ".gguf");
}

// Its files as a preload holds them (NAME:GGML:AUTO:FILE:FILE...).
void check_path(const OpenaiModel& m) {
  for (const auto& file : m.files) preload_path(file, fmt::format("--openai '{}'", m.given));
}

// A model's name, once known: one a request can send, and no other model's.
void check_named(const OpenaiModel& m, const std::vector<OpenaiModel>& others) {
  if (m.name.empty()) return;  // a Hub model's: known once pulled
  if (!valid_name(m.name))
    throw UsageError(
        fmt::format("--openai '{}': the file's name '{}' cannot name a model (no ':', ',', '=', "
                    "space): name it, e.g. --openai chat={}",
                    m.given, m.name, m.source));
  for (const auto& other : others) {
    if (&other != &m && other.name == m.name)
      throw UsageError(
          fmt::format("--openai: two models named '{}' ('{}' and '{}'): name one of them, e.g. "
                      "--openai {}-2={}",
                      m.name, other.given, m.given, m.name, m.source));
  }
}

std::string example_models() {
  return "wasinn serve --openai path/to/model.gguf, or a model of the Hugging Face Hub: wasinn serve --openai "
         "hf://Qwen/Qwen2.5-0.5B-Instruct-GGUF:Q4_K_M (NAME=SOURCE names it: --openai chat=path/to/model.gguf)";
}

}  // namespace

bool valid_model_name(const std::string& name, bool colon) {
  if (name.empty() || name.size() > 256) return false;
  return std::none_of(name.begin(), name.end(), [colon](char c) {
    return (c == ':' && !colon) || c == ',' || c == '=' || static_cast<unsigned char>(c) <= ' ' || c == 0x7f;
  });
}

std::string model_name_of_file(const fs::path& file) {
  std::string name = file.filename().string();
  // model.gguf, a whisper.cpp model.bin, a Piper voice's voice.onnx or its run config voice.json.
  for (const char* ext : {".gguf", ".bin", ".onnx", ".json"}) {
    if (ends_with(name, ext) && name.size() > std::strlen(ext)) {
      name.resize(name.size() - std::strlen(ext));
      break;
    }
  }
  static const std::regex split("-[0-9]{5}-of-[0-9]{5}$");
  return std::regex_replace(name, split, "");
}

fs::path openai_component() {
  const fs::path bin = wasinn::wasinn_bindir();
  if (bin.empty()) throw std::runtime_error("--openai: cannot tell where wasinn is installed (no /proc/self/exe)");
  const std::vector<fs::path> places = {(bin / WASINN_BINDIR_TO_GUESTDIR).lexically_normal(),  // an install
                                        (bin / "../guests").lexically_normal()};               // the build tree
  std::error_code ec;
  for (const auto& dir : places) {
    if (fs::is_regular_file(dir / kComponent, ec)) return dir / kComponent;
  }
  throw std::runtime_error(
      fmt::format("--openai serves wasinn's own {}, which is neither in {} (an install's) nor in {} (a build "
                  "tree's): build it (cmake --build BUILD --target guest_http_openai; scripts/setup.sh does) and "
                  "install it with wasinn (cmake --install BUILD --prefix PREFIX), or serve it by its path: wasinn "
                  "serve --nn-preload NAME:GGML:AUTO:model.gguf http_openai.component.wasm",
                  kComponent, places[0].string(), places[1].string()));
}

std::vector<OpenaiModel> parse_openai_models(const std::vector<std::string>& given) {
  std::vector<OpenaiModel> models;
  std::error_code ec;
  for (const auto& text : given) {
    if (text.empty()) continue;  // --openai alone
    if (ends_with(text, ".wasm") || ends_with(text, ".wat"))
      throw UsageError(fmt::format(
          "--openai serves wasinn's own OpenAI component with models, not '{}': drop it, or drop --openai to "
          "serve that component (with --nn-preload NAME:GGML:AUTO:model.gguf)",
          text));
    OpenaiModel m;
    m.given = text;
    m.source = text;
    const size_t eq = text.find('=');
    // NAME=SOURCE, unless the whole is a file (a=b.gguf) or the '=' is a URL's (https://h/f?x=y).
    if (!fs::exists(text, ec) && eq != std::string::npos && text.find_first_of("/:") > eq) {
      m.name = text.substr(0, eq);
      m.source = text.substr(eq + 1);
      if (!valid_name(m.name))
        throw UsageError(
            fmt::format("--openai '{}': a model's NAME has no ':', ',', '=', space or control "
                        "character (it is the requests' \"model\")",
                        text));
      if (m.source.empty())
        throw UsageError(fmt::format("--openai '{}': no model after '=': {}", text, example_models()));
    }
    if (fs::exists(m.source, ec)) {
      if (!fs::is_regular_file(m.source, ec))
        throw UsageError(fmt::format("--openai '{}': '{}' is not a file: give a model file (.gguf)", text, m.source));
      m.files = {fs::absolute(m.source)};
      check_path(m);
      if (ends_with(m.source, ".onnx") && !fs::exists(m.source + ".json", ec))
        throw UsageError(
            fmt::format("--openai '{}': a Piper voice's config must be beside it ({}.json); the "
                        "OpenAI endpoint serves no other ONNX model",
                        text, m.source));
      if (m.name.empty()) m.name = name_of_file(m.files.front());
    } else if (looks_local(m.source)) {
      throw UsageError(
          fmt::format("--openai '{}': no such file '{}' (a model of the Hugging Face Hub is "
                      "hf://owner/repo[:QUANT] or owner/repo/FILE.gguf)",
                      text, m.source));
    } else if (auto ref = hub::parse_ref(m.source, hub::options_from_environment().endpoint); !ref) {
      throw UsageError(fmt::format("--openai '{}': no such file here, and {}", text, ref.error().detail));
    }
    check_named(m, models);
    models.push_back(std::move(m));
  }
  if (models.empty()) throw UsageError("--openai needs a model: " + example_models());
  return models;
}

void pull_openai_models(std::vector<OpenaiModel>& models, bool quiet, bool projectors) {
  for (OpenaiModel& m : models) {
    if (!m.files.empty()) continue;  // a local file
    fs::path projector;
    const std::string what = fmt::format("--openai '{}'", m.given);
    for (auto& file : pull_model_ref(m.source, what, quiet, projectors ? &projector : nullptr)) {
      if (ends_with(file.string(), ".gguf")) m.files.push_back(fs::absolute(file));
    }
    if (!projector.empty()) {
      // A file named mmproj that is no projector would fail the model's load: left out, and said.
      if (gguf_architecture(projector) == "clip") {
        m.mmproj = fs::absolute(projector);
        m.mmproj_pulled = true;
        preload_path(m.mmproj, what);
      }
      if (!quiet)
        fmt::print(stderr, "{}: {} {}\n", what,
                   m.mmproj_pulled ? "its multimodal projector:" : "left out, not a projector GGUF:",
                   projector.filename().string());
    }
    if (m.files.empty())
      throw UsageError(
          fmt::format("--openai '{}': {} holds no GGUF file: the OpenAI endpoint serves GGUF models "
                      "(llama.cpp's); name a .gguf, e.g. owner/repo:Q4_K_M",
                      m.given, m.source));
    check_path(m);
    if (m.name.empty()) m.name = name_of_file(m.files.front());
    check_named(m, models);
  }
}

namespace {

// A file an --openai model takes beside it (--mmproj, --vocoder): its flag, what it is, the
// general.architecture its GGUF has, and what the usage errors suggest.
struct Companion {
  const char* flag;       // "--mmproj"
  const char* what;       // "projector"
  const char* long_what;  // "multimodal projector"
  const char* arch;       // "clip"
  const char* example;    // "mmproj"
};

// The model `text` ([NAME=]FILE) names, and FILE; UsageErrors as attach_projectors' say.
OpenaiModel& companion_of(const std::string& text, std::vector<OpenaiModel>& models, const Companion& c,
                          std::string& file) {
  std::error_code ec;
  std::string name;
  file = text;
  const size_t eq = text.find('=');
  if (!fs::exists(text, ec) && eq != std::string::npos && text.find('/') > eq) {
    name = text.substr(0, eq);
    file = text.substr(eq + 1);
  }
  if (name.empty()) {
    if (models.size() != 1)
      throw UsageError(fmt::format("{} '{}': which model's {} is it? With {} models give NAME=FILE, e.g. {} {}={}",
                                   c.flag, text, c.what, models.size(), c.flag,
                                   models.empty() ? std::string("NAME") : models.front().name, text));
    name = models.front().name;
  }
  std::string names;
  for (auto& m : models) {
    if (m.name == name) {
      if (!fs::is_regular_file(file, ec))
        throw UsageError(fmt::format("{} '{}': no such file '{}'", c.flag, text, file));
      const std::string arch = gguf_architecture(file);
      if (arch != c.arch)
        throw UsageError(
            fmt::format("{} '{}': '{}' is not a {} GGUF (its general.architecture is {}, not '{}'): give "
                        "the model's {} file",
                        c.flag, text, file, c.long_what, arch.empty() ? std::string("not readable") : "'" + arch + "'",
                        c.arch, c.example));
      return m;
    }
    names += (names.empty() ? "" : ", ") + m.name;
  }
  throw UsageError(fmt::format("{} '{}': no --openai model is named '{}' (the models: {})", c.flag, text, name, names));
}

}  // namespace

void attach_projectors(const std::vector<std::string>& given, std::vector<OpenaiModel>& models) {
  static const Companion kProjector{"--mmproj", "projector", "multimodal projector", "clip", "mmproj"};
  for (const auto& text : given) {
    std::string file;
    OpenaiModel& model = companion_of(text, models, kProjector, file);
    if (!model.mmproj.empty() && !model.mmproj_pulled)
      throw UsageError(fmt::format("--mmproj '{}': model '{}' has a projector already ({}): one per model", text,
                                   model.name, model.mmproj.string()));
    model.mmproj = fs::absolute(file);
    model.mmproj_pulled = false;
    preload_path(model.mmproj, fmt::format("--mmproj '{}'", text));
  }
}

void attach_vocoders(const std::vector<std::string>& given, std::vector<OpenaiModel>& models) {
  static const Companion kVocoder{"--vocoder", "vocoder", "WavTokenizer decoder (vocoder)", "wavtokenizer-dec",
                                  "WavTokenizer"};
  for (const auto& text : given) {
    std::string file;
    OpenaiModel& model = companion_of(text, models, kVocoder, file);
    if (!model.vocoder.empty())
      throw UsageError(fmt::format("--vocoder '{}': model '{}' has a vocoder already ({}): one per model", text,
                                   model.name, model.vocoder.string()));
    model.vocoder = fs::absolute(file);
    preload_path(model.vocoder, fmt::format("--vocoder '{}'", text));
  }
  for (const auto& m : models) {
    if (!m.vocoder.empty() && !m.mmproj.empty())
      throw UsageError(
          fmt::format("--vocoder: model '{}' has a projector too ({}): a speech model takes no images; "
                      "give it one or the other (--no-mmproj leaves a Hub model's out)",
                      m.name, m.mmproj.string()));
  }
}

void apply_openai_models(const std::vector<OpenaiModel>& models, const std::vector<OpenaiModel>& on_demand,
                         wasinn::HostOptions& host, wasinn::Program& program, wasinn::ServeOptions& serve) {
  std::string names, speakers;
  for (const auto& m : models) {
    // A Piper voice (.onnx with its .onnx.json beside it) is the piper backend's; every other file
    // GGML's, which the core sends on to whisper or Piper where the file is theirs.
    const bool voice = m.files.size() == 1 && ends_with(m.files[0].string(), ".onnx");
    std::string spec = m.name + (voice ? ":PIPER:AUTO" : ":GGML:AUTO");
    for (const auto& file : m.files) spec += ":" + file.string();
    if (!m.mmproj.empty()) spec += ":" + m.mmproj.string();
    if (!m.vocoder.empty()) spec += ":" + m.vocoder.string();
    host.preloads.push_back(spec);
    names += (names.empty() ? "" : ",") + m.name;
    if (!m.vocoder.empty()) speakers += (speakers.empty() ? "" : ",") + m.name;
  }
  for (const auto& m : on_demand) {
    wasinn::HostOptions::OnDemandModels::Gguf gguf{m.name, {}};
    for (const auto& file : m.files) gguf.files.push_back(file.string());
    host.on_demand_models.gguf.push_back(std::move(gguf));
    names += (names.empty() ? "" : ",") + m.name;
  }
  const bool models_given =
      std::any_of(program.env.begin(), program.env.end(), [](const auto& kv) { return kv.first == "MODELS"; });
  if (!models_given) program.env.emplace_back("MODELS", names);
  // The OuteTTS models (GET /v1/audio/voices lists them without loading every GGUF to ask).
  if (!speakers.empty()) program.env.emplace_back("TTS_MODELS", speakers);
  if (std::find(serve.public_paths.begin(), serve.public_paths.end(), "/") == serve.public_paths.end())
    serve.public_paths.push_back("/");
}

const char* const kImageUrlsHelp =
    "With --openai or --models-dir: fetch the images chats name by http:// or https:// URL (image_url parts, "
    "Responses' input_image, Messages' url image sources; by default such URLs are refused with 400). MAX is "
    "the most bytes one image may have (e.g. 10MiB; B, KB, MB, GB, KiB, MiB, GiB; at most 1GiB), TIMEOUT the "
    "time all of one request's "
    "fetches may take together (default 10s): past either the request gets 400. A GET with no credentials, "
    "redirects not followed. Every address is fetched, loopback and private ones included: turn it on only "
    "where the clients may make this server reach what it can reach. E.g. --image-urls 10MiB,5s";

ImageUrlLimits parse_image_urls(const std::string& text) {
  const std::string example = "e.g. --image-urls 10MiB or --image-urls 10MiB,5s";
  ImageUrlLimits limits;
  const size_t comma = text.find(',');
  const std::string size = text.substr(0, comma);
  static const std::regex kSize(R"(([0-9]{1,12})\s*([A-Za-z]*))");
  std::smatch m;
  if (!std::regex_match(size, m, kSize))
    throw UsageError(
        fmt::format("--image-urls '{}': MAX must be a whole number of bytes with an optional unit (B, KB, "
                    "MB, GB, KiB, MiB, GiB), {}",
                    text, example));
  std::string unit = m[2].str();
  std::transform(unit.begin(), unit.end(), unit.begin(), [](unsigned char c) { return std::tolower(c); });
  uint64_t scale = 0;
  if (unit.empty() || unit == "b") scale = 1;
  if (unit == "kb") scale = 1000;
  if (unit == "mb") scale = 1000 * 1000;
  if (unit == "gb") scale = 1000 * 1000 * 1000;
  if (unit == "kib") scale = uint64_t{1} << 10;
  if (unit == "mib") scale = uint64_t{1} << 20;
  if (unit == "gib") scale = uint64_t{1} << 30;
  if (!scale)
    throw UsageError(fmt::format("--image-urls '{}': unknown unit '{}' (B, KB, MB, GB, KiB, MiB, GiB), {}", text,
                                 m[2].str(), example));
  const uint64_t n = std::stoull(m[1].str());
  if (n == 0 || n > (uint64_t{1} << 30) / scale)
    throw UsageError(fmt::format("--image-urls '{}': MAX must be from 1 byte to 1GiB, {}", text, example));
  limits.max_bytes = n * scale;
  if (comma != std::string::npos) {
    const std::string time = text.substr(comma + 1);
    try {
      limits.timeout_ms = parse_duration_ms(time);
    } catch (const std::invalid_argument& e) {
      throw UsageError(fmt::format("--image-urls '{}': TIMEOUT: {}; {}", text, e.what(), example));
    }
    if (limits.timeout_ms == 0 || limits.timeout_ms > 600000)
      throw UsageError(fmt::format("--image-urls '{}': TIMEOUT must be from 1ms to 10m, {}", text, example));
  }
  return limits;
}

void apply_image_urls(const ImageUrlLimits& limits, wasinn::Program& program) {
  auto set = [&](const char* name, uint64_t value) {
    const bool given =
        std::any_of(program.env.begin(), program.env.end(), [&](const auto& kv) { return kv.first == name; });
    if (!given) program.env.emplace_back(name, std::to_string(value));
  };
  set("IMAGE_URL_MAX_BYTES", limits.max_bytes);
  set("IMAGE_URL_TIMEOUT_MS", limits.timeout_ms);
}

void print_openai_urls(const std::string& scheme, const std::string& address, const std::vector<OpenaiModel>& models) {
  const std::string base = fmt::format("{}://{}", scheme, address);
  std::string names;
  for (const auto& m : models) names += (names.empty() ? "" : ", ") + m.name;
  print_notice(fmt::format("OpenAI API: {}/v1 (models: {})", base, names),
               {{"api_url", base + "/v1"}, {"models", names}});
  print_notice(fmt::format("Chat page: {}/", base), {{"chat_url", base + "/"}});
}

}  // namespace wasinn_cli
