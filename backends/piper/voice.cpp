// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "voice.h"

#include <utf8proc.h>

#include <algorithm>
#include <cstdlib>
#include <memory>

#include "options.h"
#include "wasinn/plugin_sdk/json_config.hpp"

namespace wasinn::piper {
namespace {

using json = nlohmann::json;

// The one codepoint `key` holds, or -1 (piper's map keys are single codepoints; others are
// for its Python vowel clusters, which libpiper and this plugin skip).
int32_t single_codepoint(const std::string& key) {
  utf8proc_int32_t cp = -1;
  const auto n = utf8proc_iterate(reinterpret_cast<const utf8proc_uint8_t*>(key.data()),
                                  static_cast<utf8proc_ssize_t>(key.size()), &cp);
  return n > 0 && static_cast<size_t>(n) == key.size() ? cp : -1;
}

Error bad(std::string_view source, const std::string& what) { return sdk::invalid(std::string(source) + ": " + what); }

}  // namespace

std::vector<int64_t> Voice::phoneme_ids(std::string_view phonemes) const {
  std::vector<int64_t> out(bos);
  out.insert(out.end(), pad.begin(), pad.end());
  utf8proc_uint8_t* nfd = nullptr;
  const utf8proc_ssize_t n = utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(phonemes.data()),
                                          static_cast<utf8proc_ssize_t>(phonemes.size()), &nfd,
                                          static_cast<utf8proc_option_t>(UTF8PROC_DECOMPOSE | UTF8PROC_STABLE));
  std::unique_ptr<utf8proc_uint8_t, decltype(&std::free)> owned(nfd, &std::free);
  for (utf8proc_ssize_t i = 0; n > 0 && i < n;) {
    utf8proc_int32_t cp = 0;
    const auto step = utf8proc_iterate(nfd + i, n - i, &cp);
    if (step <= 0) break;  // espeak-ng writes UTF-8; nothing else reaches here
    i += step;
    if (auto it = ids.find(static_cast<char32_t>(cp)); it != ids.end()) {
      out.insert(out.end(), it->second.begin(), it->second.end());
      out.insert(out.end(), pad.begin(), pad.end());
    }
  }
  out.insert(out.end(), eos.begin(), eos.end());
  return out;
}

Error parse_voice(std::string_view text, std::string_view source, Voice& out) {
  json doc;
  if (Error e = sdk::parse_config_object(text, source, doc)) return e;
  Voice v;
  const std::string type =
      doc.value("phoneme_type", json("espeak")).is_string() ? doc.value("phoneme_type", "espeak") : "";
  if (type != "espeak")
    return sdk::unsupported(std::string(source) + ": phoneme_type " + doc.value("phoneme_type", json()).dump() +
                            " is not served: this backend phonemizes with espeak-ng (\"espeak\") only");
  const json audio = doc.value("audio", json::object());
  if (!audio.is_object() || !audio.value("sample_rate", json()).is_number_integer() ||
      audio["sample_rate"].get<int64_t>() < 1000 || audio["sample_rate"].get<int64_t>() > 384000)
    return bad(source, "audio.sample_rate must be an integer from 1000 to 384000");
  v.sample_rate = audio["sample_rate"].get<int32_t>();
  const json espeak = doc.value("espeak", json::object());
  const json voice_name = espeak.is_object() ? espeak.value("voice", json("en-us")) : json();
  if (!voice_name.is_string() || voice_name.get<std::string>().empty() ||
      voice_name.get<std::string>().find('\0') != std::string::npos)
    return bad(source, "espeak.voice must be an espeak-ng voice name such as \"en-us\"");
  v.espeak_voice = voice_name.get<std::string>();
  const json speakers = doc.value("num_speakers", json());
  if (!speakers.is_number_integer() || speakers.get<int64_t>() < 1 || speakers.get<int64_t>() > 1000000)
    return bad(source, "num_speakers must be a positive integer");
  v.num_speakers = speakers.get<int64_t>();
  // What the speech endpoint calls the voices; a name beyond num_speakers or a bad id is left out
  // (piper itself only looks names up).
  const json names = doc.value("speaker_id_map", json::object());
  if (v.num_speakers > 1 && names.is_object() && !names.empty()) {
    v.speakers.assign(static_cast<size_t>(std::min<int64_t>(v.num_speakers, 100000)), "");
    for (const auto& [name, id] : names.items())
      if (id.is_number_integer() && id.get<int64_t>() >= 0 &&
          id.get<int64_t>() < static_cast<int64_t>(v.speakers.size()))
        v.speakers[static_cast<size_t>(id.get<int64_t>())] = name;
  }
  if (const json d = doc.value("dataset", json()); d.is_string()) v.dataset = d.get<std::string>();
  const json inference = doc.value("inference", json::object());
  if (!inference.is_object()) return bad(source, "inference must be an object");
  for (auto [key, field] : {std::pair{"noise_scale", &v.noise_scale}, std::pair{"length_scale", &v.length_scale},
                            std::pair{"noise_w", &v.noise_w}}) {
    if (!inference.contains(key)) continue;
    const bool positive = std::string_view(key) == "length_scale";
    // Bounded as the run config's scales: a double beyond float's range does not convert.
    if (!inference[key].is_number() || !scale_in_range(inference[key].get<double>(), positive))
      return bad(source, std::string("inference.") + key + " must be a number " +
                             (positive ? "above 0 and at most 1000" : "from 0 to 1000"));
    *field = inference[key].get<float>();
  }
  const json map = doc.value("phoneme_id_map", json());
  if (!map.is_object() || map.empty()) return bad(source, "phoneme_id_map must be an object of phoneme -> [ids]");
  for (const auto& [key, list] : map.items()) {
    if (!list.is_array()) return bad(source, "phoneme_id_map[\"" + key + "\"] must be an array of ids");
    std::vector<int64_t> ids;
    for (const auto& id : list) {
      if (!id.is_number_integer() || id.get<int64_t>() < 0)
        return bad(source, "phoneme_id_map[\"" + key + "\"] holds " + id.dump() + ", not a non-negative id");
      ids.push_back(id.get<int64_t>());
    }
    if (key == "^") v.bos = ids;
    if (key == "$") v.eos = ids;
    if (key == "_") v.pad = ids;
    if (const int32_t cp = single_codepoint(key); cp >= 0) v.ids[static_cast<char32_t>(cp)] = std::move(ids);
  }
  if (v.bos.empty() || v.eos.empty() || v.pad.empty())
    return bad(source, "phoneme_id_map lacks \"^\", \"$\" or \"_\" (begin, end and pad: piper needs all three)");
  out = std::move(v);
  return {};
}

}  // namespace wasinn::piper
