// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * wasinn_pipeline.h: hand-written C bindings of wasinn:pipeline/model@0.1.0's exports
 * (wit/wasinn-pipeline/pipeline.wit) for pipeline components: the canonical ABI's layouts of its
 * records, and the export names. A pipeline defines its functions with WP_EXPORT_DESCRIBE,
 * WP_EXPORT_MODELS and WP_EXPORT_INFER; the host allocates infer's inputs with cabi_realloc (the guest owns and
 * frees them: wp_tensors_free), and reads what the functions return before the post-return
 * export (WP_EXPORT_POST_INFER) lets the guest free it.
 */
#ifndef WASINN_PIPELINE_H_
#define WASINN_PIPELINE_H_

#include <stdint.h>
#include <stdlib.h>

#define WP_INTERFACE "wasinn:pipeline/model@0.1.0"
#define WP_EXPORT_DESCRIBE __attribute__((export_name(WP_INTERFACE "#describe")))
#define WP_EXPORT_MODELS __attribute__((export_name(WP_INTERFACE "#models")))
#define WP_EXPORT_INFER __attribute__((export_name(WP_INTERFACE "#infer")))
#define WP_EXPORT_POST_INFER __attribute__((export_name("cabi_post_" WP_INTERFACE "#infer")))

/* enum tensor-type: wasi:nn's numbering (WNN_TYPE_*). */
enum { WP_FP16 = 0, WP_FP32 = 1, WP_FP64 = 2, WP_BF16 = 3, WP_U8 = 4, WP_I32 = 5, WP_I64 = 6 };

typedef struct {
  char* ptr;
  uint32_t len;
} wp_string;

/* list<string>: what models returns (a pointer to it), the names of the models it loads. */
typedef struct {
  const wp_string* ptr;
  uint32_t len;
} wp_string_list;

/* record tensor: 28 bytes, align 4. */
typedef struct {
  wp_string name;
  uint32_t* dims;
  uint32_t rank;
  uint8_t type;
  uint8_t* data;
  uint32_t data_len;
} wp_tensor;
_Static_assert(sizeof(wp_tensor) == 28, "tensor is 28 bytes");

typedef struct {
  wp_tensor* ptr;
  uint32_t len;
} wp_tensor_list;

/* record tensor-spec: 20 bytes. */
typedef struct {
  wp_string name;
  uint8_t type;
  const int64_t* dims;
  uint32_t rank;
} wp_tensor_spec;
_Static_assert(sizeof(wp_tensor_spec) == 20, "tensor-spec is 20 bytes");

/* record description: 16 bytes. */
typedef struct {
  const wp_tensor_spec* inputs;
  uint32_t input_count;
  const wp_tensor_spec* outputs;
  uint32_t output_count;
} wp_description;

/* variant error: invalid-input(string) = 0, failed(string) = 1. */
enum { WP_INVALID_INPUT = 0, WP_FAILED = 1 };

/* result<list<tensor>, error>: 16 bytes; discriminant at 0, then the list (ok) or the error's
 * case at 4 and its string at 8. */
typedef struct {
  uint8_t is_err;
  union {
    wp_tensor_list ok;
    struct {
      uint8_t code;
      wp_string message;
    } err;
  } val;
} wp_result;
_Static_assert(sizeof(wp_result) == 16, "result<list<tensor>, error> is 16 bytes");

/* Frees what the host allocated for infer's inputs (or what the guest allocated for its
 * outputs the same way). */
static inline void wp_tensors_free(wp_tensor_list* l) {
  for (uint32_t i = 0; i < l->len; ++i) {
    free(l->ptr[i].name.ptr);
    free(l->ptr[i].dims);
    free(l->ptr[i].data);
  }
  free(l->ptr);
  l->ptr = 0;
  l->len = 0;
}

/* Equal to a NUL-terminated name. */
static inline int wp_name_is(wp_string s, const char* name) {
  uint32_t i = 0;
  for (; i < s.len && name[i] && s.ptr[i] == name[i]; ++i) {
  }
  return i == s.len && !name[i];
}

#endif /* WASINN_PIPELINE_H_ */
