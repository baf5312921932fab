// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Named tensors: how a tensor name maps to a model's input or output, one rule for every
// backend (WIT guests address tensors by name; witx guests by index). Stateless functions.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "core/error.h"
#include "core/graph.h"
#include "core/types.h"

namespace wasinn {

struct NamedInput {
  std::string_view name;
  TensorView tensor;
};

struct NamedTensor {
  std::string name;
  OwnedTensor tensor;
};

// "input (f32 [?, 64]), mask (i64 [?, 8], optional)": what error details list.
std::string describe_inputs(const Graph& graph, TypeNamer type_names = type_name);

// An input the model can do without (TorchScript's Optional[...], llama.cpp's metadata): the
// backend says so in the input's framework words.
bool is_optional_input(const IoInfo& input);

// The input a name addresses by position: a decimal index below the input count that no input
// is named (Wasmtime's ONNX backend takes "0" so), else nullopt.
std::optional<uint32_t> positional_input(const Graph& graph, std::string_view name);

// The input a name addresses: by position (positional_input), else by name.
TensorId input_id(const Graph& graph, std::string_view name);

// invalid_argument, naming the model's inputs, for a name that addresses none of them (by name
// or position). A backend that declares no inputs judges names itself: every name passes.
Status check_input_name(const Graph& graph, std::string_view name, TypeNamer type_names = type_name);

// invalid_argument, naming the model's inputs, for an unknown or repeated name, a type other than
// the one the model declares, or a required input left out. Lengths are checked by set_input.
Status check_named_inputs(const Graph& graph, std::span<const NamedInput> inputs, TypeNamer type_names = type_name);

// The name output `index` comes back under: the model's own, else "output<index>" (a backend
// that declares no name for it; the SDK's resolve_id accepts that name too).
std::string output_name(const Graph& graph, size_t index);

}  // namespace wasinn
