// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// How external delegates reach LiteRT 2.x: through its accelerator registry. LiteRT's
// CompiledModel applies every registered accelerator in registration order, each through a
// classic TfLiteDelegate it gets from the accelerator's CreateDelegate callback
// (LiteRtWrapDelegate wraps a TfLiteDelegate *). The plugin registers one accelerator of its own,
// "ExternalDelegates", which hands LiteRT the delegate the current compilation asked for (or none,
// which LiteRT skips). Its CPU accelerator (XNNPACK) would take every node it can if it came
// first, so an environment with delegates is created without it and registers it by hand after
// ours: the external delegate takes its nodes first and XNNPACK the rest.
//
// Each delegate LiteRT gets is a counting wrapper around the library's delegate: its Prepare
// forwards to the library's and counts the nodes that left the execution plan, so a delegate that
// claims nothing is an error at load and the load can say how many nodes each delegate took.
#pragma once

#include <cstdint>
#include <string>

#include "delegate_library.h"
#include "litert_c_api.h"
#include "litert_status.h"

namespace wasinn::tensorflowlite {

// What one compilation (one LiteRtCreateCompiledModel call) asks of the accelerator, and what
// the delegate did. Lives on the compiling thread's stack.
struct DelegateRequest {
  const DelegateLibrary* library = nullptr;  // null: no external delegate for this compilation
  uint64_t id = 0;                           // set by ScopedDelegateRequest
  // Filled during the compilation.
  bool created = false;
  int claimed_nodes = 0;  // nodes the delegate replaced with its kernels
  int offered_nodes = 0;  // nodes of the plan it was offered
  std::string error;      // why the delegate could not be created or prepared
};

// Makes `request` the one the accelerator serves on this thread while the object lives.
class ScopedDelegateRequest {
 public:
  explicit ScopedDelegateRequest(DelegateRequest& request);
  ~ScopedDelegateRequest();
  ScopedDelegateRequest(const ScopedDelegateRequest&) = delete;
  ScopedDelegateRequest& operator=(const ScopedDelegateRequest&) = delete;

 private:
  DelegateRequest* previous_;
};

inline constexpr const char* kDelegateAcceleratorName = "ExternalDelegates";

// The environment option that keeps LiteRtCreateEnvironment from registering the CPU
// accelerator (it still registers the GPU and NPU ones it finds).
LiteRtEnvOption without_cpu_auto_registration();

// Registers the ExternalDelegates accelerator, then LiteRT's CPU accelerator from its exported
// definition. RUNTIME_ERROR when that definition is not the layout of LiteRT 2.3.0.
Error register_delegates_before_cpu(LiteRtEnvironment env);

}  // namespace wasinn::tensorflowlite
