// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/* serve/pipeline's Rust half, the pipeline host (the crate src/serve/pipeline): a component
 * exporting wasinn:pipeline/model@0.1.0 (wit/wasinn-pipeline), with WASI 0.2 and wasi:nn (served
 * through the wit_host.h table) linked in. serve/pipeline/component_pipeline.cpp drives it.
 *
 * Ownership: the config is read during wasinn_pipeline_new only; its engine, component, table
 * and user pointer must outlive the pipeline, which must outlive its instances. An instance owns
 * the GuestState it was made with and frees it through the config's guest_free. What an answer
 * points to (tensors, specs, message) belongs to the instance and is valid until its next call.
 * Threads: a pipeline may instantiate from several threads at once; an instance is used by one
 * thread at a time.
 * Errors: new and instantiate return a wasmtime error (no such export, a wrong signature, an
 * unserved import), else NULL. describe and infer fill an answer: status 0 ok; 1 the guest's
 * invalid-input and 2 its failed, with its message; 3 a trap or a host failure, with the reason,
 * after which the instance only answers 3 and should be freed. */
#ifndef WASINN_SERVE_PIPELINE_PIPELINE_HOST_H
#define WASINN_SERVE_PIPELINE_PIPELINE_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <wasmtime.h>

#include "engine/wit_host.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct wasinn_pipeline_config {
  const wasm_engine_t* engine; /* with epoch interruption, ticked by the caller */
  const wasmtime_component_t* component;
  const wasinn_wit_host* nn;
  uint64_t max_memory_bytes; /* per linear memory; 0: no limit */
  size_t hostcall_fuel;      /* bytes one host call may lift (wit_host.h) */
  bool inherit_stdio;        /* the guest's stdout and stderr are the process's */
  void* user;
  void (*guest_free)(void* user, void* guest);
} wasinn_pipeline_config;

/* A tensor of a request or an answer; type is a tensor-type case name ("FP32"). */
typedef struct wasinn_pipeline_tensor {
  wasinn_wit_str name;
  const uint32_t* dims;
  size_t rank;
  wasinn_wit_str type;
  wasinn_wit_bytes data;
} wasinn_pipeline_tensor;

/* An input or output of describe; a dimension of -1 takes any size. */
typedef struct wasinn_pipeline_spec {
  wasinn_wit_str name;
  wasinn_wit_str type;
  const int64_t* dims;
  size_t rank;
} wasinn_pipeline_spec;

typedef struct wasinn_pipeline_answer {
  int32_t status;
  const wasinn_pipeline_tensor* tensors; /* infer's outputs */
  size_t count;
  const wasinn_pipeline_spec* specs; /* describe's: `inputs` inputs, then `outputs` outputs */
  size_t inputs;
  size_t outputs;
  wasinn_wit_str message;
  const wasinn_wit_str* models; /* describe's: the models it loads by name (its optional `models` export) */
  size_t model_count;
} wasinn_pipeline_answer;

typedef struct wasinn_pipeline wasinn_pipeline;
typedef struct wasinn_pipeline_instance wasinn_pipeline_instance;

wasmtime_error_t* wasinn_pipeline_new(const wasinn_pipeline_config* config, wasinn_pipeline** out);
void wasinn_pipeline_free(wasinn_pipeline* pipeline);
/* deadline_ticks, here and below: the call's epoch deadline in the caller's ticks from now; 0:
 * none. Past it, instantiate fails with an error that says "interrupt"; describe and infer
 * answer 3 with that word. */
/* A store and instance over `guest` (a GuestState, the table's `guest`), which it then owns. */
wasmtime_error_t* wasinn_pipeline_instantiate(const wasinn_pipeline* pipeline, void* guest, uint64_t deadline_ticks,
                                              wasinn_pipeline_instance** out);
void wasinn_pipeline_instance_free(wasinn_pipeline_instance* instance);
void wasinn_pipeline_describe(wasinn_pipeline_instance* instance, uint64_t deadline_ticks, wasinn_pipeline_answer* out);
void wasinn_pipeline_infer(wasinn_pipeline_instance* instance, const wasinn_pipeline_tensor* inputs, size_t count,
                           uint64_t deadline_ticks, wasinn_pipeline_answer* out);

#ifdef __cplusplus
}
#endif

#endif
