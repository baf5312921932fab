// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The piper backend (WasmEdge's encoding 11): run configs with missing, unknown or mistyped keys
// and host paths the operator did not allow; registered voices that are missing, not ONNX, not
// Piper voices or whose JSON config does not match the model; text that is not UTF-8, JSON input
// with wrong keys, types, speakers and scales; an output buffer too small. Each is an errno with
// a reason, never a crash, and after it the tiny voice still speaks piper-tts's WAV
// (expect_serves_piper). The matrix's host keeps piper's default: no host paths from guests.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "matrix_case.h"
#include "valid_request.h"

namespace wasinn::bad_input {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using Bytes = std::vector<uint8_t>;
constexpr auto kPiper = Backend::piper;
const std::string kTiny = HostUnderTest::kTinyPiper;

Bytes bytes(const std::string& s) { return Bytes(s.begin(), s.end()); }

// load([builder], 11, cpu): WasmEdge's way, builder 0 the run config.
Status load_bytes(CaseRun& r, const Bytes& run_config) {
  const uint32_t out = r.guest.out_u32();
  const Status st = nn::load(r.call(), r.builders({run_config}), 1, witx_encoding(kPiper), 0, out);
  if (!st.ok()) {
    EXPECT_TRUE(r.untouched(out));
  }
  return r.tracked_graph(st, out);
}

// load_by_name (config empty) or load_by_name_with_config of a registered voice.
Status load_named(CaseRun& r, const std::string& name, const std::string& config = "", uint32_t* graph_out = nullptr) {
  const uint32_t out = r.guest.out_u32();
  if (graph_out) *graph_out = out;
  const uint32_t name_ptr = r.guest.put(name), name_len = static_cast<uint32_t>(name.size());
  const Status st = config.empty() ? nn::load_by_name(r.call(), name_ptr, name_len, out)
                                   : nn::load_by_name_with_config(r.call(), name_ptr, name_len, r.guest.put(config),
                                                                  static_cast<uint32_t>(config.size()), out);
  if (!st.ok()) {
    EXPECT_TRUE(r.untouched(out));
  }
  return r.tracked_graph(st, out);
}

// A voice the operator registered from scratch files: `onnx` copied to NAME/voice.onnx (none
// when empty: a missing file), and its config NAME/voice.onnx.json holding `config` (none when
// empty). Registered once; returns the name.
std::string registered(CaseRun& r, const std::string& name, const std::string& onnx, const std::string& config) {
  const fs::path dir = r.host.scratch() / name;
  if (!fs::exists(dir)) {
    fs::create_directories(dir);
    if (!onnx.empty()) std::ofstream(dir / "voice.onnx", std::ios::binary) << onnx;
    if (!config.empty()) std::ofstream(dir / "voice.onnx.json", std::ios::binary) << config;
  }
  r.host.add_named(name, Encoding::piper, {dir / "voice.onnx"});
  return name;
}

std::string fixture_text(CaseRun& r, const std::string& relative) {
  const Bytes& b = r.host.fixture(relative);
  return std::string(b.begin(), b.end());
}

std::string tiny_onnx(CaseRun& r) { return fixture_text(r, "piper/tiny.onnx"); }

// The tiny voice's config with `edit` applied.
std::string tiny_config(CaseRun& r, const std::function<void(json&)>& edit) {
  json c = json::parse(fixture_text(r, "piper/tiny.onnx.json"));
  edit(c);
  return c.dump();
}

// A voice made of the tiny voice's model and its config edited by `edit`.
std::string tiny_with_config(CaseRun& r, const std::string& name, const std::function<void(json&)>& edit) {
  return registered(r, name, tiny_onnx(r), tiny_config(r, edit));
}

// A context of `voice` loaded with `config` ("" or a run config without host paths).
uint32_t context(CaseRun& r, const std::string& voice, const std::string& config) {
  uint32_t g = 0;
  const Status loaded = load_named(r, voice, config, &g);
  EXPECT_TRUE(loaded.ok()) << "setup: load " << voice << ": " << (loaded.ok() ? "" : loaded.error().detail);
  if (!loaded.ok()) return kSentinel;
  const uint32_t c = r.guest.out_u32();
  const Status made = r.tracked_context(nn::init_execution_context(r.call(), r.guest.u32_at(g), c), c);
  EXPECT_TRUE(made.ok()) << "setup: init_execution_context";
  return made.ok() ? r.guest.u32_at(c) : kSentinel;
}

// set_input(0) of `text` as a u8 [bytes] tensor (`d0` > 0: as dims [d0, bytes / d0]).
Status set_text(CaseRun& r, uint32_t ctx, const std::string& text, uint32_t index = 0, uint32_t d0 = 0) {
  const auto n = static_cast<uint32_t>(text.size());
  const std::vector<uint32_t> dims = d0 ? std::vector<uint32_t>{d0, n / d0} : std::vector<uint32_t>{n};
  return nn::set_input(r.call(), ctx, index, r.guest.tensor(dims, 3, bytes(text)));
}

// The text (or JSON input) into a context of `voice` loaded with `config`, then compute: most
// bad inputs stop at set_input, the rest (a speaker past the voice's, ids past its model) at compute.
Status speak(CaseRun& r, const std::string& text, const std::string& voice = kTiny, const std::string& config = "") {
  const uint32_t ctx = context(r, voice, config);
  if (const Status st = set_text(r, ctx, text); !st.ok()) return st;
  return nn::compute(r.call(), ctx);
}

// JSON input (json_input on): `input` as it is.
Status speak_json_text(CaseRun& r, const std::string& input, const std::string& voice = kTiny) {
  return speak(r, input, voice, R"({"json_input": true})");
}

// JSON input of the welcome text with `options` added (a "text" among them replaces it).
Status speak_json(CaseRun& r, const json& options, const std::string& voice = kTiny) {
  json input = {{"text", piper_welcome(r.host).text}};
  input.update(options);
  return speak_json_text(r, input.dump(), voice);
}

// The fixtures' 3-speaker voice (its config beside it), registered as it is.
std::string speakers_voice(CaseRun& r) {
  r.host.add_named("piper-speakers", Encoding::piper, {r.host.fixture_path("piper/speakers.onnx")});
  return "piper-speakers";
}

// A case sending the welcome text as JSON input with `options` added, to the tiny voice.
MatrixCase json_case(const std::string& name, int32_t expected, const json& options, const std::string& note = "") {
  return {"input_piper",
          name,
          E,
          kPiper,
          expected,
          "json_input: the text and " + options.dump() + note,
          [options](CaseRun& r) { return speak_json(r, options); }};
}

// get_output of a computed context into `max` bytes: on too_large the needed size (the WAV's)
// must be in bytes_written and the buffer untouched.
Status output(CaseRun& r, uint32_t max, bool computed = true) {
  const uint32_t ctx = context(r, kTiny, "");
  if (computed) {
    EXPECT_TRUE(set_text(r, ctx, piper_welcome(r.host).text).ok());
    EXPECT_TRUE(nn::compute(r.call(), ctx).ok());
  }
  const uint32_t buf = r.guest.buffer(std::max<uint32_t>(max, 4));
  const uint32_t written = r.guest.out_u32();
  const Status st = nn::get_output(r.call(), ctx, 0, buf, max, written);
  if (!st.ok()) {
    EXPECT_TRUE(r.untouched(buf, std::max<uint32_t>(max, 4)));
  }
  if (nn::errno_of(st) == kTooLarge) {
    EXPECT_EQ(r.guest.u32_at(written), piper_welcome(r.host).wav.size()) << "bytes_written must be the WAV's size";
  }
  return st;
}

// Empty text speaks nothing: a WAV of no samples, as WasmEdge's plugin writes; the header alone.
Status empty_text(CaseRun& r) {
  const uint32_t ctx = context(r, kTiny, "");
  if (const Status st = set_text(r, ctx, ""); !st.ok()) return st;
  if (const Status st = nn::compute(r.call(), ctx); !st.ok()) return st;
  const uint32_t buf = r.guest.buffer(64), written = r.guest.out_u32();
  const Status st = nn::get_output(r.call(), ctx, 0, buf, 64, written);
  EXPECT_EQ(r.guest.u32_at(written), 44u) << "a WAV header and no samples";
  return st;
}

std::string run_config_naming(CaseRun& r, const std::string& key) {
  return json{{key, r.host.fixture_path("piper/tiny.onnx").string()}}.dump();
}

const CaseList piper_cases{
    // Run configs: WasmEdge's builder 0, and a registered voice's load config.
    {"config_piper", "empty_builder", E, kPiper, kInvalidArgument, "load: a 0-byte run config",
     [](CaseRun& r) { return load_bytes(r, {}); }},
    {"config_piper", "not_json", E, kPiper, kInvalidArgument, "load: run config {\"model\": (cut)",
     [](CaseRun& r) { return load_bytes(r, bytes(R"({"model": )")); }},
    {"config_piper", "not_an_object", E, kPiper, kInvalidArgument, "load: run config [\"tiny.onnx\"]",
     [](CaseRun& r) { return load_bytes(r, bytes(R"(["tiny.onnx"])")); }},
    {"config_piper", "model_missing", E, kPiper, kInvalidArgument, "load: run config {\"json_input\": true}, no model",
     [](CaseRun& r) { return load_bytes(r, bytes(R"({"json_input": true})")); }},
    {"config_piper", "model_a_number", E, kPiper, kInvalidArgument, "load: run config {\"model\": 5}",
     [](CaseRun& r) { return load_bytes(r, bytes(R"({"model": 5})")); }},
    {"config_piper", "unknown_key", E, kPiper, kInvalidArgument, "load_by_name_with_config: {\"modle\": \"x\"}",
     [](CaseRun& r) { return load_named(r, kTiny, R"({"modle": "x"})"); }},
    {"config_piper", "json_input_a_string", E, kPiper, kInvalidArgument,
     "load_by_name_with_config: {\"json_input\": \"yes\"}",
     [](CaseRun& r) { return load_named(r, kTiny, R"({"json_input": "yes"})"); }},
    {"config_piper", "output_type_mp3", E, kPiper, kInvalidArgument,
     "load_by_name_with_config: {\"output_type\": \"mp3\"}",
     [](CaseRun& r) { return load_named(r, kTiny, R"({"output_type": "mp3"})"); }},
    {"config_piper", "noise_scale_a_string", E, kPiper, kInvalidArgument,
     "load_by_name_with_config: {\"noise_scale\": \"loud\"}",
     [](CaseRun& r) { return load_named(r, kTiny, R"({"noise_scale": "loud"})"); }},
    {"config_piper", "length_scale_0", E, kPiper, kInvalidArgument, "load_by_name_with_config: {\"length_scale\": 0}",
     [](CaseRun& r) { return load_named(r, kTiny, R"({"length_scale": 0})"); }},
    {"config_piper", "speaker_id_negative", E, kPiper, kInvalidArgument,
     "load_by_name_with_config: {\"speaker_id\": -1}",
     [](CaseRun& r) { return load_named(r, kTiny, R"({"speaker_id": -1})"); }},
    {"config_piper", "speaker_id_past_voice", E, kPiper, kInvalidArgument,
     "load_by_name_with_config of the 3-speaker voice: {\"speaker_id\": 3}",
     [](CaseRun& r) { return load_named(r, speakers_voice(r), R"({"speaker_id": 3})"); }},
    {"config_piper", "model_path_not_allowed", E, kPiper, kUnsupportedOperation,
     "load: run config naming the host's tiny.onnx without allow-host-paths (security, which witx numbers 6)",
     [](CaseRun& r) { return load_bytes(r, bytes(run_config_naming(r, "model"))); }},
    {"config_piper", "config_path_not_allowed", E, kPiper, kUnsupportedOperation,
     "load_by_name_with_config naming a host file as \"config\" (security)",
     [](CaseRun& r) { return load_named(r, kTiny, run_config_naming(r, "config")); }},
    {"config_piper", "espeak_data_not_allowed", E, kPiper, kUnsupportedOperation,
     "load_by_name_with_config: {\"espeak_data\": \"/usr/lib/x86_64-linux-gnu/espeak-ng-data\"} (security)",
     [](CaseRun& r) { return load_named(r, kTiny, R"({"espeak_data": "/usr/lib/x86_64-linux-gnu/espeak-ng-data"})"); }},
    {"config_piper", "run_config_as_onnx", E, Backend::none, kInvalidEncoding,
     "load: a Piper run config with encoding 1 (onnx)",
     [](CaseRun& r) {
       const uint32_t out = r.guest.out_u32();
       const Bytes run = bytes(run_config_naming(r, "model"));
       return r.tracked_graph(nn::load(r.call(), r.builders({run}), 1, witx_encoding(Backend::onnxruntime), 0, out),
                              out);
     }},
    {"config_piper", "onnx_bytes_as_run_config", E, kPiper, kInvalidArgument,
     "load: tiny.onnx's bytes as the run config (no path: a guest's builder)",
     [](CaseRun& r) { return load_bytes(r, r.host.fixture("piper/tiny.onnx")); }},

    // Voices the operator registered that cannot serve.
    {"voice_piper", "missing", E, kPiper, kNotFound, "a registered voice whose .onnx does not exist",
     [](CaseRun& r) { return load_named(r, registered(r, "piper-missing", "", "")); }},
    {"voice_piper", "config_missing", E, kPiper, kNotFound, "a registered voice without its .onnx.json",
     [](CaseRun& r) { return load_named(r, registered(r, "piper-no-config", tiny_onnx(r), "")); }},
    {"voice_piper", "text_as_onnx", E, kPiper, kInvalidArgument, "a registered voice.onnx holding text",
     [](CaseRun& r) {
       return load_named(r, registered(r, "piper-text", "not an ONNX model", fixture_text(r, "piper/tiny.onnx.json")));
     }},
    {"voice_piper", "digits_model", E, kPiper, kInvalidArgument,
     "the digits ONNX model registered as a voice (no input \"input\": not a Piper voice)",
     [](CaseRun& r) {
       return load_named(r, registered(r, "piper-digits", fixture_text(r, "digits/model.onnx"),
                                       fixture_text(r, "piper/tiny.onnx.json")));
     }},
    {"voice_piper", "config_not_json", E, kPiper, kInvalidArgument, "a voice whose .onnx.json is not JSON",
     [](CaseRun& r) { return load_named(r, registered(r, "piper-config-text", tiny_onnx(r), "sample_rate=22050")); }},
    {"voice_piper", "config_one_speaker_model_three", E, kPiper, kInvalidArgument,
     "speakers.onnx (takes \"sid\") with a config saying num_speakers 1",
     [](CaseRun& r) {
       json c = json::parse(fixture_text(r, "piper/speakers.onnx.json"));
       c["num_speakers"] = 1;
       return load_named(r, registered(r, "piper-one-speaker", fixture_text(r, "piper/speakers.onnx"), c.dump()));
     }},
    {"voice_piper", "config_three_speakers_model_one", E, kPiper, kInvalidArgument,
     "tiny.onnx (no \"sid\") with a config saying num_speakers 3",
     [](CaseRun& r) {
       return load_named(r, tiny_with_config(r, "piper-three-speakers", [](json& c) { c["num_speakers"] = 3; }));
     }},
    {"voice_piper", "config_sample_rate_7", E, kPiper, kInvalidArgument, "a config saying audio.sample_rate 7",
     [](CaseRun& r) {
       return load_named(r, tiny_with_config(r, "piper-rate-7", [](json& c) { c["audio"]["sample_rate"] = 7; }));
     }},
    {"voice_piper", "config_phoneme_type_text", E, kPiper, kUnsupportedOperation,
     "a config saying phoneme_type \"text\" (piper's non-espeak phonemes)",
     [](CaseRun& r) {
       return load_named(r, tiny_with_config(r, "piper-text-phonemes", [](json& c) { c["phoneme_type"] = "text"; }));
     }},
    {"voice_piper", "config_espeak_voice_unknown", E, kPiper, kNotFound, "a config saying espeak.voice \"xx-none\"",
     [](CaseRun& r) {
       return load_named(r, tiny_with_config(r, "piper-espeak-xx", [](json& c) { c["espeak"]["voice"] = "xx-none"; }));
     }},
    {"voice_piper", "config_no_pad_id", E, kPiper, kInvalidArgument, "a config whose phoneme_id_map lacks \"_\"",
     [](CaseRun& r) {
       return load_named(r, tiny_with_config(r, "piper-no-pad", [](json& c) { c["phoneme_id_map"].erase("_"); }));
     }},
    {"voice_piper", "config_length_scale_1e300", E, kPiper, kInvalidArgument,
     "a config saying inference.length_scale 1e300 (past a float)",
     [](CaseRun& r) {
       return load_named(
           r, tiny_with_config(r, "piper-length-1e300", [](json& c) { c["inference"]["length_scale"] = 1e300; }));
     }},
    // Loads (the config is well formed); the model's embedding has no such ids: ORT refuses.
    {"voice_piper", "config_ids_past_model", E, kPiper, kRuntimeError,
     "a config numbering every phoneme past the model's embedding, then compute",
     [](CaseRun& r) {
       const std::string voice = tiny_with_config(r, "piper-ids-past", [](json& c) {
         for (auto& [key, ids] : c["phoneme_id_map"].items())
           for (auto& id : ids) id = id.get<int64_t>() + 1000000;
       });
       return speak(r, "Hello.", voice);
     }},

    // Text and JSON input.
    {"input_piper", "not_utf8", E, kPiper, kInvalidArgument, "text caf\\xC3( (a cut UTF-8 sequence)",
     [](CaseRun& r) { return speak(r, "caf\xC3\x28"); }},
    {"input_piper", "overlong_utf8", E, kPiper, kInvalidArgument, "text with an overlong '/' (\\xC0\\xAF)",
     [](CaseRun& r) {
       return speak(r,
                    "a\xC0\xAF"
                    "b");
     }},
    {"input_piper", "nul", E, kPiper, kInvalidArgument, "text with a NUL inside",
     [](CaseRun& r) { return speak(r, std::string("Hello\0world.", 12)); }},
    {"input_piper", "empty_text", E, kPiper, kSuccess, "empty text (valid: a WAV of no samples, as WasmEdge writes)",
     [](CaseRun& r) { return empty_text(r); }},
    {"input_piper", "punctuation_only", E, kPiper, kSuccess, "text \"?!... ,;\" (valid: nothing to say)",
     [](CaseRun& r) { return speak(r, "?!... ,;"); }},
    {"input_piper", "index_1", E, kPiper, kInvalidArgument, "set_input index 1 (the voice has input 0 only)",
     [](CaseRun& r) { return set_text(r, context(r, kTiny, ""), "Hello.", 1); }},
    {"input_piper", "dims_2_rows", E, kPiper, kInvalidArgument, "text as dims [2, bytes / 2]",
     [](CaseRun& r) { return set_text(r, context(r, kTiny, ""), "Hello, world", 0, 2); }},
    {"input_piper", "compute_without_text", E, kPiper, kInvalidArgument, "compute before set_input",
     [](CaseRun& r) { return nn::compute(r.call(), context(r, kTiny, "")); }},
    {"input_piper", "json_malformed", E, kPiper, kInvalidArgument, "json_input: {\"text\": (cut)",
     [](CaseRun& r) { return speak_json_text(r, R"({"text": )"); }},
    {"input_piper", "json_a_string", E, kPiper, kInvalidArgument, "json_input: \"Hello\" (not an object)",
     [](CaseRun& r) { return speak_json_text(r, R"("Hello")"); }},
    {"input_piper", "json_no_text", E, kPiper, kInvalidArgument, "json_input: {\"txt\": \"Hello\"}",
     [](CaseRun& r) { return speak_json_text(r, R"({"txt": "Hello"})"); }},
    json_case("json_unknown_key", kInvalidArgument, {{"volume", 2}}),
    json_case("json_text_a_number", kInvalidArgument, {{"text", 5}}),
    {"input_piper", "json_text_not_utf8", E, kPiper, kInvalidArgument, "json_input: a text with a lone \\uDC00",
     [](CaseRun& r) { return speak_json_text(r, R"({"text": "a\uDC00b"})"); }},
    json_case("json_speaker_id_a_string", kInvalidArgument, {{"speaker_id", "0"}}),
    json_case("json_speaker_id_2_pow_63", kInvalidArgument, json::parse(R"({"speaker_id": 9223372036854775808})")),
    json_case("json_speaker_id_2_pow_40", kInvalidArgument, {{"speaker_id", 1LL << 40}}),
    {"input_piper", "json_speaker_id_int32_max", E, kPiper, kInvalidArgument,
     "json_input on the 3-speaker voice: {\"speaker_id\": 2147483647}, then compute",
     [](CaseRun& r) {
       return speak_json(r, {{"speaker_id", 2147483647}}, speakers_voice(r));
     }},
    json_case("json_speaker_id_on_one_speaker", kSuccess, {{"speaker_id", 7}},
              " on the one-speaker voice (valid: ignored, as libpiper does)"),
    json_case("json_length_scale_1e9", kInvalidArgument, {{"length_scale", 1e9}}),
    json_case("json_length_scale_negative", kInvalidArgument, {{"length_scale", -1}}),
    json_case("json_noise_scale_1e308", kInvalidArgument, {{"noise_scale", 1e308}}),
    json_case("json_noise_w_negative", kInvalidArgument, {{"noise_w", -0.5}}),
    json_case("json_noise_w_a_bool", kInvalidArgument, {{"noise_w", true}}),
    json_case("json_scales_at_bounds", kSuccess, {{"length_scale", 1000}, {"noise_scale", 1000}, {"noise_w", 1000}},
              " (valid: the bounds)"),

    // Output.
    {"output_piper", "before_compute", E, kPiper, kInvalidArgument, "get_output of a context never computed",
     [](CaseRun& r) { return output(r, 64, false); }},
    {"output_piper", "buffer_too_small", E, kPiper, kTooLarge, "get_output of the welcome WAV into 64 bytes",
     [](CaseRun& r) { return output(r, 64); }},
    {"output_piper", "buffer_one_byte_short", E, kPiper, kTooLarge, "get_output into the WAV's size less one",
     [](CaseRun& r) { return output(r, static_cast<uint32_t>(piper_welcome(r.host).wav.size() - 1)); }},
    {"output_piper", "index_1", E, kPiper, kInvalidArgument, "get_output index 1 (the voice has output 0 only)",
     [](CaseRun& r) {
       const uint32_t ctx = context(r, kTiny, "");
       EXPECT_TRUE(set_text(r, ctx, "Hi.").ok());
       EXPECT_TRUE(nn::compute(r.call(), ctx).ok());
       const uint32_t buf = r.guest.buffer(64), written = r.guest.out_u32();
       return nn::get_output(r.call(), ctx, 1, buf, 64, written);
     }},
};

}  // namespace
}  // namespace wasinn::bad_input
