// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Loading: where the voice comes from (WasmEdge's run config naming host files, or a voice the
// operator registered), the voice config, espeak-ng's data and voice, and the model's session.
#include "graph.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "backend.h"
#include "context.h"
#include "phonemizer.h"
#include "wasinn/plugin_sdk/json_config.hpp"

namespace wasinn::piper {
namespace {

constexpr size_t kText = 0, kAudio = 0;
constexpr uintmax_t kMaxVoiceConfigBytes = 16u << 20;  // piper's configs are a few KB

sdk::IoDesc bytes_slot(const char* name, const char* words) {
  return {.name = name, .type = WASINN_TYPE_U8, .rank = 1, .dims = {-1}, .not_a_tensor = {}, .framework_type = words};
}

const std::vector<sdk::IoDesc>& slots(sdk::Side side) {
  // The text is optional to the host's check alone: a stream's later computes ("stream" on) take
  // no inputs; a compute without text is the plugin's own error.
  static const std::vector<sdk::IoDesc> inputs = {
      bytes_slot("text", "UTF-8 text, or a JSON object with json_input; optional after a stream's first compute")};
  static const std::vector<sdk::IoDesc> outputs = {bytes_slot("audio", "WAV file (16-bit PCM, mono), or raw samples")};
  return side == sdk::Side::input ? inputs : outputs;
}

Error refuse_host_path(const char* key, const std::string& path) {
  return {WASINN_SECURITY, std::string("run config: \"") + key + "\": a guest may not name a host file ('" + path +
                               "'); register the voice with --nn-preload NAME:piper:CPU:VOICE.onnx and use "
                               "load_by_name, or allow it with --backend-config piper={\"allow-host-paths\":true}"};
}

Error read_file(const std::string& path, const char* what, std::string& out) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    return {WASINN_NOT_FOUND, std::string(what) + " " + path + " does not exist or is not a regular file"};
  if (std::filesystem::file_size(path, ec) > kMaxVoiceConfigBytes)
    return {WASINN_TOO_LARGE, std::string(what) + " " + path + " is over 16 MiB: not a Piper voice config"};
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in && !in.eof()) return sdk::runtime_error(std::string("cannot read ") + what + " " + path);
  out = text.str();
  return {};
}

// Builder 0 is WasmEdge's run config, or the host mapped a registered voice's .onnx into it (its
// path given) and the run config, all keys optional, comes as the load's config.
Error resolve_run_config(const PiperBackend& backend, const sdk::LoadRequest& request, RunConfig& out) {
  if (Error e = request.expect_one_builder("load: expected one graph builder, WasmEdge's JSON run config")) return e;
  if (const char* voice = request.path(0)) {
    RunConfig c;
    const std::string_view file = sdk::builder_text(request.builders()[0]);
    if (!file.empty() && file.find_first_not_of(" \t\r\n") != std::string_view::npos &&
        file[file.find_first_not_of(" \t\r\n")] == '{') {
      // The operator registered a run config file (wasinn serve --openai tts=voice.json): its
      // host paths are the operator's, relative ones from the file's directory.
      if (Error e = parse_run_config(file, c, /*model_required=*/true)) return e;
      const std::filesystem::path dir = std::filesystem::path(voice).parent_path();
      for (std::string* p : {&c.model, &c.config})
        if (!p->empty() && std::filesystem::path(*p).is_relative()) *p = (dir / *p).string();
      if (c.espeak_data && std::filesystem::path(*c.espeak_data).is_relative())
        c.espeak_data = (dir / *c.espeak_data).string();
      if (!request.config().empty()) {
        RunConfig over;
        if (Error e = parse_run_config(request.config(), over, /*model_required=*/false)) return e;
        if ((!over.model.empty() || !over.config.empty() || over.espeak_data) && !backend.config().allow_host_paths)
          return refuse_host_path(!over.model.empty()    ? "model"
                                  : !over.config.empty() ? "config"
                                                         : "espeak_data",
                                  !over.model.empty()    ? over.model
                                  : !over.config.empty() ? over.config
                                                         : *over.espeak_data);
        c.defaults.merge(over.defaults);
        c.json_input = c.json_input || over.json_input;
      }
      if (c.config.empty()) c.config = c.model + ".json";
      out = std::move(c);
      return {};
    }
    if (!request.config().empty())
      if (Error e = parse_run_config(request.config(), c, /*model_required=*/false)) return e;
    const bool names_files = !c.model.empty() || !c.config.empty() || c.espeak_data;
    if (names_files && !backend.config().allow_host_paths)
      return refuse_host_path(!c.model.empty()    ? "model"
                              : !c.config.empty() ? "config"
                                                  : "espeak_data",
                              !c.model.empty()    ? c.model
                              : !c.config.empty() ? c.config
                                                  : *c.espeak_data);
    if (c.model.empty()) c.model = voice;
    out = std::move(c);
  } else {
    const std::string_view text = sdk::builder_text(request.builders()[0]);
    // An ONNX ModelProto starts with field 1 (ir_version), tag byte 0x08: say so, not "malformed JSON".
    if (!text.empty() && text[0] == '\x08')
      return sdk::invalid(
          "load: builder 0 is an ONNX model's bytes; the piper backend's builder 0 is WasmEdge's "
          "JSON run config naming the voice, or register the voice with --nn-preload "
          "NAME:piper:CPU:VOICE.onnx and use load_by_name");
    if (Error e = parse_run_config(text, out, /*model_required=*/true)) return e;
    if (!backend.config().allow_host_paths) return refuse_host_path("model", out.model);
  }
  if (out.config.empty()) out.config = out.model + ".json";  // piper's and WasmEdge's default
  return {};
}

