// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// "json-schema": a JSON schema turned into the GBNF grammar that constrains sampling, by
// llama.cpp's own converter (json_schema_to_grammar, in libllama-common), as WasmEdge's GGML
// plugin does. Kept in one file so only it includes llama.cpp's common headers.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

#include "wasinn/plugin_sdk/error.hpp"

namespace wasinn::llamacpp {

using sdk::Error;

// `value` is the key's JSON value: a string holding the schema's JSON text (WasmEdge's form) or
// the schema object itself. Object properties are generated in the order of the string's text,
// or alphabetically for the object form (the config's JSON is read into sorted maps). On
// success `schema` is the schema's text and `gbnf` its grammar; ""
// (an empty string) sets both to "" (unconstrained). Anything else, a schema nested deeper than
// 64 levels, or one the converter refuses (it throws; caught here) is INVALID_ARGUMENT naming
// the key and `source`.
Error grammar_from_json_schema(const nlohmann::json& value, std::string_view source, std::string& schema,
                               std::string& gbnf);

// The largest GBNF grammar taken ("grammar", or made from "json-schema"): a few KiB serve any
// real schema, and llama.cpp prints the whole text of one it cannot parse to stderr.
inline constexpr size_t kMaxGrammarBytes = 256 << 10;

// Whether `root` nests deeper than `limit` levels, found without recursing: llama.cpp's
// converters and Jinja recurse once per level, so a guest's deep JSON must be refused first.
bool nested_deeper_than(const nlohmann::json& root, size_t limit);

// INVALID_ARGUMENT naming `key` and `source` for a grammar past kMaxGrammarBytes.
Error check_grammar_size(std::string_view gbnf, std::string_view key, std::string_view source);

}  // namespace wasinn::llamacpp
