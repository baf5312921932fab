// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Host::check_nn_options: a guest's NN_OPTIONS (the properties the OpenAI-compatible component
// sets on every context of a model that has them, guest/components/http_openai.h) checked at
// `serve`'s start against the models loaded then, so a typo stops the server instead of being
// skipped by every model or failing each request.
#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>
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
  // Every model takes the keys it has (a chat model's ctx-size, a whisper model's beam-size), so a
  // key must be some model's, and each model that has it must take its value.
  struct Served {
    std::string name;
    std::shared_ptr<Graph> graph;
    std::vector<std::string> settable;
  };
  std::vector<Served> served;
  std::vector<std::string> every_key;
  for (const auto& model : impl_->env->models().list()) {
    if (model.on_demand) continue;                     // not loaded at start (--models-dir): its first load says so
    if (model.encoding == Encoding::remote) continue;  // another server's: its first request says so
    auto graph = impl_->env->load_named(model.name, "");
    if (!graph) return fail(fmt::format("the model '{}' does not load: {}", model.name, graph.error().detail));
    Served s{model.name, *graph, {}};
    for (const auto& p : s.graph->properties()) {
      if (!p.settable) continue;
      s.settable.push_back(p.name);
      if (std::find(every_key.begin(), every_key.end(), p.name) == every_key.end()) every_key.push_back(p.name);
    }
    served.push_back(std::move(s));
  }
  if (served.empty()) return true;
  std::string names;
  for (const Served& s : served) names += (names.empty() ? "'" : ", '") + s.name + "'";
  for (const auto& [key, value] : options.items()) {
    if (std::find(every_key.begin(), every_key.end(), key) == every_key.end()) {
      const auto near = nearest_name(key, every_key);
      return fail(fmt::format(
          "--env NN_OPTIONS: '{}' is not a property of any model served ({}){}", key, names,
          near ? fmt::format("; the nearest is '{}'", *near) : "; `wasinn inspect MODEL` lists the settable ones"));
    }
    // As the component sets it: a string as it is, anything else as JSON text.
    const std::string as_text = value.is_string() ? value.get<std::string>() : value.dump();
    for (const Served& s : served) {
      if (std::find(s.settable.begin(), s.settable.end(), key) == s.settable.end()) continue;
      if (Status set = s.graph->check_setting(key, as_text); !set) {
        return fail(fmt::format("--env NN_OPTIONS: '{}' = {} is refused by the model '{}': {}", key, value.dump(),
                                s.name, set.error().detail));
      }
    }
  }
  return true;
}

}  // namespace wasinn
