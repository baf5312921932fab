// JSON configs, read with the SDK's helpers (nlohmann::json in its non-throwing mode).
#include "config.h"

#include <nlohmann/json.hpp>

#include <optional>

#include "wasinn/plugin_sdk/json_config.hpp"

namespace wasinn::tensorflowlite {

Error parse_backend_config(std::string_view text) {
  constexpr std::string_view source = "backend config";
  nlohmann::json j;
  if (Error e = sdk::parse_config_object(text, source, j)) return e;
  if (!j.empty())
    return sdk::invalid(std::string(source) +
                        ": the tensorflowlite backend takes no settings, got \"" +
                        j.begin().key() + "\"");
  return {};
}

Error parse_graph_config(std::string_view text, GraphConfig &out) {
  constexpr std::string_view source = "graph config";
  out = {};
  nlohmann::json j;
  if (Error e = sdk::parse_config_object(text, source, j)) return e;
  for (const auto &item : j.items())
    if (item.key() != "signature")
      return sdk::invalid(std::string(source) + ": unknown tensorflowlite setting \"" +
                          item.key() + "\" (known: signature)");
  std::optional<std::string> signature;
  if (Error e = sdk::read_string(j, "signature", source, signature)) return e;
  if (signature) out.signature = *signature;
  return {};
}

}  // namespace wasinn::tensorflowlite
