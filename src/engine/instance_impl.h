// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Instance::Impl: one instantiated program, a core module (module_instance) or a component
// (component_instance): two peers behind the same two operations. Used from one thread at a
// time, as Instance is.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "engine/module_bytes.h"  // program_name, for the peers
#include "wasinn/host.h"

namespace wasinn {

struct Instance::Impl {
  virtual ~Impl() = default;
  // Runs the program's entry (its command, or Program::invoke) to completion. `self` owns this
  // Impl: a wasi-threads guest's main thread keeps it alive past the call if it must.
  virtual RunOutcome run(std::shared_ptr<Instance> self, const Program& program) = 0;
  // Calls an export taking no arguments and returning nothing or one integer.
  virtual bool call(const std::string& export_name, int32_t* result, std::string* error) = 0;
  static Impl& of(Instance& instance) { return *instance.impl_; }
};

}  // namespace wasinn
