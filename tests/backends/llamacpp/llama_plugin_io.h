// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The llamacpp plugin through its C table as the tests that compare it with llama-server drive
// it: a model loaded from a path with a JSON config, text inputs by index, compute, outputs as text.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "plugin_harness.h"

namespace wasinn_test::llama_io {

using json = nlohmann::ordered_json;  // a tool's parameters keep their order, as in the request

inline const wasinn_backend_api& api() { return plugin_api("llamacpp"); }
inline Backend& backend() {
  static Backend b(api());
  return b;
}

struct Loaded {
  Graph graph;
  int status = -1;
  std::string detail;
};

inline Loaded load_path(const std::string& path, const json& config, Backend& b = backend()) {
  LoadArgs args = model_args("ggml", {read_file(path)});
  args.paths = {path};
  args.config = config.dump();
  Loaded r;
  Diag d;
  r.status = load(b, args, r.graph, d);
  r.detail = d.detail;
  return r;
}

inline int set_text(wasinn_context* c, uint32_t index, const std::string& text, std::string* detail = nullptr) {
  Diag d;
  const int s = set_input(api(), c, by_index(index), WASINN_TYPE_U8, {static_cast<uint32_t>(text.size())},
                          std::vector<uint8_t>(text.begin(), text.end()), d);
  if (detail) *detail = d.detail;
  return s;
}

inline int compute(wasinn_context* c) {
  Diag d;
  const int s = api().compute(c, &d);
  EXPECT_EQ(s, WASINN_OK) << d.detail;
  return s;
}

inline std::string output_text(wasinn_context* c, uint32_t index) {
  const auto b = output_bytes(api(), c, by_index(index), WASINN_TYPE_U8);
  return {b.begin(), b.end()};
}

inline json metadata(wasinn_context* c) { return json::parse(output_text(c, 1)); }

}  // namespace wasinn_test::llama_io
