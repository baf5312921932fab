// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// JSON config -> WhisperOptions / BackendConfig, with nlohmann::json in its non-throwing parse
// mode, so a bad config is a status, never an exception.
#include "options.h"

#include <algorithm>
#include <limits>
#include <optional>

#include "ggml_common/option_setters.hpp"
#include "plugin_common/layered_config.hpp"
#include "wasinn/available_cpus.h"
#include "wasinn/plugin_sdk/json_config.hpp"

namespace wasinn::whisper {
namespace {

namespace gc = ggml_common;
using json = nlohmann::json;
using O = WhisperOptions;

constexpr int64_t kMaxMs = int64_t{24} * 3600 * 1000;  // a day of audio: offsets beyond are mistakes
constexpr int64_t kMaxInt = std::numeric_limits<int32_t>::max();

const gc::SetterTable<O>& setters() {
  static const gc::SetterTable<O> table = [] {
    gc::SetterTable<O> t;
    t["enable-log"] = gc::boolean(&O::enable_log, "enable-log");
    t["enable-debug-log"] = gc::boolean(&O::enable_debug_log, "enable-debug-log");
    t["threads"] = [](const json& v, std::string_view source, O& o) -> Error {
      std::optional<int> n;  // the SDK's rule for every backend's thread counts
      if (Error e = sdk::read_thread_count(json{{"threads", v}}, "threads", source, n)) return e;
      o.threads = static_cast<uint32_t>(*n);
      return {};
    };
    // whisper_full_parallel splits the audio over several decoder states, which changes the
    // transcript at the seams; only 1 is served (WasmEdge's default).
    t["processors"] = [](const json& v, std::string_view source, O&) -> Error {
      const auto n = gc::as_integer(v);
      if (!n || *n < 0 || *n > 1024) return gc::bad_value(source, "processors", "an integer from 1 to 1024", v);
      if (*n > 1)
        return {WASINN_UNSUPPORTED_OPERATION,
                std::string(source) + ": \"processors\": " + std::to_string(*n) +
                    " is not supported: this backend decodes the audio in one pass (1); use \"threads\" for speed"};
      return {};
    };
    t["offset-t"] = gc::integer(&O::offset_t_ms, "offset-t", 0, kMaxMs);
    t["duration"] = gc::integer(&O::duration_ms, "duration", 0, kMaxMs);
    t["max-context"] = [](const json& v, std::string_view source, O& o) -> Error {
      const auto n = gc::as_integer(v);
      if (!n || *n > kMaxInt) return gc::bad_value(source, "max-context", "an integer (negative: keep the default)", v);
      if (*n >= 0) o.max_context = *n;  // WasmEdge ignores a negative one
      return {};
    };
    t["max-len"] = gc::integer(&O::max_len, "max-len", 0, kMaxInt);
    t["split-on-word"] = gc::boolean(&O::split_on_word, "split-on-word");
    t["translate"] = gc::boolean(&O::translate, "translate");
    t["language"] = gc::text(&O::language, "language");
    t["detect-language"] = gc::boolean(&O::detect_language, "detect-language");
    t["temperature"] = gc::number(&O::temperature, "temperature", 0.0, 2.0);
    t["temperature-inc"] = gc::number(&O::temperature_inc, "temperature-inc", 0.0, 1.0);
    t["prompt"] = gc::text(&O::prompt, "prompt");
    t["best-of"] = gc::integer(&O::best_of, "best-of", 1, 16);
    t["beam-size"] = gc::integer(&O::beam_size, "beam-size", 0, 16);
    t["no-timestamps"] = gc::boolean(&O::no_timestamps, "no-timestamps");
    t["audio-ctx"] = gc::integer(&O::audio_ctx, "audio-ctx", 0, 1500);
    t["diarize"] = gc::boolean(&O::diarize, "diarize");
    t["offset-n"] = gc::integer(&O::offset_n, "offset-n", 0, kMaxInt);
    t["stream"] = gc::boolean(&O::stream, "stream");
    return t;
  }();
  return table;
}

// WasmEdge writes these files on the host, named by the guest; wasinn never does.
bool is_output_file_key(std::string_view key) {
  static const char* const keys[] = {"output-file", "output-srt", "output-lrc", "output-json", "output-json-full"};
  return std::any_of(std::begin(keys), std::end(keys), [&](const char* k) { return key == k; });
}

Error unknown_key(std::string_view source, std::string_view key) {
  if (is_output_file_key(key)) {
    return {WASINN_UNSUPPORTED_OPERATION,
            std::string(source) + ": \"" + std::string(key) +
                "\" asks the host to write a file, which wasinn never does for a guest: read output 1 (\"srt\"), "
                "2 (\"lrc\") or 3 (\"json\") and write it where the guest may"};
  }
  std::string known;
  for (const auto& [k, setter] : setters()) known += (known.empty() ? "" : ", ") + k;
  return sdk::invalid(std::string(source) + ": unknown whisper option \"" + std::string(key) + "\" (known: " + known +
                      ")");
}

}  // namespace

uint32_t WhisperOptions::effective_threads() const {
  return threads > 0 ? threads : std::min(available_cpus_once(), 4u);
}

Error apply_config(std::string_view text, std::string_view source, WhisperOptions& options) {
  json doc;
  if (Error e = sdk::parse_config_object(text, source, doc)) return e;
  WhisperOptions updated = options;  // all or nothing
  for (const auto& [key, value] : doc.items()) {
    const auto it = setters().find(key);
    if (it == setters().end()) return unknown_key(source, key);
    if (Error e = it->second(value, source, updated)) return e;
  }
  options = std::move(updated);
  return {};
}

std::vector<std::pair<std::string, std::string>> option_values(const WhisperOptions& o) {
  const json values = {{"enable-log", o.enable_log},
                       {"enable-debug-log", o.enable_debug_log},
                       {"threads", o.threads},
                       {"processors", 1},
                       {"offset-t", o.offset_t_ms},
                       {"duration", o.duration_ms},
                       {"max-context", o.max_context},
                       {"max-len", o.max_len},
                       {"split-on-word", o.split_on_word},
                       {"translate", o.translate},
                       {"language", o.language},
                       {"detect-language", o.detect_language},
                       {"temperature", o.temperature},
                       {"temperature-inc", o.temperature_inc},
                       {"prompt", o.prompt},
                       {"best-of", o.best_of},
                       {"beam-size", o.beam_size},
                       {"no-timestamps", o.no_timestamps},
                       {"audio-ctx", o.audio_ctx},
                       {"diarize", o.diarize},
                       {"offset-n", o.offset_n},
                       {"stream", o.stream}};
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [key, value] : values.items())
    out.emplace_back(key, value.is_string() ? value.get<std::string>() : value.dump());
  return out;
}

Error set_option(std::string_view key, std::string_view value, WhisperOptions& options) {
  const auto it = setters().find(key);
  if (it == setters().end()) return unknown_key("set property", key);
  WhisperOptions updated = options;
  if (Error e = it->second(sdk::property_value_json(value), "set property", updated)) return e;
  options = std::move(updated);
  return {};
}

Error parse_backend_config(std::string_view text, BackendConfig& out) {
  out = {};
  return plugin_common::read_one_flag_config(text, "whisper backend config", "whisper", "allow-preload-paths",
                                             out.allow_preload_paths);
}

}  // namespace wasinn::whisper
