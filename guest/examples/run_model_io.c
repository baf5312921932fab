// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * The --io file reader declared in run_model_io.h: a small strict JSON reader rather than a
 * library, as the wasm32 toolchain the build installs (clang-14, wasi-libc) has no C++ standard
 * library for wasm32, so nlohmann/json cannot be used in a guest.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run_model_io.h"

#define MAX_JSON_DEPTH 64 /* nesting the reader follows before it gives up */

struct json_reader {
  const char* path;
  const char *begin, *p, *end;
};

__attribute__((noreturn)) static void json_fail(const struct json_reader* r, const char* what) {
  unsigned line = 1, column = 1;
  for (const char* c = r->begin; c < r->p; ++c) {
    if (*c == '\n')
      ++line, column = 1;
    else
      ++column;
  }
  fail(
      "--io %s: line %u, column %u: %s (the file should be what `wasinn models inspect --json MODEL` "
      "prints)",
      r->path, line, column, what);
}

static void json_ws(struct json_reader* r) {
  while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r')) ++r->p;
}

static int json_peek(struct json_reader* r) {
  json_ws(r);
  return r->p < r->end ? (unsigned char)*r->p : -1;
}

static void json_expect(struct json_reader* r, char c) {
  static char what[24];
  if (json_peek(r) != (unsigned char)c) {
    snprintf(what, sizeof what, "expected '%c'", c);
    json_fail(r, what);
  }
  ++r->p;
}

static int json_literal(struct json_reader* r, const char* word) {
  const size_t n = strlen(word);
  if ((size_t)(r->end - r->p) >= n && memcmp(r->p, word, n) == 0) {
    r->p += n;
    return 1;
  }
  return 0;
}

