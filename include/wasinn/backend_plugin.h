// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * wasinn backend plugin ABI, version 1.
 *
 * A backend is a shared library that exports one function, wasinn_backend_api_v1(),
 * returning a table of plain C functions. It depends on neither the WebAssembly engine nor
 * wasinn's C++ types, so a plugin built once works with every wasinn of the same ABI version.
 * The host finds plugins through a manifest (<dir>/<name>.json, see docs/ARCHITECTURE.md) and
 * dlopens one only when a guest first uses one of its encodings.
 *
 * Three opaque objects, as in Wasmtime's backend traits:
 *   wasinn_backend  one per process and plugin; owns framework-wide state (an ORT env, an OV core).
 *   wasinn_graph    a loaded model. Shared by many contexts, possibly across guest instances.
 *   wasinn_context  one inference session of a graph: its inputs, its last outputs.
 *
 * Ownership: every object a plugin creates is released by the host exactly once with the
 * matching release or destroy function; a graph is released only after all its contexts.
 * Memory the host passes in (builders, tensors, names, config) is valid only during the call:
 * a plugin copies what it keeps. Memory a plugin returns (io info, output tensors) stays valid
 * as stated per function.
 *
 * Thread safety: backend- and graph-level functions may be called from several threads at
 * once and must be safe. A context is used by one thread at a time (the host guarantees it),
 * except cancel(), which may be called from any thread while compute() runs.
 *
 * Errors: every int-returning function returns a wasinn_status. On failure it should call
 * wasinn_diag_set() with a one-line human-readable detail; the host maps the status to the
 * guest ABI's errno and shows the detail to the user.
 *
 * One rule per mistake, the same in every backend (include/wasinn/plugin_sdk.hpp implements
 * them once; a plugin written without it must still follow them):
 *   - A tensor id the model does not have (index out of range, or a name no input/output
 *     carries) is WASINN_INVALID_ARGUMENT, with a detail that lists the valid indices or
 *     names. Not NOT_FOUND: the guest passed a bad argument to a call on a model it holds;
 *     NOT_FOUND is kept for things looked up outside the call (a named model, a signature, a
 *     file). WIT's `invalid-argument` for an unknown tensor name agrees.
 *   - A tensor whose type, rank or static dims differ from the model's declaration, a
 *     missing required input at compute, and get_output before any compute are
 *     WASINN_INVALID_ARGUMENT (llama.cpp alone answers the last with empty text, as WasmEdge's
 *     GGML plugin does, because its guests rely on it). A tensor byte size that overflows size_t is WASINN_TOO_LARGE.
 *     A model that is valid but uses something this framework build cannot run (a device,
 *     an element type no wasinn type carries) is WASINN_UNSUPPORTED_OPERATION.
 *   - Already checked by the host, so a plugin need not repeat it: every pointer and length
 *     a guest gave (the ABI decodes them from guest memory), enum values (type and target
 *     are in range), data_length == product(dims) * element size (except for ggml, below),
 *     the limits (tensor bytes, rank, builder count, model bytes, config size), and that a
 *     context is used by one thread at a time. A plugin may re-check any of these cheaply as a
 *     second line of defence, with the statuses above; it must not rely on the guest for them.
 *   - Everything framework-specific stays the plugin's: whether a model's bytes are valid,
 *     whether a shape fits a dynamic declaration, what a config key means.
 *
 * Logging: a plugin does not write to stdout or stderr itself. The host hands it a
 * wasinn_log_sink (set_log_sink, below) before backend_create; framework log lines go there,
 * tagged by the host with the backend's name.
 */
#ifndef WASINN_BACKEND_PLUGIN_H_
#define WASINN_BACKEND_PLUGIN_H_

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

#define WASINN_PLUGIN_ABI_VERSION 1u
#define WASINN_PLUGIN_ENTRY_SYMBOL "wasinn_backend_api_v1"

