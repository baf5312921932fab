// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "cli/inspect_command.h"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "cli/model_refs.h"
#include "cli/text_table.h"

namespace wasinn_cli {

namespace {

nlohmann::json properties_json(const std::vector<wasinn::PropertyInfo>& properties) {
  auto out = nlohmann::json::array();
  for (const auto& p : properties) out.push_back({{"name", p.name}, {"value", p.value}, {"settable", p.settable}});
  return out;
}

nlohmann::json tensors_json(const std::vector<wasinn::TensorInfo>& tensors) {
  auto out = nlohmann::json::array();
  for (size_t i = 0; i < tensors.size(); ++i) {
    const auto& t = tensors[i];
    nlohmann::json j{{"index", i}, {"name", t.name}, {"type", t.type}};
    j["shape"] = t.rank_known ? nlohmann::json(t.dims) : nlohmann::json(nullptr);  // -1: dynamic
    if (!t.framework_type.empty()) j["framework_type"] = t.framework_type;
    out.push_back(std::move(j));
  }
  return out;
}

// "[1, ?, 224]" with the dynamic dimensions as the backends' error details write them.
std::string shape_text(const wasinn::TensorInfo& t) {
  if (!t.rank_known) return "any shape";
  std::vector<std::string> d;
  for (int64_t v : t.dims) d.push_back(v < 0 ? "?" : std::to_string(v));
  return fmt::format("[{}]", fmt::join(d, ", "));
}

// The name goes last, so a long one (TensorFlow's "serving_default_input_1:0", a framework's
// generated names) never pushes the other columns out of line.
void print_tensors(const char* title, const std::vector<wasinn::TensorInfo>& tensors) {
  fmt::print("{}:\n", title);
  if (tensors.empty()) {
    fmt::print("  (none declared; the backend learns them at compute)\n");
    return;
  }
  TableRows rows;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const auto& t = tensors[i];
    std::string name = t.name.empty() ? "-" : t.name;
    if (!t.framework_type.empty()) name += fmt::format("  ({})", t.framework_type);
    rows.push_back({fmt::format("  {:>3}", i), t.type, shape_text(t), std::move(name)});
  }
  print_table(rows);
}

// Facts, then the knobs a guest may set; a long value (a model's metadata) is cut here only.
void print_properties(const std::vector<wasinn::PropertyInfo>& properties) {
  constexpr size_t kShown = 72;
  fmt::print("properties (wasinn:nn-ext; * settable by a guest):\n");
  TableRows rows;
  for (const auto& p : properties) {
    std::string value;
    for (char c : p.value.substr(0, kShown)) value += c == '\n' ? std::string("\\n") : std::string(1, c);
    if (p.value.size() > kShown) value += "...";
    rows.push_back({fmt::format("  {}{}", p.settable ? "* " : "  ", p.name), std::move(value)});
  }
  print_table(rows);
}

}  // namespace

