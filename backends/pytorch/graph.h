// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A loaded TorchScript module, shared by all contexts of the graph, plus the inputs and outputs
// forward's schema declares. Inputs are forward's arguments (names included); outputs are what
// the declared return type tells: one for a Tensor or scalar ("output0"), a tuple's elements
// depth-first (named for NamedTuple fields, else "output<i>"), none for a list or dict, whose
// length is known only after a compute (then a list's elements are "output<i>", a dict's entries
// its keys). TorchScript declares no tensor dtypes or shapes (type unknown, rank -1); int, float
// and bool slots declare i64, f64 and u8 of rank 0. Each slot's framework_type is its
// TorchScript type ("TorchScript Optional[int]").
#pragma once

#include <memory>
#include <span>
#include <vector>

#include "wasinn/plugin_sdk.hpp"

namespace wasinn::pytorch {

using sdk::Error;

class TorchBackend;
class TorchContext;
struct TorchModule;  // torch_module.h

class TorchGraph : public sdk::DeclaredIo {
 public:
  static Error load(const TorchBackend& backend, const sdk::LoadRequest& request, std::unique_ptr<TorchGraph>& out);
  TorchGraph();
  ~TorchGraph();

  Error create_context(std::unique_ptr<TorchContext>& out);

  const TorchModule& module() const { return *module_; }
  // "device": where forward runs ("cpu", "cuda:0"), for guests and `models inspect`.
  std::span<const sdk::Property> properties() const { return properties_; }
  Error check_property(std::string_view name, std::string_view value) const;

 private:
  std::unique_ptr<TorchModule> module_;
  std::vector<sdk::Property> properties_;
};

}  // namespace wasinn::pytorch
