// The JSON configuration of the backend (backend_create: no settings yet) and of one graph (the
// load request's config: which signature runs). Unknown keys are refused, naming the known ones,
// so a typo is never silently ignored.
#pragma once

#include <string>
#include <string_view>

#include "wasinn/plugin_sdk/error.hpp"

namespace wasinn::tensorflowlite {

using sdk::Error;

// The backend takes no settings: any key is INVALID_ARGUMENT, an empty object or no config is
// fine.
Error parse_backend_config(std::string_view text);

// {"signature": "KEY"}, optional: "" (the default) runs the model's first signature.
struct GraphConfig {
  std::string signature;
};
Error parse_graph_config(std::string_view text, GraphConfig &out);

}  // namespace wasinn::tensorflowlite
