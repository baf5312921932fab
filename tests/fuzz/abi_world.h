// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AbiWorld: what an ABI fuzz target runs against, built once per process: the NnEnvironment
// (fake backends or the real ONNX Runtime plugin, with named models registered), the guest
// memory layout with its well-formed structures, and the checks that need the backend's view.
// Defined by fake_world.cpp or ort_world.cpp; each target links exactly one of them.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string_view>

#include "abi/ephemeral_nn.h"
#include "core/nn_environment.h"
#include "root/wired_environment.h"
#include "fuzz_guest.h"

namespace wasinn::fuzz {

struct AbiWorld {
  std::shared_ptr<NnEnvironment> env;
  GuestLayout layout{0};
  // Runs before every load call, on the guest memory the load will read.
  void (*before_load)(FuzzGuest&) = [](FuzzGuest&) {};
  // Runs after each input's session is destroyed: object-count checks.
  void (*after_input)() = [] {};
};

const AbiWorld& abi_world();

[[noreturn]] inline void invariant_failed(const char* call, const char* what) {
  std::fprintf(stderr, "fuzz invariant: %s: %s\n", call, what);
  std::abort();
}

// A call's result is success or an error whose errno is in the witx table and whose detail
// tells the user something. WASINN_FUZZ_TRACE=1 prints each call's result, to see how deep an input gets.
inline void check_status(const Status& s, const char* call) {
  const int32_t e = ephemeral_nn::errno_of(s);
  static const bool trace = std::getenv("WASINN_FUZZ_TRACE") != nullptr;
  if (trace) std::fprintf(stderr, "%s -> %d %s\n", call, e, s.ok() ? "" : s.error().detail.c_str());
  if (!((e >= 0 && e <= 8) || (e >= 100 && e <= 103))) invariant_failed(call, "errno outside the witx table");
  if (!s.ok() && s.error().detail.empty()) invariant_failed(call, "error without a detail");
}

}  // namespace wasinn::fuzz
