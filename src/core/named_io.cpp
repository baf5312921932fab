// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "core/named_io.h"

#include <algorithm>
#include <cctype>
#include <set>

#include <fmt/format.h>

namespace wasinn {

namespace {

std::string describe_io(const IoInfo& io, TypeNamer type_names) {
  std::string shape = "any shape";
  if (io.dims) {
    std::vector<std::string> parts;
    for (int64_t d : *io.dims) parts.push_back(d < 0 ? "?" : std::to_string(d));
    shape = fmt::format("[{}]", fmt::join(parts, ", "));
  }
  return fmt::format("{} {}", io.type ? std::string(type_names(*io.type)) : std::string("?"), shape);
}

bool contains_ci(std::string_view text, std::string_view word) {
  return std::search(text.begin(), text.end(), word.begin(), word.end(), [](char a, char b) {
           return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
         }) != text.end();
}

}  // namespace

bool is_optional_input(const IoInfo& input) { return contains_ci(input.framework_type, "optional"); }

std::string describe_inputs(const Graph& graph, TypeNamer type_names) {
  if (graph.inputs().empty()) return "the model declares no inputs";
  std::vector<std::string> parts;
  for (const auto& in : graph.inputs()) {
    parts.push_back(fmt::format("{} ({}{})", in.name.empty() ? "<unnamed>" : in.name, describe_io(in, type_names),
                                is_optional_input(in) ? ", optional" : ""));
  }
  return fmt::format("the model's inputs are {}", fmt::join(parts, ", "));
}

std::optional<uint32_t> positional_input(const Graph& graph, std::string_view name) {
  const auto& declared = graph.inputs();
  if (name.empty() || name.size() > 9 ||
      !std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return std::nullopt;
  }
  if (std::any_of(declared.begin(), declared.end(), [&](const IoInfo& io) { return io.name == name; }))
    return std::nullopt;
  const auto index = static_cast<uint32_t>(std::stoul(std::string(name)));
  if (index >= declared.size()) return std::nullopt;
  return index;
}

TensorId input_id(const Graph& graph, std::string_view name) {
  if (auto index = positional_input(graph, name)) return TensorId{*index, std::nullopt};
  return TensorId{0, name};
}

Status check_input_name(const Graph& graph, std::string_view name, TypeNamer type_names) {
  const auto& declared = graph.inputs();
  if (declared.empty() || positional_input(graph, name) ||
      std::any_of(declared.begin(), declared.end(), [&](const IoInfo& io) { return io.name == name; }))
    return {};
  return make_error(Errc::invalid_argument,
                    fmt::format("the model has no input named '{}'; {}", name, describe_inputs(graph, type_names)));
}

Status check_named_inputs(const Graph& graph, std::span<const NamedInput> inputs, TypeNamer type_names) {
  const auto& declared = graph.inputs();
  std::set<std::string_view> seen;
  for (const auto& in : inputs) {
    // "0" and the first input's own name are the same input, given twice.
    const auto index = positional_input(graph, in.name);
    const std::string_view canonical = index ? std::string_view(declared[*index].name) : in.name;
    if (!seen.insert(canonical).second) {
      return make_error(Errc::invalid_argument,
                        fmt::format("input '{}' is given twice; {}", in.name, describe_inputs(graph, type_names)));
    }
    // A backend that declares no inputs learns them at compute and judges names itself.
    if (declared.empty()) continue;
    auto it =
        index ? declared.begin() + *index
              : std::find_if(declared.begin(), declared.end(), [&](const IoInfo& io) { return io.name == in.name; });
    if (it == declared.end()) return check_input_name(graph, in.name, type_names);
    if (it->type && *it->type != in.tensor.type) {
      return make_error(Errc::invalid_argument,
                        fmt::format("input '{}' is {}, but the model takes {}; {}", in.name, type_names(in.tensor.type),
                                    type_names(*it->type), describe_inputs(graph, type_names)));
    }
  }
  for (const auto& io : declared) {
    if (io.name.empty() || is_optional_input(io) || seen.count(io.name)) continue;
    return make_error(Errc::invalid_argument,
                      fmt::format("input '{}' is missing; {}", io.name, describe_inputs(graph, type_names)));
  }
  return {};
}

std::string output_name(const Graph& graph, size_t index) {
  if (index < graph.outputs().size() && !graph.outputs()[index].name.empty()) return graph.outputs()[index].name;
  return fmt::format("output{}", index);
}

}  // namespace wasinn
