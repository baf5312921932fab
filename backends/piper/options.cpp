// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// JSON -> RunConfig / Utterance / BackendConfig, with nlohmann::json in its non-throwing parse
// mode, so a bad config is a status, never an exception.
#include "options.h"

#include <utf8proc.h>

#include <cmath>
#include <limits>

#include "plugin_common/layered_config.hpp"
#include "wasinn/plugin_sdk/json_config.hpp"
#include "wasinn/plugin_sdk/log.hpp"

namespace wasinn::piper {
namespace {

using json = nlohmann::json;

Error bad_value(std::string_view source, std::string_view key, std::string_view wanted, const json& got) {
  return sdk::invalid(std::string(source) + ": \"" + std::string(key) + "\" must be " + std::string(wanted) + ", got " +
                      got.dump());
}

Error read_scale(const json& v, std::string_view source, const char* key, bool positive, std::optional<float>& out) {
  if (!v.is_number()) return bad_value(source, key, "a number", v);
  const double d = v.get<double>();
  if (!scale_in_range(d, positive))
    return bad_value(source, key, positive ? "a number above 0 and at most 1000" : "a number from 0 to 1000", v);
  out = static_cast<float>(d);
  return {};
}

// Reads one synthesis key into `o`; false when `key` is not one.
bool synthesis_key(const std::string& key, const json& v, std::string_view source, SynthesisOptions& o, Error& err) {
  if (key == "output_type") {
    if (v == "wav")
      o.output_type = OutputType::wav;
    else if (v == "raw")
      o.output_type = OutputType::pcm;
    else
      err = bad_value(source, key, "\"wav\" or \"raw\"", v);
  } else if (key == "speaker_id") {
    if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() > std::numeric_limits<int32_t>::max())
      err = bad_value(source, key, "a non-negative integer", v);
    else
      o.speaker_id = v.get<int64_t>();
  } else if (key == "noise_scale") {
    err = read_scale(v, source, "noise_scale", false, o.noise_scale);
  } else if (key == "length_scale") {
    err = read_scale(v, source, "length_scale", true, o.length_scale);
  } else if (key == "noise_w") {
    err = read_scale(v, source, "noise_w", false, o.noise_w);
  } else if (key == "stream") {
    if (!v.is_boolean())
      err = bad_value(source, key, "true or false", v);
    else
      o.stream = v.get<bool>();
  } else {
    return false;
  }
  return true;
}

// In WasmEdge's published schema (the piper example's config.schema.json and json_input.schema.json)
// but not read by its plugin since it moved to libpiper's C API.
bool ignored_schema_key(std::string_view key) {
  return key == "speaker" || key == "sentence_silence" || key == "phoneme_silence" || key == "tashkeel_model";
}

void warn_ignored(std::string_view source, std::string_view key) {
  sdk::log_own(WASINN_LOG_WARN, std::string(source) + ": \"" + std::string(key) +
                                    "\" is ignored, as WasmEdge's Piper plugin ignores it");
}

Error read_path(const json& v, std::string_view source, const char* key, std::string& out) {
  if (!v.is_string() || v.get<std::string>().empty() || v.get<std::string>().find('\0') != std::string::npos)
    return bad_value(source, key, "a non-empty path", v);
  out = v.get<std::string>();
  return {};
}

constexpr const char* kRunKeys =
    "model, config, espeak_data, json_input, output_type, speaker_id, noise_scale, length_scale, noise_w, stream";

}  // namespace

bool scale_in_range(double v, bool positive) {
  return std::isfinite(v) && v >= 0 && !(positive && v == 0) && v <= 1000;
}

void SynthesisOptions::merge(const SynthesisOptions& over) {
  if (over.output_type) output_type = over.output_type;
  if (over.speaker_id) speaker_id = over.speaker_id;
  if (over.noise_scale) noise_scale = over.noise_scale;
  if (over.length_scale) length_scale = over.length_scale;
  if (over.noise_w) noise_w = over.noise_w;
  if (over.stream) stream = over.stream;
}

