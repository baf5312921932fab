// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "cli/config_document.h"

#include <algorithm>
#include <map>
#include <sstream>

#include <fmt/format.h>
#include <toml.hpp>

#include "cli/cli_common.h"

namespace wasinn_cli {

namespace {

// Tables kept in a std::map: their order is the keys', not the file's (entries are then sorted
// by line).
using TomlValue = toml::basic_value<toml::discard_comments, std::map, std::vector>;

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

bool looks_like_json(const std::string& path, const std::string& text) {
  if (ends_with(path, ".json")) return true;
  if (ends_with(path, ".toml")) return false;
  const auto first = text.find_first_not_of(" \t\r\n");
  return first != std::string::npos && text[first] == '{';
}

// The line of the first `"key":` in the text (1-based), or 0: JSON parsers keep no positions.
size_t line_of_json_key(const std::string& text, const std::string& key) {
  const std::string quoted = "\"" + key + "\"";
  for (size_t at = text.find(quoted); at != std::string::npos; at = text.find(quoted, at + 1)) {
    const size_t after = text.find_first_not_of(" \t\r\n", at + quoted.size());
    if (after != std::string::npos && text[after] == ':') {
      return 1 + static_cast<size_t>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
    }
  }
  return 0;
}

std::vector<ConfigEntry> read_json(const std::string& path, const std::string& text) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    std::string why = e.what();  // "[json.exception.parse_error.101] parse error at line 3, ..."
    if (const auto at = why.find("] "); at != std::string::npos) why = why.substr(at + 2);
    throw UsageError(fmt::format("{}: not valid JSON: {}", path, why));
  }
  if (!j.is_object()) throw UsageError(fmt::format("{}: expected a JSON object of options {{\"key\": value}}", path));
  std::vector<ConfigEntry> out;
  for (const auto& [key, value] : j.items()) out.push_back({key, value, line_of_json_key(text, key)});
  return out;
}

nlohmann::json to_json(const TomlValue& v) {
  switch (v.type()) {
    case toml::value_t::boolean: return v.as_boolean();
    case toml::value_t::integer: return v.as_integer();
    case toml::value_t::floating: return v.as_floating();
    case toml::value_t::string: return v.as_string().str;
    case toml::value_t::array: {
      auto out = nlohmann::json::array();
      for (const auto& x : v.as_array()) out.push_back(to_json(x));
      return out;
    }
    case toml::value_t::table: {
      auto out = nlohmann::json::object();
      for (const auto& [k, x] : v.as_table()) out[k] = to_json(x);
      return out;
    }
    default: {  // dates and times: their text, refused later like any string the option rejects
      std::ostringstream text;
      text << v;
      return text.str();
    }
  }
}

// toml11's message is several lines ("[error] ... \n --> file\n 3 | a = \n ..."): its first
// line, without the prefix, is the reason.
std::string first_line_of(const std::string& what) {
  std::string line = what.substr(0, what.find('\n'));
  if (line.rfind("[error] ", 0) == 0) line = line.substr(8);
  return line;
}

std::vector<ConfigEntry> read_toml(const std::string& path, const std::string& text) {
  TomlValue doc;
  try {
    std::istringstream in(text);
    doc = toml::parse<toml::discard_comments, std::map, std::vector>(in, path);
  } catch (const toml::syntax_error& e) {
    const auto line = e.location().line();
    throw UsageError(line > 0 ? fmt::format("{}:{}: not valid TOML: {}", path, line, first_line_of(e.what()))
                              : fmt::format("{}: not valid TOML: {}", path, first_line_of(e.what())));
  } catch (const std::exception& e) {
    throw UsageError(fmt::format("{}: not valid TOML: {}", path, first_line_of(e.what())));
  }
  std::vector<ConfigEntry> out;
  for (const auto& [key, value] : doc.as_table()) out.push_back({key, to_json(value), value.location().line()});
  std::stable_sort(out.begin(), out.end(), [](const ConfigEntry& a, const ConfigEntry& b) { return a.line < b.line; });
  return out;
}

}  // namespace

std::vector<ConfigEntry> read_config_document(const std::string& path, const std::string& text) {
  return looks_like_json(path, text) ? read_json(path, text) : read_toml(path, text);
}

}  // namespace wasinn_cli
