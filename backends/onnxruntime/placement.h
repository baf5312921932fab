// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Where a graph runs: the execution provider its target asks for, and, once ORT made the session,
// where ORT actually put the model's nodes. ORT moves every node its CUDA provider cannot take to
// the CPU provider without a word, so a `gpu` load is checked against ORT's assignment rather than
// trusted.
#pragma once

#include <cstdint>
#include <string>

#include "ort_api.h"

namespace wasinn::onnxruntime {

class OrtBackend;

struct Placement {
  bool cuda = false;  // the CUDA provider goes ahead of the CPU's
  // What the graph reports once loaded: its "device" property ("gpu: CUDA0 <name>" or "cpu")
  // and, with CUDA, how many nodes each provider took.
  std::string device = "cpu", description;
};

// Chooses the provider: cpu never touches CUDA; auto takes CUDA when the backend found it; gpu
// needs it, or a config "fallback":"cpu" (then a warning says the load runs on the CPU).
// tpu has no ORT provider here. Refusals are UNSUPPORTED_OPERATION with the reason.
Error plan_placement(const OrtBackend& backend, int32_t target, bool fallback_cpu, Placement& out);

// Adds the chosen provider to the options, and asks ORT to record its node assignment.
Error apply_placement(const OrtBackend& backend, const Placement& placement, OrtSessionOptions* options);

// Reads ORT's node assignment of a session made with `placement`; a gpu load of which CUDA took
// no node is refused (unless fallback_cpu). Fills placement's device and description.
Error check_placement(const OrtBackend& backend, int32_t target, bool fallback_cpu, const OrtSession* session,
                      Placement& placement);

}  // namespace wasinn::onnxruntime
