// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "json_schema.h"

#include <json-schema-to-grammar.h>

#include <exception>
#include <utility>
#include <vector>

namespace wasinn::llamacpp {
namespace {

using json = nlohmann::json;

// The converter recurses once per level: a guest's deeply nested schema must not reach it.
constexpr size_t kMaxDepth = 64;

Error refused(std::string_view source, std::string_view why) {
  return sdk::invalid(std::string(source) + ": \"json-schema\" " + std::string(why));
}

// The converter's message is several lines; one line keeps the detail readable in a log.
std::string one_line(std::string text) {
  for (char& c : text)
    if (c == '\n') c = ' ';
  if (text.size() > 300) text = text.substr(0, 297) + "...";
  return text;
}

}  // namespace

bool nested_deeper_than(const nlohmann::json& root, size_t limit) {
  std::vector<std::pair<const nlohmann::json*, size_t>> todo{{&root, 1}};
  while (!todo.empty()) {
    auto [v, depth] = todo.back();
    todo.pop_back();
    if (depth > limit) return true;
    if (v->is_structured())
      for (const auto& child : *v) todo.emplace_back(&child, depth + 1);
  }
  return false;
}

Error check_grammar_size(std::string_view gbnf, std::string_view key, std::string_view source) {
  if (gbnf.size() <= kMaxGrammarBytes) return {};
  return sdk::invalid(std::string(source) + ": \"" + std::string(key) + "\" makes a grammar of " +
                      std::to_string(gbnf.size()) + " bytes, over the limit of " + std::to_string(kMaxGrammarBytes) +
                      " (a schema with fewer alternatives, e.g. a shorter enum)");
}

Error grammar_from_json_schema(const json& value, std::string_view source, std::string& schema, std::string& gbnf) {
  json doc;
  if (value.is_string()) {
    const auto& text = value.get_ref<const std::string&>();
    if (text.empty()) {
      schema.clear();
      gbnf.clear();
      return {};
    }
    doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (doc.is_discarded()) return refused(source, "is not valid JSON");
  } else {
    doc = value;
  }
  if (!doc.is_object()) {
    const std::string got = value.is_string() ? "a string holding " + std::string(doc.type_name()) : value.type_name();
    return refused(source, "must be a JSON schema object, or a string holding one, got " + got);
  }
  if (nested_deeper_than(doc, kMaxDepth))
    return refused(source, "is nested deeper than " + std::to_string(kMaxDepth) + " levels");
  // The string form goes to the converter as written: its properties keep their order (the
  // object form was read into a sorted map with the rest of the config and comes alphabetical).
  std::string text = value.is_string() ? value.get<std::string>() : doc.dump();
  try {
    std::string made = json_schema_to_grammar(common_json::parse(text));
    if (made.empty()) return refused(source, "gave an empty grammar");
    if (Error e = check_grammar_size(made, "json-schema", source)) return e;
    schema = std::move(text);
    gbnf = std::move(made);
    return {};
  } catch (const std::exception& e) {
    return refused(source, "could not be turned into a grammar: " + one_line(e.what()));
  } catch (...) {
    return refused(source, "could not be turned into a grammar");
  }
}

}  // namespace wasinn::llamacpp
