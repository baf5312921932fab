// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "digits_data.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int compat_parse_args(int argc, char** argv, compat_args* a) {
  memset(a, 0, sizeof *a);
  a->encoding = 1;
  for (int i = 1; i < argc; ++i) {
    const char* k = argv[i];
    if (strcmp(k, "--u8") == 0) {
      a->input_u8 = 1;
      continue;
    }
    if (i + 1 >= argc) {
      fprintf(stderr, "%s needs a value\n", k);
      return 2;
    }
    const char* v = argv[++i];
    if (strcmp(k, "--model") == 0)
      a->model = v;
    else if (strcmp(k, "--name") == 0)
      a->name = v;
    else if (strcmp(k, "--x") == 0)
      a->x_path = v;
    else if (strcmp(k, "--y") == 0)
      a->y_path = v;
    else if (strcmp(k, "--encoding") == 0)
      a->encoding = (uint32_t)strtoul(v, NULL, 10);
    else {
      fprintf(stderr, "unknown argument %s\n", k);
      return 2;
    }
  }
  if ((!a->model && !a->name) || !a->x_path || !a->y_path) {
    fprintf(stderr, "usage: %s --model FILE|--name NAME --x FILE --y FILE [--u8] [--encoding N]\n", argv[0]);
    return 2;
  }
  return 0;
}

uint8_t* compat_read_file(const char* path, size_t* size) {
  FILE* f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "cannot open %s\n", path);
    return NULL;
  }
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t* buf = n > 0 ? malloc((size_t)n) : NULL;
  if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
    fprintf(stderr, "cannot read %s\n", path);
    free(buf);
    fclose(f);
    return NULL;
  }
  fclose(f);
  *size = (size_t)n;
  return buf;
}

int digits_load(const compat_args* a, digits* d) {
  size_t x_size = 0, y_size = 0;
  d->input_u8 = a->input_u8;
  d->x = compat_read_file(a->x_path, &x_size);
  d->labels = compat_read_file(a->y_path, &y_size);
  if (!d->x || !d->labels) return 1;
  d->rows = y_size;
  if (x_size != d->rows * digits_row_bytes(d)) {
    fprintf(stderr, "%s holds %zu bytes, expected %zu rows of %d features\n", a->x_path, x_size, d->rows,
            DIGITS_FEATURES);
    return 1;
  }
  return 0;
}

size_t digits_row_bytes(const digits* d) { return DIGITS_FEATURES * (d->input_u8 ? 1 : 4); }

const uint8_t* digits_row(const digits* d, size_t row) { return d->x + row * digits_row_bytes(d); }

int report_init(report* r, size_t rows) {
  memset(r, 0, sizeof *r);
  r->rows = rows;
  r->predictions = calloc(rows + 1, 1);
  return r->predictions ? 0 : 1;
}

void report_add(report* r, size_t row, const float* logits, uint8_t label) {
  int best = 0;
  for (int k = 1; k < DIGITS_CLASSES; ++k)
    if (logits[k] > logits[best]) best = k;
  r->predictions[row] = (char)('0' + best);
  r->correct += best == label;
  if (row == 0) memcpy(r->logits0, logits, sizeof r->logits0);
}

void report_print(const report* r, const char* prefix) {
  printf("%spredictions: %s\n", prefix, r->predictions);
  printf("%saccuracy: %zu/%zu\n", prefix, r->correct, r->rows);
  printf("%slogits0:", prefix);
  for (int k = 0; k < DIGITS_CLASSES; ++k) printf(" %.6f", r->logits0[k]);
  printf("\n");
}
