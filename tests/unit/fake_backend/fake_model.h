// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What a fake backend "model" is: the text "fake:<op>[:<arg>]" at the start of (or anywhere
// in) builder 0, so host tests can pick a behaviour per graph. Parsing, the io each op declares
// and the text "fake:describe_load" answers live here; fake_backend.cpp runs them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "wasinn/plugin_sdk.hpp"

namespace wasinn::fake {

enum class Op {
  add1,           // output 0 = f32 input 0 + 1
  echo,           // output 0 = input 0, any type, unchanged
  stream,         // arg "a,b,c": compute_single yields one token at a time
  block,          // add1, but compute waits at the test-controlled gate first
  fail_context,   // context_create fails
  fail_compute,   // compute fails
  bad_output,     // get_output returns a tensor whose length does not match its dims
  describe_load,  // output 0 = text describing the load request (builders, target, config...)
};
// "fake:slow_load:MS" is add1 whose load first sleeps MS milliseconds (a long load, for the host's
// progress line); "fake:slow_input:MS" is add1 whose set_input sleeps MS milliseconds (work no cancel
// reaches, for the request deadline).

struct Model {
  Op op = Op::add1;
  std::string name;
  std::string arg;
};

// Reads the model in builder 0. Not a fake model, or an unknown op, is INVALID_ARGUMENT (the
// bytes are wrong); "fake:fail_load" is RUNTIME_ERROR, as a framework failing to load would be.
inline sdk::Error parse_model(std::string_view bytes, Model& out) {
  const size_t at = bytes.find("fake:");
  if (at == std::string_view::npos) return sdk::invalid("fake: not a fake model (no \"fake:\" in builder 0)");
  std::string_view text = bytes.substr(at + 5);
  text = text.substr(0, text.find_first_of(std::string_view("\0\n", 2)));
  const size_t colon = text.find(':');
  const std::string_view name = text.substr(0, colon);
  const std::string_view arg = colon == std::string_view::npos ? "" : text.substr(colon + 1);
  if (name == "fail_load") return sdk::runtime_error("fake: load failed as asked");
  static constexpr struct {
    std::string_view text;
    Op op;
  } kOps[] = {{"add1", Op::add1},
              {"echo", Op::echo},
              {"stream", Op::stream},
              {"block", Op::block},
              {"fail_context", Op::fail_context},
              {"fail_compute", Op::fail_compute},
              {"bad_output", Op::bad_output},
              {"describe_load", Op::describe_load},
              {"slow_load", Op::add1},
              {"slow_input", Op::add1}};
  for (const auto& k : kOps) {
    if (k.text == name) {
      out = Model{k.op, std::string(name), std::string(arg)};
      return {};
    }
  }
  return sdk::invalid("fake: unknown model op '" + std::string(name) + "'");
}

// "a,b,c" -> {"a", "b", "c"}; "" -> {}.
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

// The inputs or outputs a model declares.
inline std::vector<sdk::IoDesc> declared_io(Op op, sdk::Side side) {
  const bool out = side == sdk::Side::output;
  switch (op) {
    case Op::echo:  // any type, any shape: reported to the host as an unknown type and rank
      return {{out ? "same" : "any", WASINN_TYPE_UNKNOWN, -1, {}, "", ""}};
    case Op::stream: return {{out ? "text" : "prompt", WASINN_TYPE_U8, 1, {-1}, "", ""}};
    case Op::describe_load:
      if (!out) return {};
      return {{"description", WASINN_TYPE_U8, 1, {-1}, "", ""}};
    default: return {{out ? "y" : "x", WASINN_TYPE_F32, 2, {-1, 4}, "", ""}};
  }
}

// What "fake:describe_load" computes: the load request as the plugin saw it, e.g.
// "builders=2 target=0 encoding=onnx config=- paths=-,- b1=<builder 1's bytes>".
inline std::string describe_load(const sdk::LoadRequest& r) {
  const auto builders = r.builders();
  auto or_dash = [](std::string_view s) { return s.empty() ? std::string("-") : std::string(s); };
  std::string s = "builders=" + std::to_string(builders.size()) + " target=" + std::to_string(r.target()) +
                  " encoding=" + or_dash(r.encoding()) + " config=" + or_dash(r.config()) + " paths=";
  for (size_t i = 0; i < builders.size(); ++i) s += (i ? "," : "") + std::string(r.path(i) ? r.path(i) : "-");
  for (size_t i = 1; i < builders.size(); ++i)
    s += " b" + std::to_string(i) + "=" +
         std::string(reinterpret_cast<const char*>(builders[i].data), builders[i].length);
  return s;
}

}  // namespace wasinn::fake