#if defined(__GNUC__)
#define WASINN_PLUGIN_EXPORT __attribute__((visibility("default")))
#else
#define WASINN_PLUGIN_EXPORT
#endif

/* Status codes. The names follow the witx nn_errno; the numbers are this ABI's own. */
typedef enum wasinn_status {
  WASINN_OK = 0,
  WASINN_INVALID_ARGUMENT = 1,
  WASINN_INVALID_ENCODING = 2,
  WASINN_MISSING_MEMORY = 3,
  WASINN_BUSY = 4,
  WASINN_RUNTIME_ERROR = 5,
  WASINN_UNSUPPORTED_OPERATION = 6,
  WASINN_TOO_LARGE = 7,
  WASINN_NOT_FOUND = 8,
  WASINN_TIMEOUT = 9,
  WASINN_SECURITY = 10,
  WASINN_UNKNOWN = 11,
  /* LLM streaming codes, WasmEdge's numbering. */
  WASINN_END_OF_SEQUENCE = 100,
  WASINN_CONTEXT_FULL = 101,
  WASINN_PROMPT_TOO_LONG = 102,
  WASINN_MODEL_NOT_FOUND = 103
} wasinn_status;

/* Element types. This ABI's own numbering; guest ABIs translate their numbers to these. */
typedef enum wasinn_tensor_type {
  WASINN_TYPE_F16 = 0,
  WASINN_TYPE_F32 = 1,
  WASINN_TYPE_F64 = 2,
  WASINN_TYPE_BF16 = 3,
  WASINN_TYPE_U8 = 4,
  WASINN_TYPE_I32 = 5,
  WASINN_TYPE_I64 = 6,
  WASINN_TYPE_I8 = 7,       /* reported by backends (quantized models); no guest ABI has it yet */
  WASINN_TYPE_UNKNOWN = 255 /* in io info only: a type no guest ABI can express */
} wasinn_tensor_type;

typedef enum wasinn_target {
  WASINN_TARGET_CPU = 0,
  WASINN_TARGET_GPU = 1,
  WASINN_TARGET_TPU = 2,
  WASINN_TARGET_AUTO = 3
} wasinn_target;

/* Where a plugin reports failure details. Set by the host; plugins call wasinn_diag_set(). */
typedef struct wasinn_diag {
  void* host_data;
  void (*set_detail)(void* host_data, const char* message, size_t length);
} wasinn_diag;

static inline void wasinn_diag_set(wasinn_diag* diag, const char* message) {
  if (diag && diag->set_detail && message) diag->set_detail(diag->host_data, message, strlen(message));
}

/* Severity of a log line, as the framework rated it. The host decides what is shown. */
typedef enum wasinn_log_level {
  WASINN_LOG_TRACE = 0,
  WASINN_LOG_DEBUG = 1,
  WASINN_LOG_INFO = 2,
  WASINN_LOG_WARN = 3,
  WASINN_LOG_ERROR = 4,
  WASINN_LOG_OFF = 5
} wasinn_log_level;

/* OR'ed into a log line's level: the line is the backend's own word to the operator (a choice it
   made, such as running on the CPU because a delegate failed), not its framework's, and the host
   shows it at its level rather than one below. A host that predates the flag shows it at trace. */
#define WASINN_LOG_OWN 0x100

/* Where a plugin sends framework log lines. The plugin copies the struct; host_data and write stay
   valid for the rest of the process (plugins are never unloaded, and frameworks log from their
   own threads and static destructors), and write() may be called from any thread at any time. min_level is the lowest
   level the host showed when it installed the sink: a plugin may tell its framework not to produce lines below it. */
typedef struct wasinn_log_sink {
  void* host_data;
  void (*write)(void* host_data, int32_t level, const char* message, size_t length);
  int32_t min_level; /* wasinn_log_level */
} wasinn_log_sink;

