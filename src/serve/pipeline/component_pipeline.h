// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ComponentPipeline: a pipeline component (wit/wasinn-pipeline: it exports wasinn:pipeline/model
// and imports wasi:nn) compiled once on an engine of its own, and the instances that serve it.
// An instance is a store over a GuestState of the shared NnEnvironment (so the registered models
// are the guest's load-by-name graphs, loaded once per process); it serves one request at a time
// and keeps its graphs between requests. Thread-safe: infer runs on many threads at once, each
// taking an idle instance or making one; an instance that trapped is dropped, never reused.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/graph.h"
#include "core/named_io.h"
#include "core/nn_environment.h"

namespace wasinn {

struct PipelineOptions {
  uint64_t max_memory_bytes = 0;  // per linear memory; 0: no limit
  uint64_t timeout_ms = 0;        // one call's deadline (instantiate, describe, infer); 0: none
  size_t max_idle = 8;            // idle instances kept
  bool inherit_stdio = true;      // the guest's stdout and stderr are the process's
};

class ComponentPipeline {
 public:
  // Compiles the component in `path` and asks it to describe itself: an error names the file
  // and what is wrong (not a component, no wasinn:pipeline/model export, an import wasinn does
  // not serve, describe trapped).
  static Result<std::unique_ptr<ComponentPipeline>> open(std::shared_ptr<NnEnvironment> env, const std::string& path,
                                                         const PipelineOptions& options);
  ~ComponentPipeline();
  ComponentPipeline(const ComponentPipeline&) = delete;
  ComponentPipeline& operator=(const ComponentPipeline&) = delete;

  // As the pipeline describes them: a type and dims each (-1: any size).
  const std::vector<IoInfo>& inputs() const;
  const std::vector<IoInfo>& outputs() const;
  // The registered models it loads by name, as its `models` export says (none without it).
  const std::vector<std::string>& models() const;

  // One request. The guest's invalid-input is invalid_argument; its failed is runtime_error; a
  // trap (or the deadline) is runtime_error (timeout) naming where, and ends that instance.
  Result<std::vector<NamedTensor>> infer(std::span<const NamedInput> inputs);

  struct Impl;

 private:
  explicit ComponentPipeline(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace wasinn
