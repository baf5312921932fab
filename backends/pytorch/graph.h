// A loaded TorchScript module, shared by all contexts of the graph, plus the inputs and outputs
// forward's schema declares. TorchScript declares neither dtypes nor shapes: every IoDesc has
// type unknown and rank -1. Inputs are forward's arguments (names included); outputs are what
// the declared return type tells (one for Tensor, one per Tuple element, named for a
// NamedTuple, none for a list or dict, whose length is known only after a compute).
#pragma once

#include <memory>
#include <span>
#include <vector>

#include "wasinn/plugin_sdk.hpp"

namespace wasinn::pytorch {

using sdk::Error;

class TorchContext;
struct TorchModule;  // torch_module.h

class TorchGraph : public sdk::DeclaredIo {
 public:
  static Error load(const sdk::LoadRequest &request, std::unique_ptr<TorchGraph> &out);
  TorchGraph();
  ~TorchGraph();

  Error create_context(std::unique_ptr<TorchContext> &out);

  const TorchModule &module() const { return *module_; }

 private:
  std::unique_ptr<TorchModule> module_;
};

}  // namespace wasinn::pytorch
