// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * wasinn_nn_ext.h: wasinn's functions beyond the wasi-nn spec for core-module guests, as extra
 * imports of module "wasi_ephemeral_nn" in the style of WasmEdge's extensions (a guest that does
 * not import them sees nothing new). Include after wasi_nn.h. The component guests' version is
 * the WIT package wasinn:nn-ext@0.1.0 (wit/wasinn-nn-ext/nn-ext.wit); docs/compatibility.md,
 * "Beyond the spec", has both.
 *
 * Every function returns a wasi_nn_errno. Buffers work as get_output's: a buffer too small is
 * WASI_NN_TOO_LARGE, with the size it needs written to the length out-pointer and nothing else.
 */
#ifndef WASINN_NN_EXT_H_
#define WASINN_NN_EXT_H_

#include <stdint.h>

#include "wasi_nn.h"

#ifdef __cplusplus
extern "C" {
#endif

#define WASINN_IO_INPUTS 0u
#define WASINN_IO_OUTPUTS 1u
/* graph_io_info's type when witx's tensor_type has no number for it (bf16, int8, strings). */
#define WASINN_TYPE_NONE 255u
/* graph_io_info's rank when the model does not declare one. */
#define WASINN_RANK_UNKNOWN 0xFFFFFFFFu

#define WASINN_NN_EXT_IMPORT(name) __attribute__((import_module("wasi_ephemeral_nn"), import_name(name)))

/* How many inputs (side 0) or outputs (side 1) the graph has. */
WASINN_NN_EXT_IMPORT("graph_io_count")
int32_t wasinn_graph_io_count(wasi_nn_graph graph, uint32_t side, uint32_t* count);

/* One input or output: its name (not NUL-terminated; "" when the framework has none), its witx
 * tensor_type (or WASINN_TYPE_NONE) and dims (-1 for a dynamic dimension; *rank is
 * WASINN_RANK_UNKNOWN, with no dims, when the rank is unknown). TOO_LARGE when the name or the
 * dims do not fit: *name_len and *rank then say what is needed. */
WASINN_NN_EXT_IMPORT("graph_io_info")
int32_t wasinn_graph_io_info(wasi_nn_graph graph, uint32_t side, uint32_t index, char* name, uint32_t name_max,
                             uint32_t* name_len, uint32_t* type, int64_t* dims, uint32_t dims_max, uint32_t* rank);

/* The names of the graph's properties, each followed by a NUL byte; *written is the total. */
WASINN_NN_EXT_IMPORT("graph_list_properties")
int32_t wasinn_graph_list_properties(wasi_nn_graph graph, char* buf, uint32_t buf_max, uint32_t* written);

/* A property's value (not NUL-terminated). INVALID_ARGUMENT for a name the graph lacks. */
WASINN_NN_EXT_IMPORT("graph_get_property")
int32_t wasinn_graph_get_property(wasi_nn_graph graph, const char* name, uint32_t name_len, char* buf, uint32_t buf_max,
                                  uint32_t* written);

/* Sets a settable property for the contexts this guest makes from `graph` afterwards.
 * INVALID_ARGUMENT for an unknown or read-only name or a value of the wrong type. */
WASINN_NN_EXT_IMPORT("graph_set_property")
int32_t wasinn_graph_set_property(wasi_nn_graph graph, const char* name, uint32_t name_len, const char* value,
                                  uint32_t value_len);

/* The same for one context: its next compute uses the value. */
WASINN_NN_EXT_IMPORT("context_set_property")
int32_t wasinn_context_set_property(wasi_nn_context ctx, const char* name, uint32_t name_len, const char* value,
                                    uint32_t value_len);

/* A text model in one call: the prompt in, the generated text out (input 0 and output 0 as
 * bytes). UNSUPPORTED_OPERATION for a graph that is not a text model. */
WASINN_NN_EXT_IMPORT("prompt")
int32_t wasinn_prompt(wasi_nn_context ctx, const char* prompt, uint32_t prompt_len, char* out, uint32_t out_max,
                      uint32_t* written);

#undef WASINN_NN_EXT_IMPORT

#ifdef __cplusplus
}
#endif

#endif /* WASINN_NN_EXT_H_ */