void add_inspect_options(CLI::App* inspect, InspectOptions& o, CommonOptions& common) {
  inspect
      ->add_option("model", o.model,
                   "A name registered with --nn-preload or --nn-remote, a remote model's URL "
                   "(http[s]://HOST:PORT/models/M or grpc[s]://...: names, types and shapes from the server's "
                   "metadata), or the model: a file, an OpenVINO .xml (its .bin "
                   "beside it is found), a directory holding one model, a TensorFlow SavedModel directory or "
                   "frozen .pb, several files given as a guest's graph builders, or a Hugging Face model "
                   "(hf://owner/repo[:QUANT], hf://owner/repo/FILE), pulled first as `wasinn pull` does")
      ->required();
  inspect
      ->add_option("--encoding", o.encoding,
                   "The model's format when it cannot be told from its bytes and name: onnx, openvino, "
                   "pytorch, tensorflow, tensorflowlite, ggml, whisper (default: autodetect); in a directory, picks "
                   "that format's file")
      ->type_name("ENCODING")
      ->check(CLI::IsMember({"autodetect", "auto", "onnx", "openvino", "pytorch", "torch", "tensorflow",
                             "tensorflowlite", "tflite", "ggml", "whisper"},
                            CLI::ignore_case));
  inspect
      ->add_option("--nn-preload", o.host.preloads,
                   "Register a model as for run (NAME:ENCODING:TARGET:PATH[:PATH...]), then inspect it by "
                   "NAME; repeatable")
      ->type_name("SPEC")
      ->allow_extra_args(false);
  add_remote_options(inspect, o.remote);
  inspect
      ->add_option("--target", o.target,
                   "The target to load a model file for, as a guest's load would: cpu, gpu, tpu (npu) or "
                   "auto; shows how the framework placed it (e.g. the nodes each TFLite delegate took). A "
                   "registered NAME keeps its own target")
      ->type_name("TARGET")
      ->check(CLI::IsMember({"cpu", "gpu", "tpu", "npu", "auto"}, CLI::ignore_case))
      ->capture_default_str();
  inspect->add_flag("--json", o.json, "Print the description as JSON");
  inspect
      ->add_option("--isolate-loads", o.host.isolate_loads,
                   "As for run: load the model first in a child process (auto: for the backends marked "
                   "for it; always; never)")
      ->type_name("MODE")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->capture_default_str();
  inspect
      ->add_option("--isolated-load-max-mb", o.host.isolated_load_max_mb,
                   "As for run: that child's address-space limit in MiB (0: 3072 + 4 x the model's size)")
      ->type_name("MIB")
      ->check(whole_number(0, 1ull << 24))
      ->capture_default_str();
  add_common(inspect, common);
}

int inspect_command(InspectOptions& o, const CommonOptions& common) {
  apply_common(common, o.host);
  if (o.model.size() == 1 && looks_like_remote_url(o.model[0])) {
    // A URL is inspected as a remote model registered under a name of its own.
    o.host.preloads.push_back("remote-url:remote:cpu:" + remote_spec_json(o.remote, o.model[0]));
    o.model = {"remote-url"};
  }
  if (o.model.size() == 1 && o.model[0].starts_with("hf://")) {
    // A Hub model is pulled first, as `wasinn pull` would (an https:// URL is a remote server here).
    std::vector<std::string> files;
    for (const auto& f : pull_model_ref(o.model[0], "MODEL '" + o.model[0] + "'", common.quiet > 0)) files.push_back(f);
    o.model = std::move(files);
  }
  apply_remote_options(o.remote, o.host);
  auto host = make_host(o.host);
  wasinn::ModelInfo info;
  std::string error;
  if (!host->inspect_model(o.model, o.encoding, &info, &error, o.target)) {
    // The plugins name wasi-nn's target; the user may have typed its other name.
    std::string typed = o.target;
    std::transform(typed.begin(), typed.end(), typed.begin(), [](unsigned char c) { return std::tolower(c); });
    if (typed == "npu" && error.find("target tpu") != std::string::npos)
      error += " (--target npu is wasi-nn's tpu, the same target)";
    fmt::print(stderr, "wasinn: error: {}\n", error);
    // `inspect A B` reads as two models to some: say what several files are, and the way out.
    if (o.model.size() > 1) {
      fmt::print(stderr,
                 "wasinn: the {} files are taken as one model's graph builders (an OpenVINO .xml and "
                 ".bin, a model and its config); to inspect several models, run `wasinn models inspect` "
                 "once for each\n",
                 o.model.size());
    }
    return kExitFailure;
  }
  if (o.json) {
    const nlohmann::json j{{"backend", info.backend},
                           {"framework_version", info.framework_version},
                           {"encoding", info.encoding},
                           {"target", info.target},
                           {"placement", info.placement},
                           {"files", info.files},
                           {"inputs", tensors_json(info.inputs)},
                           {"outputs", tensors_json(info.outputs)},
                           {"properties", properties_json(info.properties)}};
    fmt::print("{}\n", j.dump(2));
    return 0;
  }
  fmt::print("backend: {} {} (encoding {}, target {})\n", info.backend, info.framework_version, info.encoding,
             info.target);
  if (!info.files.empty()) fmt::print("files: {}\n", fmt::join(info.files, ", "));
  if (!info.placement.empty()) fmt::print("placement: {}\n", info.placement);
  print_tensors("inputs (set_input index)", info.inputs);
  print_tensors("outputs (get_output index)", info.outputs);
  print_properties(info.properties);
  return 0;
}

}  // namespace wasinn_cli
