// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The fast path for flat number arrays under JSON "data" keys, shared by the client's response
// decoder (json_codec) and the server's request decoder (server_json): the arrays are cut out of
// the text and replaced by marker strings before nlohmann parses the rest, then each is read with
// std::from_chars (about ten times faster than nlohmann for 150,000 floats). A reading it cannot
// do alike with the general path (nesting, strings, a number its datatype cannot hold) is left to
// that path, so both accept and refuse the same bodies (fuzz_remote_codecs compares them). Pure;
// thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace wasinn::oip {

// `text` with every flat number array that is the value of a "data" key replaced by the marker
// string numbered by its place in `arrays` (views into `text`), or `text` unchanged when it has none.
std::string cut_data_arrays(std::string_view text, std::vector<std::string_view>& arrays);

// The cut-out array a parsed "data" value stands for, when it is one of the markers.
std::optional<std::string_view> marked_array(const nlohmann::json& data, const std::vector<std::string_view>& arrays);

// A cut-out array as datatype dt's little-endian bytes appended to out, exactly as
// flatten_json_data would give them; false: take the general path (out may hold a part).
bool read_fast(std::string_view array, std::string_view dt, std::string& out);

}  // namespace wasinn::oip
