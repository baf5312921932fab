// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Host::check_nn_options: a guest's NN_OPTIONS (the properties the OpenAI-compatible component
// sets on every context of a model, guest/components/http_openai.cpp) checked at `serve`'s start
// against the registered GGML models, so a typo stops the server instead of failing each request.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/near_names.h"
#include "engine/host_impl.h"
#include "wasinn/host.h"

namespace wasinn {

bool Host::check_nn_options(const Program& program, std::string* error) {
  auto fail = [&](std::string msg) {
    if (error) *error = std::move(msg);
    return false;
  };
  const std::string* text = nullptr;
  for (const auto& [name, value] : program.env) {
    if (name == "NN_OPTIONS") text = &value;
  }
  if (!text || text->empty()) return true;
  const auto options = nlohmann::json::parse(*text, nullptr, false);
  if (!options.is_object()) {
    return fail(
        fmt::format("--env NN_OPTIONS must be a JSON object of properties, e.g. {{\"ctx-size\": 4096}}: {}", *text));
  }
  for (const auto& model : impl_->env->models().list()) {
    if (model.encoding != Encoding::ggml && model.encoding != Encoding::autodetect) continue;
    if (model.on_demand) continue;  // not loaded at start (--models-dir): its first load says so
    auto graph = impl_->env->load_named(model.name, "");
    if (!graph) return fail(fmt::format("the model '{}' does not load: {}", model.name, graph.error().detail));
    if ((*graph)->encoding() != Encoding::ggml) continue;
    std::vector<std::string> settable;
    for (const auto& p : (*graph)->properties()) {
      if (p.settable) settable.push_back(p.name);
    }
    for (const auto& [key, value] : options.items()) {
      if (std::find(settable.begin(), settable.end(), key) == settable.end()) {
        const auto near = nearest_name(key, settable);
        return fail(fmt::format(
            "--env NN_OPTIONS: '{}' is not a property of the model '{}' (llama.cpp){}", key, model.name,
            near ? fmt::format("; the nearest is '{}'", *near) : "; `wasinn inspect MODEL` lists the settable ones"));
      }
      // As the component sets it: a string as it is, anything else as JSON text.
      const std::string as_text = value.is_string() ? value.get<std::string>() : value.dump();
      if (Status set = (*graph)->check_setting(key, as_text); !set) {
        return fail(fmt::format("--env NN_OPTIONS: '{}' = {} is refused by the model '{}': {}", key, value.dump(),
                                model.name, set.error().detail));
      }
    }
  }
  return true;
}

}  // namespace wasinn
