// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * wasinn_nn_ext_wit.h: hand-written canonical-ABI bindings of wasinn's WIT package
 * wasinn:nn-ext@0.1.0 (wit/wasinn-nn-ext/nn-ext.wit: describe, properties, prompt) for component
 * guests over wasi:nn@0.2.0-rc-2024-10-28. Include after wasi_nn_wit.h; build the guest with
 * wasinn_add_component_guest(... EXT) (cmake/WasmComponentGuest.cmake), whose world
 * guest-command-ext (guest/components/worlds_ext.wit) imports both packages.
 *
 * Canonical ABI (wasm32), as in wasi_nn_wit_common.h: handles i32, strings and lists (ptr, len),
 * a result needing more than one flat value comes back through a return pointer, and whatever the
 * host returns in lists and strings is allocated with the guest's cabi_realloc (free() it).
 * The wrappers return 0 on success and 1 on an error (a wasi:nn error handle, or for the prompt
 * interface a string the guest frees).
 */
#ifndef WASINN_NN_EXT_WIT_H_
#define WASINN_NN_EXT_WIT_H_

#ifndef WASI_NN_WIT_H_
#error "include wasi_nn_wit.h (wasi:nn@0.2.0-rc-2024-10-28) before wasinn_nn_ext_wit.h"
#endif

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

#define WNX_IMPORT(iface, name) __attribute__((import_module("wasinn:nn-ext/" iface "@0.1.0"), import_name(name)))

typedef int32_t wnx_prompt_context; /* own<prompt.context> */

/* record tensor-description { name: string, tensor-type: option<tensor-type>,
 *                             dimensions: option<list<s64>> }
 * name at 0 (ptr, len); option<enum> at 8 (discriminant byte, case byte at 9); option<list> at
 * 12 (discriminant byte, list at 16: ptr, len); 24 bytes, align 4. */
typedef struct {
  char* name;
  uint32_t name_len;
  uint8_t has_type;
  uint8_t type; /* wnn_tensor_type, when has_type */
  uint8_t pad0_[2];
  uint8_t has_dims;
  uint8_t pad1_[3];
  int64_t* dims; /* when has_dims; -1: a dynamic dimension */
  uint32_t rank;
} wnx_tensor_description;
_Static_assert(sizeof(wnx_tensor_description) == 24, "tensor-description is 24 bytes");
_Static_assert(offsetof(wnx_tensor_description, has_type) == 8, "option<tensor-type> at 8");
_Static_assert(offsetof(wnx_tensor_description, type) == 9, "its case at 9");
_Static_assert(offsetof(wnx_tensor_description, has_dims) == 12, "option<list<s64>> at 12");
_Static_assert(offsetof(wnx_tensor_description, dims) == 16, "its list at 16");
typedef struct {
  wnx_tensor_description* ptr;
  uint32_t len;
} wnx_description_list;

typedef struct {
  wnn_string* ptr;
  uint32_t len;
} wnx_string_list;

/* result<string, own<error>>: discriminant at 0, then (ptr, len) or the error handle at 4. */
typedef struct {
  uint8_t is_err;
  union {
    wnn_string ok;
    wnn_error err;
  } val;
} wnx_result_string_error_;
_Static_assert(sizeof(wnx_result_string_error_) == 12, "result<string, error> is 12 bytes");

/* result<string, string> and result<_, string>: discriminant at 0, a string at 4. */
typedef struct {
  uint8_t is_err;
  wnn_string s;
} wnx_result_string_string_;
_Static_assert(sizeof(wnx_result_string_string_) == 12, "result<string, string> is 12 bytes");

/* result<own<context>, string>: discriminant at 0, the handle or the string at 4. */
typedef struct {
  uint8_t is_err;
  union {
    wnx_prompt_context ok;
    wnn_string err;
  } val;
} wnx_result_context_string_;
_Static_assert(sizeof(wnx_result_context_string_) == 12, "result<context, string> is 12 bytes");

/* result<option<string>, string>: discriminant at 0; ok: option's discriminant at 4, its string
 * at 8; err: the string at 4. */
typedef struct {
  uint8_t is_err;
  union {
    struct {
      uint8_t is_some;
      wnn_string s;
    } ok;
    wnn_string err;
  } val;
} wnx_result_option_string_string_;
_Static_assert(sizeof(wnx_result_option_string_string_) == 16, "result<option<string>, string> is 16 bytes");
_Static_assert(offsetof(wnx_result_option_string_string_, val.ok.s) == 8, "the option's string at 8");

