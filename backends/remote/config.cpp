// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "config.h"

#include <nlohmann/json.hpp>

#include "plugin_common/layered_config.hpp"
#include "wasinn/plugin_sdk/json_config.hpp"

namespace wasinn::remote {
namespace {

sdk::Error read_count(const nlohmann::json& j, const char* key, std::string_view source, uint64_t most,
                      std::optional<uint64_t>& out) {
  auto it = j.find(key);
  if (it == j.end()) return {};
  if (!it->is_number_integer() || (it->is_number_integer() && !it->is_number_unsigned() && it->get<int64_t>() < 0) ||
      it->get<uint64_t>() > most)
    return sdk::invalid(std::string(source) + ": \"" + key + "\" must be an integer from 0 to " + std::to_string(most) +
                        ", got " + it->dump());
  out = it->get<uint64_t>();
  return {};
}

}  // namespace

RemoteOptions RemoteOptions::merged_with(const RemoteOptions& o) const {
  using R = RemoteOptions;
  RemoteOptions r =
      plugin_common::layered(*this, o, &R::url, &R::timeout_ms, &R::connect_timeout_ms, &R::retries,
                             &R::max_message_bytes, &R::ca_file, &R::cert_file, &R::key_file, &R::binary_tensors);
  if (o.headers) {
    // Headers add up: a model's token beside the backend's defaults; the model's value wins.
    auto h = r.headers.value_or(std::map<std::string, std::string>{});
    for (const auto& [k, v] : *o.headers) h[k] = v;
    r.headers = std::move(h);
  }
  return r;
}

sdk::Error parse_remote_options(std::string_view text, std::string_view source, RemoteOptions& out) {
  out = {};
  size_t start = text.find_first_not_of(" \t\r\n");
  if (start != std::string_view::npos && text[start] != '{') {
    // The URL alone.
    size_t end = text.find_last_not_of(" \t\r\n");
    out.url = std::string(text.substr(start, end - start + 1));
    return {};
  }
  nlohmann::json j;
  if (sdk::Error e = sdk::parse_config_object(text, source, j)) return e;
  if (sdk::Error e = sdk::read_string(j, "url", source, out.url)) return e;
  if (sdk::Error e = read_count(j, "timeout_ms", source, 7ull * 24 * 3600 * 1000, out.timeout_ms)) return e;
  if (sdk::Error e = read_count(j, "connect_timeout_ms", source, 3600 * 1000, out.connect_timeout_ms)) return e;
  if (sdk::Error e = read_count(j, "retries", source, 10, out.retries)) return e;
  if (sdk::Error e = read_count(j, "max_message_bytes", source, 1ull << 31, out.max_message_bytes)) return e;
  if (sdk::Error e = sdk::read_string(j, "ca_file", source, out.ca_file)) return e;
  if (sdk::Error e = sdk::read_string(j, "cert_file", source, out.cert_file)) return e;
  if (sdk::Error e = sdk::read_string(j, "key_file", source, out.key_file)) return e;
  if (sdk::Error e =
          sdk::read_choice<bool>(j, "binary_tensors", source, {{"auto", true}, {"never", false}}, out.binary_tensors))
    return e;
  if (auto it = j.find("headers"); it != j.end()) {
    if (!it->is_object()) return sdk::invalid(std::string(source) + ": \"headers\" must be an object of strings");
    std::map<std::string, std::string> h;
    for (const auto& item : it->items()) {
      // The value is never echoed: it may be a token.
      if (!item.value().is_string())
        return sdk::invalid(std::string(source) + ": header \"" + item.key() + "\" must be a string");
      const std::string& v = item.value().get_ref<const std::string&>();
      auto bad_char = [](char c) { return c == '\r' || c == '\n' || c == '\0'; };
      if (item.key().empty() || item.key().find_first_of(": \r\n\t") != std::string::npos ||
          std::any_of(v.begin(), v.end(), bad_char))
        return sdk::invalid(std::string(source) + ": header \"" + item.key() +
                            "\" has a bad name or a line break in its value");
      h[item.key()] = v;
    }
    out.headers = std::move(h);
  }
  return {};
}

sdk::Error resolve_target(const RemoteOptions& o, ModelTarget& out) {
  out = {};
  if (!o.url) return sdk::invalid("remote model spec: no \"url\"");
  if (sdk::Error e = parse_remote_url(*o.url, out.url)) return e;
  out.timeout_ms = o.timeout_ms.value_or(out.timeout_ms);
  out.connect_timeout_ms = o.connect_timeout_ms.value_or(out.connect_timeout_ms);
  out.retries = o.retries.value_or(out.retries);
  out.max_message_bytes = o.max_message_bytes.value_or(out.max_message_bytes);
  out.ca_file = o.ca_file.value_or("");
  out.cert_file = o.cert_file.value_or("");
  out.key_file = o.key_file.value_or("");
  if (out.cert_file.empty() != out.key_file.empty())
    return sdk::invalid("remote model " + out.url.text() +
                        ": cert_file and key_file go together (a client certificate and its key)");
  out.headers = o.headers.value_or(std::map<std::string, std::string>{});
  out.binary_tensors = o.binary_tensors.value_or(true);
  return {};
}

}  // namespace wasinn::remote
