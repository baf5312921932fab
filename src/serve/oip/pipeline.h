// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Pipeline: what the OIP server serves as a model in front of models: its inputs and outputs,
// and infer over named tensors. A wasm component implements it (serve/pipeline/component_pipeline, wired
// by the CLI), so this layer knows no engine. Thread-safe: infer runs on many workers at once.
#pragma once

#include <span>
#include <vector>

#include "core/error.h"
#include "core/graph.h"
#include "core/named_io.h"

namespace wasinn::oip_server {

class Pipeline {
 public:
  virtual ~Pipeline() = default;
  virtual const std::vector<IoInfo>& inputs() const = 0;  // every IoInfo has a type and dims
  virtual const std::vector<IoInfo>& outputs() const = 0;
  // invalid_argument: the request does not fit (400); other codes as the core's.
  virtual Result<std::vector<NamedTensor>> infer(std::span<const NamedInput> inputs) = 0;
};

}  // namespace wasinn::oip_server