typedef struct wasinn_bytes {
  const uint8_t* data;
  size_t length;
} wasinn_bytes;

/* A tensor is addressed by index (name == NULL) or by name (not NUL-terminated). */
typedef struct wasinn_tensor_id {
  uint32_t index;
  const char* name;
  size_t name_length;
} wasinn_tensor_id;

/* A dense row-major tensor. data_length is exactly product(dims) * element size. */
typedef struct wasinn_tensor {
  int32_t type; /* wasinn_tensor_type */
  uint32_t rank;
  const uint32_t* dims;
  const void* data;
  size_t data_length;
} wasinn_tensor;

/* What a model declares for one input or output. Strings and arrays live as long as the graph. */
typedef struct wasinn_io_info {
  const char* name;    /* NUL-terminated; "" if the framework has no names */
  int32_t type;        /* wasinn_tensor_type */
  int32_t rank;        /* -1 when unknown */
  const int64_t* dims; /* rank entries; -1 for a dynamic dimension */
} wasinn_io_info;

/* A settable knob the host itself sets, to "true", on each context it makes for a guest ABI
   whose outputs carry their element type and dims (WIT's tensors); witx's get_output hands a
   guest bytes alone, and those contexts never get it. A plugin declares it among its properties
   only when an output's form depends on it (llama.cpp's embedding: F32 when typed, else the JSON
   text WasmEdge's guests parse). Other plugins need do nothing. */
#define WASINN_PROPERTY_TYPED_OUTPUTS "wasinn.typed-outputs"

/* A knob the host itself sets on each context it makes for a served request: the partition of a
   prompt cache the context's prompts may reuse KV from (text, at most 256 bytes; one per API key,
   so one client can neither read nor time another's prompts). A guest can never set it (the host
   refuses the name); a plugin without a prompt cache ignores it and need not declare it. */
#define WASINN_PROPERTY_CACHE_PARTITION "wasinn.cache-partition"

/* One property of a graph (graph_property_info). */
typedef struct wasinn_property {
  const char* name;
  const char* value; /* a fact's value, or a settable knob's default */
  int32_t settable;  /* 1: property_set takes it */
} wasinn_property;

/* One device a backend can run graphs on (backend_device_info). */
typedef struct wasinn_device {
  const char* name;      /* the framework's name for it, e.g. "llvmpipe (LLVM 15.0.6, 256 bits)" */
  const char* api;       /* how the backend reaches it, e.g. "Vulkan", "CUDA", "CPU" */
  uint64_t memory_bytes; /* 0 when unknown */
  int32_t target;        /* the wasinn_target it serves */
} wasinn_device;

typedef struct wasinn_load_request {
  uint32_t struct_size;         /* sizeof(wasinn_load_request) of the host; lets the struct grow */
  const char* encoding;         /* the encoding's name, e.g. "onnx", as in the plugin's manifest */
  int32_t target;               /* wasinn_target */
  const wasinn_bytes* builders; /* the graph builders, in the guest's order */
  size_t builder_count;
  /* For models registered by the host (preload): the file each builder was mapped from, else
     NULL. A plugin may open the file itself (e.g. to mmap it) instead of reading the bytes. */
  const char* const* paths;
  const char* config; /* JSON text from load_by_name_with_config or a config builder; may be NULL */
  size_t config_length;
  /* Added after the first release of ABI 1 (plugins check struct_size): WASINN_LOAD_* bits. */
  uint32_t flags;
} wasinn_load_request;

/* The host may call cancel on this graph's contexts (it enforces a compute budget). Without it a
   plugin need not pay for cancellation, e.g. run a synchronous compute instead of an
   interruptible one. */
#define WASINN_LOAD_MAY_CANCEL 1u

/* What a context's language model did since the host last asked (context_take_token_stats): the
   tokens it evaluated and generated and how long they took, for the host's token metrics. The host
   sets struct_size to its sizeof and zeroes the rest; a plugin writes only the fields that fit in
   struct_size, so either side may be older. Times are the plugin's own (steady clock), from the
   start of the compute or compute_single that began the generation; the host's queueing is not in them. */