/* --- raw imports ------------------------------------------------------------------------- */

WNX_IMPORT("describe", "inputs")
void wnx_import_inputs_(wnn_graph graph, wnx_description_list* ret);
WNX_IMPORT("describe", "outputs")
void wnx_import_outputs_(wnn_graph graph, wnx_description_list* ret);

WNX_IMPORT("properties", "list-properties")
void wnx_import_list_properties_(wnn_graph graph, wnx_string_list* ret);
WNX_IMPORT("properties", "get-property")
void wnx_import_get_property_(wnn_graph graph, const char* name, size_t name_len, wnx_result_string_error_* ret);
WNX_IMPORT("properties", "set-property")
void wnx_import_set_property_(wnn_graph graph, const char* name, size_t name_len, const char* value, size_t value_len,
                              wnn_result_unit_* ret);
WNX_IMPORT("properties", "set-context-property")
void wnx_import_set_context_property_(wnn_context ctx, const char* name, size_t name_len, const char* value,
                                      size_t value_len, wnn_result_unit_* ret);

WNX_IMPORT("prompt", "init")
void wnx_import_prompt_init_(wnn_graph graph, wnx_result_context_string_* ret);
WNX_IMPORT("prompt", "[method]context.compute")
void wnx_import_prompt_compute_(wnx_prompt_context self, const char* prompt, size_t len,
                                wnx_result_string_string_* ret);
WNX_IMPORT("prompt", "[method]context.set-property")
void wnx_import_prompt_set_property_(wnx_prompt_context self, const char* name, size_t name_len, const char* value,
                                     size_t value_len, wnx_result_string_string_* ret);
WNX_IMPORT("prompt", "[method]context.start")
void wnx_import_prompt_start_(wnx_prompt_context self, const char* input, size_t input_len, const char* text,
                              size_t text_len, wnx_result_string_string_* ret);
WNX_IMPORT("prompt", "[method]context.next")
void wnx_import_prompt_next_(wnx_prompt_context self, wnx_result_option_string_string_* ret);
WNX_IMPORT("prompt", "[method]context.metadata")
void wnx_import_prompt_metadata_(wnx_prompt_context self, wnx_result_string_string_* ret);
WNX_IMPORT("prompt", "[resource-drop]context")
void wnx_import_prompt_context_drop_(wnx_prompt_context self);

#undef WNX_IMPORT

/* --- typed wrappers ---------------------------------------------------------------------- */

void free(void*);

/* describe: the lists are the guest's (wnx_description_list_free). */
static inline wnx_description_list wnx_inputs(wnn_graph g) {
  wnx_description_list l = {0, 0};
  wnx_import_inputs_(g, &l);
  return l;
}
static inline wnx_description_list wnx_outputs(wnn_graph g) {
  wnx_description_list l = {0, 0};
  wnx_import_outputs_(g, &l);
  return l;
}
static inline void wnx_description_list_free(wnx_description_list* l) {
  for (uint32_t i = 0; i < l->len; ++i) {
    free(l->ptr[i].name);
    if (l->ptr[i].has_dims) free(l->ptr[i].dims);
  }
  free(l->ptr);
  l->ptr = 0;
  l->len = 0;
}

/* properties */
static inline wnx_string_list wnx_list_properties(wnn_graph g) {
  wnx_string_list l = {0, 0};
  wnx_import_list_properties_(g, &l);
  return l;
}
static inline void wnx_string_list_free(wnx_string_list* l) {
  for (uint32_t i = 0; i < l->len; ++i) free(l->ptr[i].ptr);
  free(l->ptr);
  l->ptr = 0;
  l->len = 0;
}
/* *value is not NUL-terminated; free(value->ptr). */
static inline int wnx_get_property(wnn_graph g, const char* name, uint32_t name_len, wnn_string* value,
                                   wnn_error* err) {
  wnx_result_string_error_ r;
  r.is_err = 0;
  r.val.ok.ptr = 0;
  r.val.ok.len = 0;
  wnx_import_get_property_(g, name, name_len, &r);
  if (r.is_err) {
    if (err) *err = r.val.err;
    return 1;
  }
  if (value)
    *value = r.val.ok;
  else
    free(r.val.ok.ptr);
  return 0;
}
static inline int wnx_set_property(wnn_graph g, const char* name, uint32_t name_len, const char* value,
                                   uint32_t value_len, wnn_error* err) {
  wnn_result_unit_ r = {0, 0};
  wnx_import_set_property_(g, name, name_len, value, value_len, &r);
  return wnn_handle_result_(&r, 0, err);
}
static inline int wnx_set_context_property(wnn_context c, const char* name, uint32_t name_len, const char* value,
                                           uint32_t value_len, wnn_error* err) {
  wnn_result_unit_ r = {0, 0};
  wnx_import_set_context_property_(c, name, name_len, value, value_len, &r);
  return wnn_handle_result_(&r, 0, err);
}