static unsigned json_hex4(struct json_reader* r) {
  unsigned v = 0;
  for (int i = 0; i < 4; ++i, ++r->p) {
    if (r->p == r->end) json_fail(r, "unterminated \\u escape");
    const char c = *r->p;
    v <<= 4;
    if (c >= '0' && c <= '9')
      v |= (unsigned)(c - '0');
    else if (c >= 'a' && c <= 'f')
      v |= (unsigned)(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F')
      v |= (unsigned)(c - 'A' + 10);
    else
      json_fail(r, "bad \\u escape");
  }
  return v;
}

/* A JSON string, decoded to UTF-8 into *out (malloc'd), or only checked when out is NULL. */
static void json_string(struct json_reader* r, char** out) {
  json_expect(r, '"');
  size_t cap = 32, len = 0;
  char* buf = out ? xmalloc(cap) : NULL;
  for (;;) {
    if (r->p == r->end) json_fail(r, "unterminated string");
    unsigned char c = (unsigned char)*r->p++;
    if (c == '"') break;
    if (c < 0x20) json_fail(r, "control character in a string");
    unsigned char bytes[4];
    size_t nb = 1;
    bytes[0] = c;
    if (c == '\\') {
      if (r->p == r->end) json_fail(r, "unterminated string");
      const char e = *r->p++;
      switch (e) {
        case '"':
        case '\\':
        case '/': bytes[0] = (unsigned char)e; break;
        case 'b': bytes[0] = '\b'; break;
        case 'f': bytes[0] = '\f'; break;
        case 'n': bytes[0] = '\n'; break;
        case 'r': bytes[0] = '\r'; break;
        case 't': bytes[0] = '\t'; break;
        case 'u': {
          unsigned cp = json_hex4(r);
          if (cp >= 0xDC00 && cp <= 0xDFFF) json_fail(r, "lone low surrogate in a \\u escape");
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            if (!json_literal(r, "\\u")) json_fail(r, "high surrogate without its low half");
            const unsigned lo = json_hex4(r);
            if (lo < 0xDC00 || lo > 0xDFFF) json_fail(r, "high surrogate without its low half");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          }
          /* Names become C strings; a NUL inside would silently cut one short. */
          if (cp == 0) json_fail(r, "\\u0000 in a string");
          if (cp < 0x80) {
            bytes[0] = (unsigned char)cp;
          } else if (cp < 0x800) {
            bytes[0] = (unsigned char)(0xC0 | (cp >> 6));
            bytes[1] = (unsigned char)(0x80 | (cp & 0x3F));
            nb = 2;
          } else if (cp < 0x10000) {
            bytes[0] = (unsigned char)(0xE0 | (cp >> 12));
            bytes[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
            bytes[2] = (unsigned char)(0x80 | (cp & 0x3F));
            nb = 3;
          } else {
            bytes[0] = (unsigned char)(0xF0 | (cp >> 18));
            bytes[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
            bytes[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
            bytes[3] = (unsigned char)(0x80 | (cp & 0x3F));
            nb = 4;
          }
          break;
        }
        default: json_fail(r, "unknown escape in a string");
      }
    }
    if (!out) continue;
    if (len + nb + 1 > cap) {
      while (len + nb + 1 > cap) cap *= 2;
      buf = realloc(buf, cap);
      if (!buf) fail("out of memory reading --io %s", r->path);
    }
    memcpy(buf + len, bytes, nb);
    len += nb;
  }
  if (out) {
    buf[len] = '\0';
    *out = buf;
  }
}

/* A JSON number that must be an integer (no fraction or exponent) within int64. */
static int64_t json_integer(struct json_reader* r) {
  json_ws(r);
  const int negative = r->p < r->end && *r->p == '-';
  if (negative) ++r->p;
  if (r->p == r->end || *r->p < '0' || *r->p > '9') json_fail(r, "expected an integer");
  if (*r->p == '0' && r->p + 1 < r->end && r->p[1] >= '0' && r->p[1] <= '9') json_fail(r, "leading zero in a number");
  uint64_t v = 0;
  while (r->p < r->end && *r->p >= '0' && *r->p <= '9') {
    v = v * 10 + (uint64_t)(*r->p++ - '0');
    if (v > (uint64_t)INT64_MAX) json_fail(r, "integer out of range");
  }
  if (r->p < r->end && (*r->p == '.' || *r->p == 'e' || *r->p == 'E')) json_fail(r, "expected an integer");
  return negative ? -(int64_t)v : (int64_t)v;
}

/* Any JSON number, checked against the grammar and skipped. */
static void json_skip_number(struct json_reader* r) {
  if (r->p < r->end && *r->p == '-') ++r->p;
  if (r->p == r->end || *r->p < '0' || *r->p > '9') json_fail(r, "bad number");
  if (*r->p == '0')
    ++r->p;
  else
    while (r->p < r->end && *r->p >= '0' && *r->p <= '9') ++r->p;
  if (r->p < r->end && *r->p == '.') {
    ++r->p;
    if (r->p == r->end || *r->p < '0' || *r->p > '9') json_fail(r, "bad number");
    while (r->p < r->end && *r->p >= '0' && *r->p <= '9') ++r->p;
  }
  if (r->p < r->end && (*r->p == 'e' || *r->p == 'E')) {
    ++r->p;
    if (r->p < r->end && (*r->p == '+' || *r->p == '-')) ++r->p;
    if (r->p == r->end || *r->p < '0' || *r->p > '9') json_fail(r, "bad number");
    while (r->p < r->end && *r->p >= '0' && *r->p <= '9') ++r->p;
  }
}

/* After an item of an object or array: 1 if another follows, 0 at the closing bracket. */
static int json_more(struct json_reader* r, char close) {
  const int c = json_peek(r);
  if (c == ',') {
    ++r->p;
    return 1;
  }
  if (c == close) {
    ++r->p;
    return 0;
  }
  json_fail(r, close == '}' ? "expected ',' or '}'" : "expected ',' or ']'");
}

/* Any JSON value, checked and skipped: the keys run_model has no use for ("backend", "files",
 * "framework_type", ...). */
static void json_skip(struct json_reader* r, int depth) {
  if (depth > MAX_JSON_DEPTH) json_fail(r, "nested too deeply");
  const int c = json_peek(r);
  if (c == '{' || c == '[') {
    const char close = c == '{' ? '}' : ']';
    ++r->p;
    if (json_peek(r) == close) {
      ++r->p;
      return;
    }
    do {
      if (c == '{') {
        json_string(r, NULL);
        json_expect(r, ':');
      }
      json_skip(r, depth + 1);
    } while (json_more(r, close));
  } else if (c == '"') {
    json_string(r, NULL);
  } else if (c == '-' || (c >= '0' && c <= '9')) {
    json_skip_number(r);
  } else if (!json_literal(r, "true") && !json_literal(r, "false") && !json_literal(r, "null")) {
    json_fail(r, "expected a value");
  }
}

static void json_shape(struct json_reader* r, struct io_tensor* t) {
  json_ws(r);
  if (json_literal(r, "null")) {
    t->shape_known = 0;
    return;
  }
  t->shape_known = 1;
  t->rank = 0;
  json_expect(r, '[');
  if (json_peek(r) == ']') {
    ++r->p;
    return;
  }
  do {
    if (t->rank == MAX_RANK) json_fail(r, "shape has more dimensions than run_model takes (64)");
    const int64_t d = json_integer(r);
    if (d > (int64_t)UINT32_MAX) json_fail(r, "dimension larger than a u32");
    t->dims[t->rank++] = d < 0 ? -1 : d; /* any negative value is a dynamic dimension */
  } while (json_more(r, ']'));
}

static void json_tensor(struct json_reader* r, struct io_tensor* t) {
  enum { INDEX = 1, NAME = 2, TYPE = 4, SHAPE = 8 };
  unsigned seen = 0;
  memset(t, 0, sizeof *t);
  json_expect(r, '{');
  if (json_peek(r) != '}') {
    do {
      const char* key_at = r->p;
      char* key;
      json_string(r, &key);
      json_expect(r, ':');
      unsigned bit = 0;
      if (!strcmp(key, "index")) {
        bit = INDEX;
        const int64_t v = json_integer(r);
        if (v < 0 || v > (int64_t)UINT32_MAX) json_fail(r, "\"index\" is not a u32");
        t->index = (uint32_t)v;
      } else if (!strcmp(key, "name")) {
        bit = NAME;
        if (!(seen & NAME))
          json_string(r, &t->name);
        else
          json_string(r, NULL);
      } else if (!strcmp(key, "type")) {
        bit = TYPE;
        if (!(seen & TYPE))
          json_string(r, &t->type);
        else
          json_string(r, NULL);
      } else if (!strcmp(key, "shape")) {
        bit = SHAPE;
        json_shape(r, t);
      } else {
        json_skip(r, 2);
      }
      free(key);
      if (seen & bit) {
        r->p = key_at;
        json_fail(r, "duplicate key in a tensor");
      }
      seen |= bit;
    } while (json_more(r, '}'));
  } else {
    ++r->p;
  }
  if (seen != (INDEX | NAME | TYPE | SHAPE)) json_fail(r, "a tensor needs \"index\", \"name\", \"type\" and \"shape\"");
}

static void json_tensor_list(struct json_reader* r, struct io_list* list) {
  size_t cap = 4;
  list->items = xmalloc(cap * sizeof *list->items);
  list->count = 0;
  json_expect(r, '[');
  if (json_peek(r) == ']') {
    ++r->p;
    return;
  }
  do {
    if (list->count == cap) {
      cap *= 2;
      list->items = realloc(list->items, cap * sizeof *list->items);
      if (!list->items) fail("out of memory reading --io %s", r->path);
    }
    json_tensor(r, &list->items[list->count]);
    for (size_t i = 0; i < list->count; ++i)
      if (list->items[i].index == list->items[list->count].index) json_fail(r, "two tensors with one index");
    ++list->count;
  } while (json_more(r, ']'));
}

void read_io_file(const char* path, struct io_list* inputs, struct io_list* outputs) {
  const struct blob b = read_all(path, "--io file");
  struct json_reader r = {path, (const char*)b.data, (const char*)b.data, (const char*)b.data + b.len};
  int have_inputs = 0, have_outputs = 0;
  json_expect(&r, '{');
  if (json_peek(&r) != '}') {
    do {
      const char* key_at = r.p;
      char* key;
      json_string(&r, &key);
      json_expect(&r, ':');
      int* seen = !strcmp(key, "inputs") ? &have_inputs : !strcmp(key, "outputs") ? &have_outputs : NULL;
      free(key);
      if (seen && *seen) {
        r.p = key_at;
        json_fail(&r, "duplicate key");
      }
      if (seen) {
        json_tensor_list(&r, seen == &have_inputs ? inputs : outputs);
        *seen = 1;
      } else {
        json_skip(&r, 1);
      }
    } while (json_more(&r, '}'));
  } else {
    ++r.p;
  }
  if (json_peek(&r) != -1) json_fail(&r, "text after the JSON object");
  if (!have_inputs || !have_outputs) json_fail(&r, "no \"inputs\" or no \"outputs\" list");
  free(b.data);
}