// The voices a speech request may name, in speaker id order: speaker_id_map's names (an id it
// does not name by its number), or a single speaker's voice by its dataset (else its file's stem).
std::string voice_names(const Voice& v, const RunConfig& run) {
  nlohmann::json names = nlohmann::json::array();
  if (v.num_speakers > 1 && !v.speakers.empty()) {
    for (size_t i = 0; i < v.speakers.size(); ++i)
      names.push_back(v.speakers[i].empty() ? std::to_string(i) : v.speakers[i]);
  } else if (v.num_speakers > 1) {
    for (int64_t i = 0; i < std::min<int64_t>(v.num_speakers, 100000); ++i) names.push_back(std::to_string(i));
  } else {
    names.push_back(!v.dataset.empty() ? v.dataset : std::filesystem::path(run.model).stem().string());
  }
  return names.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string number(float f) {
  std::ostringstream s;
  s << f;
  return s.str();
}

std::vector<sdk::Property> voice_properties(const Voice& v, const RunConfig& run) {
  const SynthesisOptions& d = run.defaults;
  return {{"piper.sample_rate", std::to_string(v.sample_rate), false},
          {"piper.espeak_voice", v.espeak_voice, false},
          {"piper.num_speakers", std::to_string(v.num_speakers), false},
          {"piper.voices", voice_names(v, run), false},
          {"piper.json_input", run.json_input ? "true" : "false", false},
          {"device", "cpu", false},
          // The knobs (parse_property), with the run config's values or the voice's as defaults.
          {kAudioFormatProperty, audio_common::audio_format_name(d.output_type.value_or(OutputType::wav)), true},
          {"speaker_id", std::to_string(d.speaker_id.value_or(0)), true},
          {"noise_scale", number(d.noise_scale.value_or(v.noise_scale)), true},
          {"length_scale", number(d.length_scale.value_or(v.length_scale)), true},
          {"noise_w", number(d.noise_w.value_or(v.noise_w)), true},
          {"stream", d.stream.value_or(false) ? "true" : "false", true}};
}

}  // namespace

std::span<const sdk::IoDesc> PiperGraph::io(sdk::Side side) const { return slots(side); }

Error PiperGraph::create_context(std::unique_ptr<PiperContext>& out) {
  out = std::make_unique<PiperContext>(*this);
  return {};
}

Error PiperGraph::load(PiperBackend& backend, const sdk::LoadRequest& request, std::unique_ptr<PiperGraph>& out) {
  if (Error e = backend.check_target(request.target())) return e;
  auto graph = std::make_unique<PiperGraph>();
  if (Error e = resolve_run_config(backend, request, graph->run_)) return e;
  const RunConfig& run = graph->run_;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(run.model, ec))
    return {WASINN_NOT_FOUND, "model: the voice " + run.model + " does not exist or is not a regular file"};
  std::string voice_json;
  if (Error e = read_file(run.config, "config: the voice config", voice_json)) return e;
  if (Error e = parse_voice(voice_json, "voice config " + run.config, graph->voice_)) return e;
  if (Error e = Phonemizer::instance().check(run.espeak_data, graph->voice_.espeak_voice)) return e;

  Ort::SessionOptions options;  // libpiper's: one thread, sequential, basic optimizations
  options.SetIntraOpNumThreads(1);
  options.SetInterOpNumThreads(1);
  options.SetExecutionMode(ExecutionMode::ORT_SEQUENTIAL);
  options.SetGraphOptimizationLevel(GraphOptimizationLevel::ORT_ENABLE_BASIC);
  try {
    graph->session_ = std::make_unique<Ort::Session>(backend.env(), run.model.c_str(), options);
  } catch (const Ort::Exception& e) {
    return sdk::invalid("model: ONNX Runtime cannot load the voice " + run.model + ": " + sdk::one_line(e.what()));
  }
  Ort::Session& s = *graph->session_;
  std::vector<std::string> inputs = s.GetInputNames();
  for (const char* needed : {"input", "input_lengths", "scales"})
    if (std::find(inputs.begin(), inputs.end(), needed) == inputs.end())
      return sdk::invalid("model: " + run.model + " has no input \"" + needed +
                          "\": not a Piper voice (inputs input, input_lengths, scales[, sid])");
  graph->takes_speaker_ = std::find(inputs.begin(), inputs.end(), "sid") != inputs.end();
  if (graph->takes_speaker_ != (graph->voice_.num_speakers > 1))
    return sdk::invalid("model: " + run.model + (graph->takes_speaker_ ? " takes" : " does not take") +
                        " a speaker id (\"sid\") but its config says num_speakers " +
                        std::to_string(graph->voice_.num_speakers));
  graph->output_names_ = s.GetOutputNames();
  if (graph->output_names_.empty()) return sdk::invalid("model: " + run.model + " has no outputs");
  if (run.defaults.speaker_id && graph->voice_.num_speakers > 1 &&
      *run.defaults.speaker_id >= graph->voice_.num_speakers)
    return sdk::invalid("run config: \"speaker_id\" " + std::to_string(*run.defaults.speaker_id) +
                        " is not below num_speakers " + std::to_string(graph->voice_.num_speakers));
  graph->properties_ = voice_properties(graph->voice_, run);
  out = std::move(graph);
  return {};
}