Error parse_property(std::string_view name, std::string_view value, SynthesisOptions& o) {
  const std::string source = "property \"" + std::string(name) + "\"";
  if (name == kAudioFormatProperty) {
    // Plain text (NN_OPTIONS gives strings so) or a JSON string.
    const json quoted = json::parse(value, nullptr, false);
    const std::string text = quoted.is_string() ? quoted.get<std::string>() : std::string(value);
    const auto f = audio_common::parse_audio_format(text);
    if (!f) return sdk::invalid(source + ": \"" + text + "\" is not one of " + audio_common::kAudioFormats);
    o.output_type = *f;
    return {};
  }
  if (name == "output_type") return sdk::invalid(source + ": use \"audio-format\" (wav, pcm, flac, mp3, opus)");
  const json v = json::parse(value, nullptr, false);
  if (v.is_discarded())
    return sdk::invalid(source + ": \"" + std::string(value) +
                        "\" is not a number nor true/false (JSON text, e.g. 0.5)");
  Error err;
  if (!synthesis_key(std::string(name), v, source, o, err))
    return sdk::invalid("piper has no property \"" + std::string(name) +
                        "\" (settable: audio-format, speaker_id, noise_scale, length_scale, noise_w, stream)");
  return err;
}

Error parse_run_config(std::string_view text, RunConfig& out, bool model_required) {
  constexpr std::string_view source = "run config (builder 0)";
  json obj;
  if (text.empty()) return sdk::invalid(std::string(source) + ": empty; send WasmEdge's JSON object with \"model\"");
  if (Error e = sdk::parse_config_object(text, source, obj)) return e;
  RunConfig c;
  for (const auto& [key, v] : obj.items()) {
    Error err;
    if (synthesis_key(key, v, source, c.defaults, err)) {
      if (err) return err;
    } else if (key == "model") {
      if (Error e = read_path(v, source, "model", c.model)) return e;
    } else if (key == "config") {
      if (Error e = read_path(v, source, "config", c.config)) return e;
    } else if (key == "espeak_data") {
      std::string path;
      if (Error e = read_path(v, source, "espeak_data", path)) return e;
      c.espeak_data = path;
    } else if (key == "json_input") {
      if (!v.is_boolean()) return bad_value(source, key, "true or false", v);
      c.json_input = v.get<bool>();
    } else if (ignored_schema_key(key)) {
      warn_ignored(source, key);
    } else {
      return sdk::invalid(std::string(source) + ": unknown piper setting \"" + key + "\" (known: " + kRunKeys + ")");
    }
  }
  if (model_required && c.model.empty())
    return sdk::invalid(std::string(source) + ": \"model\" is required: the path of the .onnx voice");
  out = std::move(c);
  return {};
}

Error parse_input(std::string_view bytes, bool json_input, Utterance& out) {
  constexpr std::string_view source = "input 0 (JSON)";
  if (bytes.size() > kMaxTextBytes)
    return {WASINN_TOO_LARGE, "input 0: " + std::to_string(bytes.size()) +
                                  " bytes; the most this backend speaks at once is " + std::to_string(kMaxTextBytes) +
                                  " (split the text)"};
  Utterance u;
  if (!json_input) {
    u.text = std::string(bytes);
  } else {
    json obj;
    if (bytes.empty()) return sdk::invalid(std::string(source) + ": empty; send {\"text\": ...}");
    if (Error e = sdk::parse_config_object(bytes, source, obj)) return e;
    bool has_text = false;
    for (const auto& [key, v] : obj.items()) {
      Error err;
      if (synthesis_key(key, v, source, u.options, err)) {
        if (err) return err;
      } else if (key == "text") {
        if (!v.is_string()) return bad_value(source, key, "a string", v);
        u.text = v.get<std::string>();
        has_text = true;
      } else if (ignored_schema_key(key)) {
        warn_ignored(source, key);
      } else {
        return sdk::invalid(std::string(source) + ": unknown key \"" + key +
                            "\" (known: text, output_type, speaker_id, noise_scale, length_scale, noise_w, stream)");
      }
    }
    if (!has_text) return sdk::invalid(std::string(source) + ": \"text\" is required (json_input is on)");
  }
  const auto* p = reinterpret_cast<const utf8proc_uint8_t*>(u.text.data());
  for (size_t i = 0; i < u.text.size();) {
    utf8proc_int32_t cp = 0;
    const utf8proc_ssize_t n = utf8proc_iterate(p + i, static_cast<utf8proc_ssize_t>(u.text.size() - i), &cp);
    if (n <= 0 || cp == 0)
      return sdk::invalid("input 0: the text is not UTF-8 (or holds a NUL) at byte " + std::to_string(i));
    i += static_cast<size_t>(n);
  }
  out = std::move(u);
  return {};
}

Error parse_backend_config(std::string_view text, BackendConfig& out) {
  return plugin_common::read_one_flag_config(text, "backend config", "piper", "allow-host-paths", out.allow_host_paths);
}

}  // namespace wasinn::piper