typedef struct wasinn_token_stats {
  uint32_t struct_size;
  uint32_t first_tokens;      /* generations whose first token came in this span (0 or 1 per call) */
  uint64_t prompt_tokens;     /* prompt tokens evaluated */
  uint64_t generated_tokens;  /* tokens generated (sampled and handed to the guest) */
  uint64_t first_token_nanos; /* with first_tokens 1: from the generation's start to its first token */
  uint64_t decode_tokens;     /* generated tokens after a generation's first one */
  uint64_t decode_nanos;      /* the time those took, summed (each from the token before it) */
  /* Added after decode_nanos (struct_size tells): of prompt_tokens, those a prompt cache held, so
     not evaluated again (llama-server's cached_tokens); prompt_cache_hits counts the generations
     that reused any. */
  uint64_t cached_prompt_tokens;
  uint64_t prompt_cache_hits;
} wasinn_token_stats;

typedef struct wasinn_backend wasinn_backend;
typedef struct wasinn_graph wasinn_graph;
typedef struct wasinn_context wasinn_context;

typedef struct wasinn_backend_api {
  uint32_t abi_version; /* WASINN_PLUGIN_ABI_VERSION */
  uint32_t struct_size; /* sizeof(wasinn_backend_api) the plugin was built with */
  const char* name;     /* e.g. "onnxruntime" */

  /* The framework's version string, e.g. "1.29.0". Static storage. */
  const char* (*framework_version)(void);

  /* Creates the process-wide backend state. config may be NULL. */
  int (*backend_create)(const char* config, size_t config_length, wasinn_backend** out, wasinn_diag* diag);
  void (*backend_destroy)(wasinn_backend* backend);

  int (*graph_load)(wasinn_backend* backend, const wasinn_load_request* request, wasinn_graph** out, wasinn_diag* diag);
  void (*graph_release)(wasinn_graph* graph);
  /* Declared inputs (is_output = 0) or outputs (1): count, then info per index. The host
     asks only for indices below the count. */
  size_t (*graph_io_count)(const wasinn_graph* graph, int is_output);
  int (*graph_io_info)(const wasinn_graph* graph, int is_output, size_t index, wasinn_io_info* out);

  int (*context_create)(wasinn_graph* graph, wasinn_context** out, wasinn_diag* diag);
  void (*context_release)(wasinn_context* context);

  /* The host has checked that data_length matches dims and type, except for encoding ggml,
     whose guests send a prompt of any length with dims [1]. */
  int (*set_input)(wasinn_context* context, const wasinn_tensor_id* id, const wasinn_tensor* tensor, wasinn_diag* diag);
  int (*compute)(wasinn_context* context, wasinn_diag* diag);
  /* Fills *out with a view of an output of the last compute. The view stays valid until the
     next set_input, compute or context_release on this context. */
  int (*get_output)(wasinn_context* context, const wasinn_tensor_id* id, wasinn_tensor* out, wasinn_diag* diag);

  /* Optional (NULL when unsupported): token streaming, as WasmEdge's GGML plugin does. */
  int (*compute_single)(wasinn_context* context, wasinn_diag* diag);
  int (*get_output_single)(wasinn_context* context, const wasinn_tensor_id* id, wasinn_tensor* out, wasinn_diag* diag);
  int (*fini_single)(wasinn_context* context, wasinn_diag* diag);
  /* Optional: asks a running compute on this context to stop soon with WASINN_TIMEOUT. It
     affects only a compute already running; a host enforcing a deadline repeats it until
     compute returns. */
  void (*cancel)(wasinn_context* context);

  /* Optional, added after the first release of ABI 1 (hosts check struct_size): installs the
     log sink. Called at most once, before backend_create. Until it is called (a test harness,
     an older host), a plugin writes only error lines, to stderr. */
  void (*set_log_sink)(const wasinn_log_sink* sink);

  /* Optional, added after set_log_sink (hosts check struct_size): the framework's own words
     for an input or output, e.g. "TorchScript int" or "ONNX sequence<tensor(float)>", for
     `wasinn models inspect`; NULL when it has none to add. Valid while the graph lives. */
  const char* (*graph_io_framework_type)(const wasinn_graph* graph, int is_output, size_t index);

  /* Optional, added after graph_io_framework_type (hosts check struct_size): what the backend
     found beyond its framework version, e.g. its accelerators and delegates and the target each
     serves, for `wasinn backends --check`; NULL when it has nothing to add. Valid while the
     backend lives. */
  const char* (*backend_description)(const wasinn_backend* backend);
  /* Optional, likewise: how the framework placed a loaded graph, e.g. how many nodes each
     delegate took, for `wasinn models inspect`; NULL when it has nothing to add. Valid while
     the graph lives. */
  const char* (*graph_description)(const wasinn_graph* graph);

  /* Optional, added after graph_description (hosts check struct_size): the graph's properties,
     for guests (wasinn:nn-ext's properties, witx graph_get_property) and `models inspect`.
     Facts (the model's own metadata; "device" says where the graph runs) and settable knobs
     with their default value. Names and values are NUL-terminated text and live as long as the
     graph; the list does not change after load. The host adds its own facts (backend,
     framework-version, encoding) before them. */
  size_t (*graph_property_count)(const wasinn_graph* graph);
  int (*graph_property_info)(const wasinn_graph* graph, size_t index, wasinn_property* out);
  /* Sets the settable knob `name` (not NUL-terminated, nor is value) on `context`, for its next
     compute; with context NULL, only checks that `value` is one the knob takes. A name that is
     not a settable knob or a value of the wrong type is WASINN_INVALID_ARGUMENT, naming the key
     and what it takes. Values are text; a knob reads them as JSON when they parse as JSON. */
  int (*property_set)(const wasinn_graph* graph, wasinn_context* context, const char* name, size_t name_length,
                      const char* value, size_t value_length, wasinn_diag* diag);

  /* Optional, added after property_set (hosts check struct_size): the devices the backend found
     when it was created, for `wasinn backends --check`, and why a target cannot be served (a
     graph_load with that target fails with WASINN_UNSUPPORTED_OPERATION and this reason), NULL
     when it can. Strings live as long as the backend. */
  size_t (*backend_device_count)(const wasinn_backend* backend);
  int (*backend_device_info)(const wasinn_backend* backend, size_t index, wasinn_device* out);
  const char* (*backend_target_unavailable)(const wasinn_backend* backend, int32_t target);

  /* Optional, added after backend_target_unavailable (hosts check struct_size): checks, before any
     guest runs, a model the host registers for this backend whose one builder is a spec rather
     than a model file (the remote backend's JSON of a URL and options): WASINN_INVALID_ARGUMENT
     with a detail when graph_load would refuse it. Loads nothing and contacts nothing. */
  int (*model_spec_check)(const wasinn_backend* backend, const char* spec, size_t spec_length, wasinn_diag* diag);

  /* Optional, added after model_spec_check (hosts check struct_size): the token counts and times of
     `context` since the previous call (wasinn_token_stats), which start again from zero. The host
     calls it after each compute, compute_single and fini_single, whatever they returned (a cut
     generation still generated tokens), from the thread that holds the context. A plugin that
     does not run language models leaves it NULL. */
  int (*context_take_token_stats)(wasinn_context* context, wasinn_token_stats* out);
} wasinn_backend_api;

typedef const wasinn_backend_api* (*wasinn_backend_entry_fn)(void);

#ifdef __cplusplus
}
#endif

#endif /* WASINN_BACKEND_PLUGIN_H_ */
