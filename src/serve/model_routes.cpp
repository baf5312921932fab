// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "serve/model_routes.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace wasinn {

namespace {

using nlohmann::json;

ModelRouteAnswer error_answer(int status, std::string_view message, std::string_view code,
                              const char* param = nullptr) {
  const char* type = status >= 500 ? "server_error" : "invalid_request_error";
  json error = {{"message", message}, {"type", type}, {"param", param ? json(param) : json(nullptr)}, {"code", code}};
  return {status, json{{"error", error}}.dump(-1, ' ', false, json::error_handler_t::replace)};
}

json model_object(const ModelStatus& status) {
  return {{"id", status.name},
          {"object", "model"},
          {"created", 0},
          {"owned_by", "wasinn"},
          {"status", {{"value", model_state_name(status.state)}, {"in_use", status.in_use}}}};
}

ModelRouteAnswer list_models(NnEnvironment& env) {
  json data = json::array();
  for (const auto& status : env.models().statuses()) data.push_back(model_object(status));
  return {200, json{{"object", "list"}, {"data", data}}.dump(-1, ' ', false, json::error_handler_t::replace)};
}

// The answer after a load or an unload: the model's state now.
ModelRouteAnswer model_state(NnEnvironment& env, std::string_view name) {
  for (const auto& status : env.models().statuses()) {
    if (status.name != name) continue;
    json answer = model_object(status);
    answer["success"] = true;
    return {200, answer.dump(-1, ' ', false, json::error_handler_t::replace)};
  }
  return error_answer(404, fmt::format("The model `{}` does not exist", name), "model_not_found", "model");
}

ModelRouteAnswer load_or_unload(NnEnvironment& env, bool load, std::string_view body) {
  const json request = json::parse(body, nullptr, false);
  if (!request.is_object())
    return error_answer(400, "the body must be a JSON object: {\"model\": \"NAME\"}", "invalid_request");
  const auto model = request.find("model");
  if (model == request.end() || !model->is_string() || model->get_ref<const std::string&>().empty())
    return error_answer(400, "\"model\" must name a model: {\"model\": \"NAME\"} (GET /v1/models lists them)",
                        "invalid_request", "model");
  const std::string& name = model->get_ref<const std::string&>();
  if (!env.models().contains(name))
    return error_answer(404, fmt::format("The model `{}` does not exist (GET /v1/models lists them)", name),
                        "model_not_found", "model");
  if (load) {
    auto graph = env.load_named(name, "");
    if (!graph) {
      const Error& e = graph.error();
      // too_large: the registry refused it for room (memory, --models-max): try later, as a busy server.
      return e.code == Errc::too_large
                 ? error_answer(503, e.detail, "model_not_loaded")
                 : error_answer(500, fmt::format("loading model `{}` failed: {}", name, e.detail), "load_failed");
    }
    graph->reset();  // the registry keeps it: this request holds nothing
  } else if (Status unloaded = env.models().unload(name, "request"); !unloaded) {
    const Error& e = unloaded.error();
    return e.code == Errc::busy ? error_answer(409, e.detail, "model_in_use", "model")
                                : error_answer(400, e.detail, "invalid_request", "model");
  }
  return model_state(env, name);
}

}  // namespace

const std::vector<std::string>& model_route_paths() {
  static const std::vector<std::string> paths = {"/v1/models", "/models", "/models/load", "/models/unload"};
  return paths;
}

ModelRouteAnswer answer_model_route(NnEnvironment& env, std::string_view method, std::string_view path,
                                    std::string_view body) {
  if (path == "/v1/models" || path == "/models") {
    if (method != "GET" && method != "HEAD")
      return error_answer(405, fmt::format("use GET {}", path), "invalid_request");
    return list_models(env);
  }
  if (method != "POST") return error_answer(405, fmt::format("use POST {}", path), "invalid_request");
  return load_or_unload(env, path == "/models/load", body);
}

}  // namespace wasinn
