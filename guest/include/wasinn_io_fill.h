// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * wasinn_io_fill.h: the deterministic input data of the describe_io test guests (core module
 * guest/tests/describe_io.c and component guest/components/wit_describe_io.c), which build every
 * input of a model from its description alone. Small values any model takes: floats k/16 - 0.5
 * (exact in f16, bf16, f32 and f64), integers 1..3 (never 0: a divisor, never past a tiny
 * vocabulary), bytes 0 and 1 (a u8 may be a bool, which takes nothing else).
 *
 * Types are named by a tag of this header (not witx's or WIT's numbering, which differ).
 */
#ifndef WASINN_IO_FILL_H_
#define WASINN_IO_FILL_H_

#include <stdint.h>
#include <string.h>

typedef enum { FILL_F16, FILL_BF16, FILL_F32, FILL_F64, FILL_U8, FILL_I32, FILL_I64 } fill_type;

static inline uint32_t fill_element_size(fill_type t) {
  switch (t) {
    case FILL_F16:
    case FILL_BF16: return 2;
    case FILL_F32:
    case FILL_I32: return 4;
    case FILL_F64:
    case FILL_I64: return 8;
    case FILL_U8: return 1;
  }
  return 0;
}

/* IEEE half of a float that is exact in half (as every fill value is): no rounding needed. */
static inline uint16_t fill_f32_to_f16(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  const uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
  const int32_t exp = (int32_t)((x >> 23) & 0xff) - 127 + 15;
  const uint32_t mant = x & 0x7fffffu;
  if (((x >> 23) & 0xff) == 0) return sign; /* zero */
  if (exp <= 0) {                           /* subnormal half */
    if (exp < -10) return sign;
    return (uint16_t)(sign | ((mant | 0x800000u) >> (14 - exp)));
  }
  return (uint16_t)(sign | ((uint32_t)exp << 10) | (mant >> 13));
}

/* Element i of an input (`seed` tells inputs apart: the input's index). */
static inline void fill_element(fill_type t, uint64_t i, uint32_t seed, unsigned char* dst) {
  const uint32_t k = (uint32_t)((i * 7 + seed * 3 + 3) % 16);
  const float f = (float)k / 16.0f - 0.5f;
  switch (t) {
    case FILL_F16: {
      const uint16_t h = fill_f32_to_f16(f);
      memcpy(dst, &h, 2);
      break;
    }
    case FILL_BF16: {
      uint32_t x;
      memcpy(&x, &f, 4);
      const uint16_t b = (uint16_t)(x >> 16);
      memcpy(dst, &b, 2);
      break;
    }
    case FILL_F32: memcpy(dst, &f, 4); break;
    case FILL_F64: {
      const double d = f;
      memcpy(dst, &d, 8);
      break;
    }
    case FILL_U8: *dst = (unsigned char)(k & 1); break;
    case FILL_I32: {
      const int32_t v = (int32_t)(1 + k % 3);
      memcpy(dst, &v, 4);
      break;
    }
    case FILL_I64: {
      const int64_t v = (int64_t)(1 + k % 3);
      memcpy(dst, &v, 8);
      break;
    }
  }
}

static inline void fill_tensor(fill_type t, uint32_t seed, unsigned char* data, uint64_t elements) {
  const uint32_t size = fill_element_size(t);
  for (uint64_t i = 0; i < elements; ++i) fill_element(t, i, seed, data + i * size);
}

#endif /* WASINN_IO_FILL_H_ */
