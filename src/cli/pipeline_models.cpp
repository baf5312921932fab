// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "cli/pipeline_models.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/cli_common.h"
#include "base/near_names.h"

namespace wasinn_cli {

namespace {

class ComponentPipelineModel final : public wasinn::oip_server::Pipeline {
 public:
  explicit ComponentPipelineModel(std::unique_ptr<wasinn::ComponentPipeline> component)
      : component_(std::move(component)) {}
  const std::vector<wasinn::IoInfo>& inputs() const override { return component_->inputs(); }
  const std::vector<wasinn::IoInfo>& outputs() const override { return component_->outputs(); }
  wasinn::Result<std::vector<wasinn::NamedTensor>> infer(std::span<const wasinn::NamedInput> inputs) override {
    return component_->infer(inputs);
  }

 private:
  std::unique_ptr<wasinn::ComponentPipeline> component_;
};

bool valid_name(const std::string& name) {
  if (name.empty()) return false;
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.') return false;
  return true;
}

}  // namespace

std::map<std::string, std::shared_ptr<wasinn::oip_server::Pipeline>> open_pipelines(
    const std::vector<std::string>& flags, std::shared_ptr<wasinn::NnEnvironment> env,
    const wasinn::PipelineOptions& options) {
  std::map<std::string, std::shared_ptr<wasinn::oip_server::Pipeline>> pipelines;
  for (const std::string& flag : flags) {
    const auto eq = flag.find('=');
    const std::string name = flag.substr(0, eq), path = eq == std::string::npos ? "" : flag.substr(eq + 1);
    if (eq == std::string::npos || !valid_name(name) || path.empty())
      throw UsageError(
          fmt::format("--pipeline '{}': expected NAME=COMPONENT, NAME of letters, digits, '_', '-' and "
                      "'.' (e.g. --pipeline classify=classify.wasm)",
                      flag));
    if (pipelines.count(name) || env->models().contains(name))
      throw UsageError(
          fmt::format("--pipeline '{}': the name '{}' is already served; give the pipeline another", flag, name));
    auto opened = wasinn::ComponentPipeline::open(env, path, options);
    if (!opened) throw UsageError(fmt::format("--pipeline {}: {}", name, opened.error().detail));
    // Known at start: a model nobody registered would make every request a 500.
    for (const std::string& model : (*opened)->models()) {
      if (env->models().contains(model)) continue;
      std::vector<std::string> registered;
      for (const auto& m : env->models().list()) registered.push_back(m.name);
      throw UsageError(
          fmt::format("--pipeline {}: it loads the model '{}', which is not registered{} (register it "
                      "with --nn-preload {}:ENCODING:TARGET:PATH, --model-repository, -S nn-graph or "
                      "--nn-remote; the models: {})",
                      name, model, wasinn::did_you_mean(model, registered), model,
                      registered.empty() ? "none" : fmt::format("{}", fmt::join(registered, ", "))));
    }
    pipelines[name] = std::make_shared<ComponentPipelineModel>(std::move(*opened));
  }
  return pipelines;
}

}  // namespace wasinn_cli
