// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * Shared state and helpers of the nn_error_paths guest (nn_error_paths.c runs the cases;
 * nn_error_cases_load.c and nn_error_cases_compute.c define them, each with its own table).
 */
#ifndef NN_ERROR_PATHS_H_
#define NN_ERROR_PATHS_H_

#include <stddef.h>
#include <stdint.h>

#include "wasi_nn.h"

/* Far beyond any memory this guest grows to, but inside the 32-bit address space. */
#define BAD_ADDR 0xFFFFFF00u
#define BAD(T) ((T)(uintptr_t)BAD_ADDR)
#define SENTINEL 0x5A5A5A5Au
#define CANARY 0xA5
#define NO_HANDLE 0xDEADu

typedef struct {
  uint8_t* bytes;
  uint32_t len;
} blob;

/* Set up by main before any case runs: the model files, one digits row, a loaded digits graph
   and a context on it. */
extern blob g_digits, g_tiny, g_garbage, g_truncated, g_empty;
extern float g_row[64];
extern const uint32_t g_dims[2];
extern wasi_nn_graph g_graph;
extern wasi_nn_context g_ctx;

/* A case records a broken post-condition (besides its errno) here. */
void note(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

uint32_t memory_end(void);
wasi_nn_tensor row_tensor(void);
int32_t load_model(blob b, uint32_t encoding, uint32_t target, wasi_nn_graph* g);
int32_t set_row(wasi_nn_context ctx);
int32_t set_tensor(uint32_t rank, const uint32_t* dims, uint8_t type, uint32_t data_len);
wasi_nn_context ready_context(void);
int buffer_untouched(const uint8_t* buf, size_t n);
int32_t compute_valid(void);

typedef struct {
  const char* name;
  int32_t (*run)(void);
  int32_t expected;
} error_case;

/* Order matters where a case relies on an earlier one in the same table. */
extern const error_case kLoadCases[];
extern const size_t kLoadCaseCount;
extern const error_case kComputeCases[];
extern const size_t kComputeCaseCount;

#endif /* NN_ERROR_PATHS_H_ */
