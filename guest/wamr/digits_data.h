// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * The digits classification shared by the WAMR-style C guests, independent of either wasi-nn
 * module: argument parsing, the fixture files, and the report the compat tests check (the same
 * lines the Rust guests print: predictions, accuracy, logits0).
 *   --model FILE | --name NAME   model bytes for load, or a name for load_by_name
 *   --x FILE --y FILE            features (rows x 64, f32 or with --u8 raw u8) and labels
 *   --encoding N                 encoding number passed to load (default 1, onnx)
 */
#ifndef COMPAT_DIGITS_DATA_H_
#define COMPAT_DIGITS_DATA_H_

#include <stddef.h>
#include <stdint.h>

enum { DIGITS_FEATURES = 64, DIGITS_CLASSES = 10 };

typedef struct {
  const char* model;
  const char* name;
  const char* x_path;
  const char* y_path;
  int input_u8;
  uint32_t encoding;
} compat_args;

/* Returns 0, or prints what is wrong and returns 2. */
int compat_parse_args(int argc, char** argv, compat_args* args);

/* The whole file in a malloc'ed buffer, or NULL (and a message on stderr). */
uint8_t* compat_read_file(const char* path, size_t* size);

typedef struct {
  uint8_t* x; /* rows * 64 elements, 4 bytes each unless input_u8 */
  uint8_t* labels;
  size_t rows;
  int input_u8;
} digits;

int digits_load(const compat_args* args, digits* d);
const uint8_t* digits_row(const digits* d, size_t row);
size_t digits_row_bytes(const digits* d);

typedef struct {
  char* predictions; /* one ASCII digit per row */
  size_t rows;
  size_t correct;
  float logits0[DIGITS_CLASSES];
} report;

int report_init(report* r, size_t rows);
void report_add(report* r, size_t row, const float* logits, uint8_t label);
/* Prints "<prefix>predictions: ...", "<prefix>accuracy: C/T", "<prefix>logits0: ...". */
void report_print(const report* r, const char* prefix);

#endif /* COMPAT_DIGITS_DATA_H_ */
