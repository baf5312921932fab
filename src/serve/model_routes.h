// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The model routes `wasinn serve --models-dir` answers in the host, not the guest, since the
// state they show and change is the model registry's (core/model_registry.h), the one place that
// decides it: GET /v1/models and /models list every named model with its state, as llama-server's
// router mode does ({"status": {"value": "loaded"|"loading"|"unloaded"}}); POST /models/load and
// /models/unload take {"model": NAME}. Answers are OpenAI-shaped JSON (docs/serving.md, "Many
// models").
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/nn_environment.h"

namespace wasinn {

struct ModelRouteAnswer {
  int status = 200;
  std::string json;
};

// The paths answer_model_route answers (exact, the query aside).
const std::vector<std::string>& model_route_paths();

// One request for one of them: a load runs here (it may take seconds), as a request's would.
ModelRouteAnswer answer_model_route(NnEnvironment& env, std::string_view method, std::string_view path,
                                    std::string_view body);

}  // namespace wasinn
