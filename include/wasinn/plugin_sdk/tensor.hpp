// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// wasinn plugin SDK: tensor vocabulary shared by every backend. Element sizes and names, dims
// formatting, a model's declared inputs/outputs (IoDesc), tensor-id resolution and the
// declared-versus-given check, each with the one status backend_plugin.h documents.
//
// Pure functions and plain values; thread-safe. Strings are built only on failure, so the
// set_input/get_output hot paths do not allocate.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "wasinn/backend_plugin.h"
#include "wasinn/plugin_sdk/error.hpp"

namespace wasinn::sdk {

// Bytes per element of a wasinn type; 0 for WASINN_TYPE_UNKNOWN or a number outside the enum.
constexpr size_t element_size(int32_t type) {
  switch (type) {
    case WASINN_TYPE_U8:
    case WASINN_TYPE_I8: return 1;
    case WASINN_TYPE_F16:
    case WASINN_TYPE_BF16: return 2;
    case WASINN_TYPE_F32:
    case WASINN_TYPE_I32: return 4;
    case WASINN_TYPE_F64:
    case WASINN_TYPE_I64: return 8;
    default: return 0;
  }
}

// "f32", "bf16", ...; "type 42" for numbers outside the enum.
inline std::string type_name(int32_t type) {
  switch (type) {
    case WASINN_TYPE_F16: return "f16";
    case WASINN_TYPE_F32: return "f32";
    case WASINN_TYPE_F64: return "f64";
    case WASINN_TYPE_BF16: return "bf16";
    case WASINN_TYPE_U8: return "u8";
    case WASINN_TYPE_I32: return "i32";
    case WASINN_TYPE_I64: return "i64";
    case WASINN_TYPE_I8: return "i8";
    case WASINN_TYPE_UNKNOWN: return "unknown type";
    default: return "type " + std::to_string(type);
  }
}

// "[1, 3, 224, 224]"; a dynamic declared dimension (any negative value) prints as "?", as
// `wasinn models inspect` and OpenVINO write it: one notation in every backend's details.
template <typename Dim>
std::string format_dims(std::span<const Dim> dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) s += ", ";
    if constexpr (std::is_signed_v<Dim>)
      s += dims[i] < 0 ? std::string("?") : std::to_string(dims[i]);
    else
      s += std::to_string(dims[i]);
  }
  return s + "]";
}
inline std::string format_dims(const std::vector<int64_t>& dims) { return format_dims(std::span<const int64_t>(dims)); }
inline std::string format_dims(const wasinn_tensor& t) {
  return format_dims(std::span<const uint32_t>(t.dims, t.dims ? t.rank : 0));
}

// product(dims) * element_size into out; false when it overflows size_t. Dims must be >= 0.
template <typename Dim>
bool byte_size(std::span<const Dim> dims, size_t element, size_t& out) {
  size_t n = element;
  for (Dim d : dims) {
    const auto ud = static_cast<size_t>(d);
    if (ud != 0 && n > std::numeric_limits<size_t>::max() / ud) return false;
    n *= ud;
  }
  out = n;
  return true;
}

// One declared input or output of a model, kept by the graph for its whole life: the strings
// and dims that graph_io_info hands the host point into it.
struct IoDesc {
  std::string name;                    // "" when the framework has no names
  int32_t type = WASINN_TYPE_UNKNOWN;  // wasinn_tensor_type
  int32_t rank = -1;                   // -1: shape not declared, any shape goes
  std::vector<int64_t> dims;           // -1 for a dynamic dimension
  // Why no wasinn tensor fits this slot ("a sequence", "ONNX string"), or "" when one does.
  std::string not_a_tensor;
  // The framework's own type, when it says more than type and dims ("TorchScript int"), or "".
  std::string framework_type;

  // "f32 [-1, 64]", "f32 of any shape", or "not a tensor but a sequence".
  std::string describe() const {
    if (!not_a_tensor.empty()) return "not a tensor but " + not_a_tensor;
    const std::string t = type_name(type);
    return rank < 0 ? t + " of any shape" : t + " " + format_dims(dims);
  }
  bool carries_tensors() const { return not_a_tensor.empty() && type != WASINN_TYPE_UNKNOWN; }
};

enum class Side { input, output };
constexpr const char* noun(Side side) { return side == Side::input ? "input" : "output"; }

// What a graph declares, kept for its whole life (graph_io_info hands out pointers into it).
// Graph classes derive from it and fill inputs_ and outputs_ while they load; make_api reads
// io(). Immutable after load, so any thread may read it.
class DeclaredIo {
 public:
  std::span<const IoDesc> io(Side side) const { return side == Side::input ? inputs_ : outputs_; }

 protected:
  std::vector<IoDesc> inputs_, outputs_;
};

// `input 0 ("x")`: the prefix of every per-tensor detail.
inline std::string io_label(std::span<const IoDesc> io, Side side, size_t index) {
  std::string s = std::string(noun(side)) + " " + std::to_string(index);
  if (index < io.size() && !io[index].name.empty()) s += " (\"" + io[index].name + "\")";
  return s;
}

// The name an output the framework leaves unnamed goes by: "output<index>". The host returns
// such an output to a WIT guest under this name (src/core/named_io.h, output_name), so
// resolve_id accepts it for that output too: one name for witx and WIT guests alike.
inline std::string default_output_name(size_t index) { return "output" + std::to_string(index); }

