// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/* The table wit_host.h's functions are: one slot per function of the WIT interfaces the table
 * serves (wasi:nn's three versions, wasinn:nn-ext), generated from the WIT files into
 * wasinn_wit_slots.h (src/engine/wasmtime/wit_slots.rs gives the rules; the build copies it
 * into the build tree's engine/include/), then the slots that are no WIT function. Ownership,
 * threads and statuses: wit_host.h. Filled by engine/wit_nn_imports.cpp, by name.
 * What the WIT does not say: the prompt interface's string errors (`out->message`) are the
 * error-code case, a colon and the detail; prompt_init's context is dropped as
 * WASINN_WIT_CONTEXT; context_start sets its `input` ("prompt" or "messages") to `text`. */
#ifndef WASINN_ENGINE_WIT_HOST_TABLE_H
#define WASINN_ENGINE_WIT_HOST_TABLE_H

#include "engine/wit_host.h"

#include <wasinn_wit_slots.h>

#ifdef __cplusplus
extern "C" {
#endif

struct wasinn_wit_host {
  WASINN_WIT_SLOTS
  /* the guest dropped its handle */
  wasinn_wit_status (*drop)(void* guest, wasinn_wit_resource kind, uint32_t rep, wasinn_wit_out* out);
  /* wasinn:nn-async (WASI 0.3 guests) and serving's lanes run a call's framework work on another
   * thread. guest_share: a share of the guest's wasi-nn state (out->data) for ONE call, that any
   * thread may pass as `guest` to the table's functions that touch no guest memory (nn-async:
   * graph_execution_context_compute_inputs, context_start, context_next, drop, cancel; the lanes'
   * long calls: graph_load with copied builders, graph_load_by_name,
   * graph_execution_context_compute and _compute_inputs, prompt_init, context_compute,
   * context_start, context_next), concurrently with the store's own calls; it outlives the store
   * until guest_release. Its calls are the call's steps (core/async_call.h): they wait for a
   * busy context, a generation holds its context from context_start to the end of context_next,
   * and once the store's owner has ended the guest's async calls they TRAP at once. cancel: asks
   * the compute running on `context` (if any) to stop, callable from any thread; through a
   * share, it cancels that call alone, even before its compute starts. */
  wasinn_wit_status (*guest_share)(void* guest, wasinn_wit_out* out);
  void (*guest_release)(void* shared);
  wasinn_wit_status (*cancel)(void* guest, uint32_t context, wasinn_wit_out* out);
};

#ifdef __cplusplus
}
#endif

#endif