Error PiperGraph::check_property(std::string_view name, std::string_view value) const {
  SynthesisOptions o;
  if (Error e = parse_property(name, value, o)) return e;
  if (o.speaker_id && voice_.num_speakers > 1 && *o.speaker_id >= voice_.num_speakers)
    return sdk::invalid("property \"speaker_id\": " + std::to_string(*o.speaker_id) +
                        " is not below the voice's num_speakers " + std::to_string(voice_.num_speakers));
  return {};
}

Error PiperGraph::phonemize(const std::string& text, std::vector<std::string>& sentences) const {
  return Phonemizer::instance().phonemize(run_.espeak_data, voice_.espeak_voice, text, sentences);
}

Error PiperGraph::settle(const SynthesisOptions& over, Scales& scales, OutputType& type) const {
  SynthesisOptions o = run_.defaults;
  o.merge(over);
  scales = {o.noise_scale.value_or(voice_.noise_scale), o.length_scale.value_or(voice_.length_scale),
            o.noise_w.value_or(voice_.noise_w), o.speaker_id.value_or(0)};
  // A single-speaker voice ignores the id, as libpiper does.
  if (voice_.num_speakers > 1 && scales.speaker_id >= voice_.num_speakers)
    return sdk::invalid("\"speaker_id\" " + std::to_string(scales.speaker_id) +
                        " is not below the voice's num_speakers " + std::to_string(voice_.num_speakers));
  type = o.output_type.value_or(OutputType::wav);
  return {};
}

Error PiperGraph::synthesize(std::vector<int64_t> ids, const Scales& scales, const Ort::RunOptions& run,
                             std::vector<float>& audio) const {
  const Ort::MemoryInfo memory = Ort::MemoryInfo::CreateCpu(OrtDeviceAllocator, OrtMemTypeDefault);
  const int64_t ids_shape[] = {1, static_cast<int64_t>(ids.size())};
  int64_t length = static_cast<int64_t>(ids.size()), length_shape = 1, scales_shape = 3, sid = scales.speaker_id;
  float scale_values[] = {scales.noise_scale, scales.length_scale, scales.noise_w};
  std::vector<Ort::Value> inputs;
  inputs.push_back(Ort::Value::CreateTensor<int64_t>(memory, ids.data(), ids.size(), ids_shape, 2));
  inputs.push_back(Ort::Value::CreateTensor<int64_t>(memory, &length, 1, &length_shape, 1));
  inputs.push_back(Ort::Value::CreateTensor<float>(memory, scale_values, 3, &scales_shape, 1));
  std::vector<const char*> names = {"input", "input_lengths", "scales"};
  if (takes_speaker_) {
    inputs.push_back(Ort::Value::CreateTensor<int64_t>(memory, &sid, 1, &length_shape, 1));
    names.push_back("sid");
  }
  const char* output = output_names_[0].c_str();
  std::vector<Ort::Value> outputs;
  try {
    outputs = session_->Run(run, names.data(), inputs.data(), inputs.size(), &output, 1);
  } catch (const Ort::Exception& e) {
    return sdk::runtime_error("the voice model failed: " + sdk::one_line(e.what()));
  }
  if (outputs.empty() || !outputs[0].IsTensor() ||
      outputs[0].GetTensorTypeAndShapeInfo().GetElementType() != ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT)
    return sdk::runtime_error("the voice model's output \"" + output_names_[0] + "\" is not a float tensor of audio");
  const size_t n = outputs[0].GetTensorTypeAndShapeInfo().GetElementCount();
  const float* samples = outputs[0].GetTensorData<float>();
  audio.insert(audio.end(), samples, samples + n);
  return {};
}

}  // namespace wasinn::piper
