// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// WitSession's wasinn:nn-ext and nn-async calls: the same session and handles as wasi:nn's, so
// every WIT call a component makes goes through this layer.
#include <utility>

#include "abi/wit_nn.h"

namespace wasinn::wit_nn {

Status WitSession::borrow_graph(uint32_t graph) const {
  if (auto g = session_->graph(graph); !g) return g.take_error();
  return {};
}

Status WitSession::borrow_context(uint32_t context) const { return session_->check_context(context); }

Result<std::vector<WitSession::Io>> WitSession::describe(uint32_t graph, bool outputs) const {
  auto g = session_->graph(graph);
  if (!g) return g.take_error();
  // The guest's handle keeps the graph, and so the names and dims viewed here, alive.
  const auto& side = outputs ? (*g)->outputs() : (*g)->inputs();
  std::vector<Io> io;
  io.reserve(side.size());
  for (const auto& info : side) {
    Io one{info.name, {}, std::nullopt};
    if (info.type) {
      if (auto t = tensor_type_case(*info.type)) one.type = *t;
    }
    if (info.dims) one.dims = std::span<const int64_t>(*info.dims);
    io.push_back(one);
  }
  return io;
}

Result<std::vector<GraphProperty>> WitSession::properties(uint32_t graph) const { return session_->properties(graph); }

Result<std::string> WitSession::get_property(uint32_t graph, std::string_view name) const {
  return session_->get_property(graph, name);
}

Status WitSession::set_graph_property(uint32_t graph, std::string_view name, std::string_view value) {
  return session_->set_graph_property(graph, name, value);
}

Status WitSession::set_context_property(uint32_t context, std::string_view name, std::string_view value) {
  return session_->set_context_property(context, name, value);
}

Result<uint32_t> WitSession::init_prompt_context(uint32_t graph) { return session_->init_prompt_context(graph); }

Result<std::string> WitSession::prompt(uint32_t context, std::string_view text) {
  return session_->prompt(context, text);
}

Status WitSession::prompt_start(uint32_t context, std::string_view input, std::string_view text) {
  return session_->prompt_start(context, input, text);
}

Result<std::optional<std::string>> WitSession::prompt_next(uint32_t context) { return session_->prompt_next(context); }

Result<std::string> WitSession::prompt_metadata(uint32_t context) { return session_->prompt_metadata(context); }

Status WitSession::cancel(uint32_t context) { return session_->cancel(context); }

}  // namespace wasinn::wit_nn
