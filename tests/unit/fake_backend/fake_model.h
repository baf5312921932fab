// What a fake backend "model" is: the text "fake:<op>[:<arg>]" at the start of (or anywhere
// in) builder 0, so host tests can pick a behaviour per graph. Parsing and io declarations live
// here; the C table in fake_backend.cpp executes them.
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "wasinn/backend_plugin.h"

namespace fake {

enum class Op {
  add1,          // output 0 = f32 input 0 + 1
  echo,          // output 0 = input 0, any type, unchanged
  stream,        // arg "a,b,c": compute_single yields one token at a time
  block,         // add1, but compute waits at the test-controlled gate first
  fail_context,  // context_create fails
  fail_compute,  // compute fails
  bad_output,    // get_output returns a tensor whose length does not match its dims
  describe_load, // output 0 = text describing the load request (builders, target, config...)
};

struct ParsedModel {
  Op op;
  std::string name;
  std::string arg;
};

// nullopt with `why` set when the bytes are not a fake model or name an unknown op;
// "fail_load" is reported by the caller, so it parses as an error too.
inline std::optional<ParsedModel> parse_model(std::string_view bytes, std::string& why) {
  const size_t at = bytes.find("fake:");
  if (at == std::string_view::npos) {
    why = "fake: not a fake model (no \"fake:\" in builder 0)";
    return std::nullopt;
  }
  std::string_view text = bytes.substr(at + 5);
  text = text.substr(0, text.find_first_of(std::string_view("\0\n", 2)));
  const size_t colon = text.find(':');
  const std::string_view name = text.substr(0, colon);
  const std::string_view arg = colon == std::string_view::npos ? "" : text.substr(colon + 1);
  if (name == "fail_load") {
    why = "fake: load failed as asked";
    return std::nullopt;
  }
  static constexpr struct {
    std::string_view text;
    Op op;
  } kOps[] = {{"add1", Op::add1},           {"echo", Op::echo},
              {"stream", Op::stream},       {"block", Op::block},
              {"fail_context", Op::fail_context}, {"fail_compute", Op::fail_compute},
              {"bad_output", Op::bad_output}, {"describe_load", Op::describe_load}};
  for (const auto& k : kOps) {
    if (k.text == name) return ParsedModel{k.op, std::string(name), std::string(arg)};
  }
  why = "fake: unknown model op '" + std::string(name) + "'";
  return std::nullopt;
}

inline std::vector<std::string> split_tokens(std::string_view arg) {
  std::vector<std::string> out;
  if (arg.empty()) return out;
  for (size_t start = 0;;) {
    const size_t comma = arg.find(',', start);
    out.emplace_back(arg.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
    if (comma == std::string_view::npos) return out;
    start = comma + 1;
  }
}

// The io a model declares; arrays are static so they outlive every graph.
inline constexpr int64_t kRowsBy4[] = {-1, 4};
inline constexpr int64_t kAnyLength[] = {-1};

inline std::vector<wasinn_io_info> declared_io(Op op, bool outputs) {
  switch (op) {
    case Op::echo:
      return {{outputs ? "same" : "any", WASINN_TYPE_UNKNOWN, -1, nullptr}};
    case Op::stream:
      return {{outputs ? "text" : "prompt", WASINN_TYPE_U8, 1, kAnyLength}};
    case Op::describe_load:
      if (!outputs) return {};
      return {{"description", WASINN_TYPE_U8, 1, kAnyLength}};
    default:
      return {{outputs ? "y" : "x", WASINN_TYPE_F32, 2, kRowsBy4}};
  }
}

inline size_t element_size(int32_t type) {
  switch (type) {
    case WASINN_TYPE_F16: case WASINN_TYPE_BF16: return 2;
    case WASINN_TYPE_F32: case WASINN_TYPE_I32: return 4;
    case WASINN_TYPE_F64: case WASINN_TYPE_I64: return 8;
    case WASINN_TYPE_U8: case WASINN_TYPE_I8: return 1;
    default: return 0;
  }
}

}  // namespace fake