/* prompt: errors are strings ("CODE-NAME: ..."), the guest's to free(). */
/* A result<_, string>: 0, or 1 with *err the error (or freed when err is NULL). */
static inline int wnx_unit_result_(const wnx_result_string_string_* r, wnn_string* err) {
  if (err) {
    err->ptr = r->is_err ? r->s.ptr : 0;
    err->len = r->is_err ? r->s.len : 0;
  } else if (r->is_err) {
    free(r->s.ptr);
  }
  return r->is_err ? 1 : 0;
}
static inline int wnx_prompt_init(wnn_graph g, wnx_prompt_context* ctx, wnn_string* err) {
  wnx_result_context_string_ r;
  r.is_err = 0;
  r.val.ok = 0;
  wnx_import_prompt_init_(g, &r);
  if (r.is_err) {
    if (err)
      *err = r.val.err;
    else
      free(r.val.err.ptr);
    return 1;
  }
  if (ctx) *ctx = r.val.ok;
  return 0;
}
/* On success *out is the answer, on failure the error; either way free(out->ptr). */
static inline int wnx_prompt_compute(wnx_prompt_context c, const char* prompt, uint32_t len, wnn_string* out) {
  wnx_result_string_string_ r;
  r.is_err = 0;
  r.s.ptr = 0;
  r.s.len = 0;
  wnx_import_prompt_compute_(c, prompt, len, &r);
  *out = r.s;
  return r.is_err ? 1 : 0;
}
/* On failure *err is the error (free(err->ptr)); on success it is left empty. */
static inline int wnx_prompt_set_property(wnx_prompt_context c, const char* name, uint32_t name_len, const char* value,
                                          uint32_t value_len, wnn_string* err) {
  wnx_result_string_string_ r;
  r.is_err = 0;
  r.s.ptr = 0;
  r.s.len = 0;
  wnx_import_prompt_set_property_(c, name, name_len, value, value_len, &r);
  return wnx_unit_result_(&r, err);
}
/* Starts a streamed answer; INPUT is "prompt" or "messages". On failure *err is the error
 * (free(err->ptr)). */
static inline int wnx_prompt_start(wnx_prompt_context c, const char* input, const char* text, uint32_t text_len,
                                   wnn_string* err) {
  wnx_result_string_string_ r;
  r.is_err = 0;
  r.s.ptr = 0;
  r.s.len = 0;
  wnx_import_prompt_start_(c, input, strlen(input), text, text_len, &r);
  return wnx_unit_result_(&r, err);
}
/* 0 with *piece the next piece (*has 1), or *has 0 once the answer is complete; 1 with *piece
 * the error. Either way free(piece->ptr). */
static inline int wnx_prompt_next(wnx_prompt_context c, int* has, wnn_string* piece) {
  wnx_result_option_string_string_ r;
  memset(&r, 0, sizeof r);
  wnx_import_prompt_next_(c, &r);
  if (r.is_err) {
    *has = 0;
    *piece = r.val.err;
    return 1;
  }
  *has = r.val.ok.is_some;
  piece->ptr = r.val.ok.is_some ? r.val.ok.s.ptr : 0;
  piece->len = r.val.ok.is_some ? r.val.ok.s.len : 0;
  return 0;
}
/* The answer's metadata (JSON text), or the error; either way free(out->ptr). */
static inline int wnx_prompt_metadata(wnx_prompt_context c, wnn_string* out) {
  wnx_result_string_string_ r;
  r.is_err = 0;
  r.s.ptr = 0;
  r.s.len = 0;
  wnx_import_prompt_metadata_(c, &r);
  *out = r.s;
  return r.is_err ? 1 : 0;
}
static inline void wnx_prompt_context_drop(wnx_prompt_context c) { wnx_import_prompt_context_drop_(c); }

#ifdef __cplusplus
}
#endif

#endif /* WASINN_NN_EXT_WIT_H_ */