// The index in "output<index>" (digits without a leading zero), or false for any other text.
inline bool parse_default_output_name(std::string_view name, size_t& index) {
  constexpr std::string_view prefix = "output";
  if (name.size() <= prefix.size() || name.substr(0, prefix.size()) != prefix) return false;
  const std::string_view digits = name.substr(prefix.size());
  if (digits.size() > 9 || (digits.size() > 1 && digits[0] == '0')) return false;
  size_t n = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return false;
    n = n * 10 + static_cast<size_t>(c - '0');
  }
  index = n;
  return true;
}

// What a detail says an id may be: `valid indices are 0..2` or `the model's inputs are "a", "b"`
// (an unnamed output listed as "output<index>").
inline std::string valid_ids(std::span<const IoDesc> io, Side side, bool by_name) {
  if (io.empty()) return std::string("the model has no ") + noun(side) + "s";
  if (!by_name)
    return io.size() == 1 ? std::string("the only valid index is 0")
                          : "valid indices are 0.." + std::to_string(io.size() - 1);
  std::string names;
  for (size_t i = 0; i < io.size(); ++i) {
    const std::string name = io[i].name.empty() && side == Side::output ? default_output_name(i) : io[i].name;
    if (!name.empty()) names += (names.empty() ? "\"" : ", \"") + name + "\"";
  }
  if (names.empty()) return std::string("the model's ") + noun(side) + "s have no names; address them by index";
  return std::string("the model's ") + noun(side) + "s are " + names;
}

// Resolves a tensor id (index, or name when id.name != NULL) against declared inputs or
// outputs: a name is the model's own, or "output<index>" for an output without one. An id the model does not have is
// INVALID_ARGUMENT naming the valid ones: the one rule of backend_plugin.h, for every backend.
inline Error resolve_id(std::span<const IoDesc> io, Side side, const wasinn_tensor_id& id, size_t& index) {
  if (!id.name) {
    if (id.index < io.size()) {
      index = id.index;
      return {};
    }
    return invalid(std::string(noun(side)) + " index " + std::to_string(id.index) +
                   " is out of range: " + valid_ids(io, side, false));
  }
  const std::string_view wanted(id.name, id.name_length);
  if (wanted.empty()) return invalid(std::string("an empty ") + noun(side) + " name");
  for (size_t i = 0; i < io.size(); ++i)
    if (io[i].name == wanted) {
      index = i;
      return {};
    }
  size_t positional = 0;
  if (side == Side::output && parse_default_output_name(wanted, positional) && positional < io.size() &&
      io[positional].name.empty()) {
    index = positional;
    return {};
  }
  return invalid(std::string("no ") + noun(side) + " named \"" + std::string(wanted) +
                 "\": " + valid_ids(io, side, true));
}

// The rule for a tensor given to a declared input: its type must be the declared one, its
// rank the declared rank, and each static dimension equal (dynamic ones and undeclared shapes
// take anything); its bytes must be product(dims) * element size. INVALID_ARGUMENT otherwise,
// TOO_LARGE when the size overflows, UNSUPPORTED_OPERATION for a slot no tensor fits.
inline Error check_input(std::span<const IoDesc> io, size_t index, const wasinn_tensor& t) {
  const IoDesc& d = io[index];
  auto label = [&] { return io_label(io, Side::input, index); };
  if (!d.carries_tensors())
    return unsupported(label() + " is " + d.describe() + ": no wasinn tensor can be passed to it");
  if (t.rank > 0 && !t.dims) return invalid(label() + ": the tensor has no dims");
  bool fits = t.type == d.type;
  if (fits && d.rank >= 0) {
    fits = t.rank == static_cast<uint32_t>(d.rank);
    for (uint32_t i = 0; fits && i < t.rank; ++i) fits = d.dims[i] < 0 || d.dims[i] == static_cast<int64_t>(t.dims[i]);
  }
  if (!fits)
    return invalid(label() + ": expected " + d.describe() + ", got " + type_name(t.type) + " " + format_dims(t));
  size_t bytes = 0;
  if (!byte_size(std::span<const uint32_t>(t.dims, t.rank), element_size(t.type), bytes))
    return {WASINN_TOO_LARGE, label() + ": the tensor's byte size overflows"};
  if (t.data_length != bytes)
    return invalid(label() + ": data is " + std::to_string(t.data_length) + " bytes, its shape needs " +
                   std::to_string(bytes));
  if (bytes > 0 && !t.data) return invalid(label() + ": the tensor has no data");
  return {};
}

// The "inputs not set: input 0 ("x"), ..." detail for compute, or no error when all are set.
template <typename IsSet>
Error check_all_set(std::span<const IoDesc> io, IsSet&& is_set) {
  std::string missing;
  for (size_t i = 0; i < io.size(); ++i)
    if (!is_set(i)) missing += (missing.empty() ? "" : ", ") + io_label(io, Side::input, i);
  if (missing.empty()) return {};
  return invalid("inputs not set: " + missing);
}

inline void fill_io_info(const IoDesc& d, wasinn_io_info& out) {
  out.name = d.name.c_str();
  out.type = d.carries_tensors() ? d.type : WASINN_TYPE_UNKNOWN;
  out.rank = d.rank;
  out.dims = d.rank > 0 ? d.dims.data() : nullptr;
}

// An output of raw bytes (text, JSON) as get_output hands it out: u8 with dims [size]. `dim`
// holds the size and, like `bytes`, must stay valid as long as the view (backend_plugin.h).
inline void bytes_output(std::string_view bytes, uint32_t& dim, wasinn_tensor& out) {
  dim = static_cast<uint32_t>(bytes.size());
  out.type = WASINN_TYPE_U8;
  out.rank = 1;
  out.dims = &dim;
  out.data = bytes.data();
  out.data_length = bytes.size();
}

}  // namespace wasinn::sdk
