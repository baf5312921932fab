// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * http_classify: a wasi:http/proxy component (KIND http) that runs a preloaded model on the
 * request body through wasi:nn@0.2.0-rc-2024-10-28.
 *
 *   POST /infer/<graph>?dims=1,3,224,224[&input=NAME]
 *        body: the input tensor, little-endian f32 (as many bytes as dims say: 4 x product)
 *
 * load-by-name(<graph>) (the host's preloaded graph: `wasinn serve --nn-preload NAME:...`, or
 * `wasmtime serve -S nn-graph=onnx::DIR`, whose graph is named after DIR's last component),
 * init-execution-context, then compute with the one input tensor called NAME. Without `input`:
 * "0", the model's first input by position (a decimal name no input has: both Wasmtime's ONNX
 * backend and wasinn take it so).
 *
 * Answers:
 *   200 application/json  {"outputs":[{"name":"y","type":"fp32","dims":[1,4],"data":[1,2.5,...]}]}
 *                         every output in the host's order; floats with 9 significant digits
 *                         (%.9g: an f32 reads back exactly), fp64 with 17, integers as they are,
 *                         NaN and infinities as null
 *   400 {"error":"..."}   a path other than /infer/<graph>, no or bad dims, a body whose length
 *                         is not 4 x the product of dims; or, with "code":"invalid-argument", a
 *                         tensor the graph refuses (an input it lacks, a shape it does not take)
 *   404 {"error":"...","code":"not-found","data":"..."}  load-by-name found no such graph
 *   405 {"error":"..."}   a method other than POST
 *   500 {"error":"WHAT failed","code":"<wasi-nn error-code>","data":"<the error's data>"}
 *                         any other wasi:nn error (init-execution-context, compute)
 */
#include <stdlib.h>
#include <string.h>

#include "http_guest.h"
#include "wasi_nn_wit.h"

#define MAX_RANK 8

static const char* const kTypeNames[WNN_TYPE_COUNT] = {"fp16", "fp32", "fp64", "bf16", "u8", "i32", "i64"};

/* The error's code (and its data into *data, malloc'd); the error is dropped. */
static int error_take(wnn_error err, wnn_string* data) {
  int code = (int)wnn_error_get_code(err);
  *data = wnn_error_get_data(err);
  wnn_error_drop(err);
  return code;
}

static void respond_nn_error(wh_response_outparam out, int status, const char* what, int code, wnn_string data) {
  hg_buf b = {0};
  hg_buf_puts(&b, "{\"error\":");
  hg_buf_json_string(&b, what, strlen(what));
  hg_buf_puts(&b, ",\"code\":\"");
  hg_buf_nn_code(&b, code);
  hg_buf_puts(&b, "\",\"data\":");
  hg_buf_json_string(&b, data.ptr ? data.ptr : "", data.len);
  hg_buf_puts(&b, "}\n");
  hg_respond(out, status, "application/json", b.data, b.len);
  hg_buf_free(&b);
}

/* dims "1,3,224,224" -> dims[], *rank; 0, or -1 when malformed. */
static int parse_dims(const char* s, uint32_t* dims, uint32_t* rank) {
  *rank = 0;
  if (!*s) return -1;
  for (const char* p = s;;) {
    char* end;
    if (*p < '0' || *p > '9') return -1;
    unsigned long d = strtoul(p, &end, 10);
    if (*rank == MAX_RANK || d > 0xffffffffUL) return -1;
    dims[(*rank)++] = (uint32_t)d;
    if (!*end) return 0;
    if (*end != ',') return -1;
    p = end + 1;
  }
}

static float half_to_float(uint16_t h) {
  uint32_t sign = (uint32_t)(h >> 15) << 31, exp = (h >> 10) & 31, mant = h & 1023, bits;
  if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else { /* subnormal: normalize */
      exp = 127 - 15 + 1;
      while (!(mant & 1024)) {
        mant <<= 1;
        --exp;
      }
      bits = sign | (exp << 23) | ((mant & 1023) << 13);
    }
  } else if (exp == 31) {
    bits = sign | 0x7f800000u | (mant << 13);
  } else {
    bits = sign | ((exp + 127 - 15) << 23) | (mant << 13);
  }
  float f;
  memcpy(&f, &bits, 4);
  return f;
}

/* One output as a JSON object. */
static void output_json(hg_buf* b, const wnn_named_tensor* o) {
  wnn_u32_list dims = wnn_tensor_dimensions(o->tensor);
  wnn_tensor_type ty = wnn_tensor_ty(o->tensor);
  wnn_bytes data = wnn_tensor_data(o->tensor);
  hg_buf_puts(b, "{\"name\":");
  hg_buf_json_string(b, o->name, o->name_len);
  hg_buf_puts(b, ",\"type\":\"");
  hg_buf_puts(b, ty < WNN_TYPE_COUNT ? kTypeNames[ty] : "?");
  hg_buf_puts(b, "\",\"dims\":[");
  for (uint32_t i = 0; i < dims.len; ++i) {
    if (i) hg_buf_puts(b, ",");
    hg_buf_int(b, dims.ptr[i]);
  }
  hg_buf_puts(b, "],\"data\":[");
  static const uint32_t kSizes[WNN_TYPE_COUNT] = {2, 4, 8, 2, 1, 4, 8};
  uint32_t size = ty < WNN_TYPE_COUNT ? kSizes[ty] : 1, count = data.len / size;
  for (uint32_t i = 0; i < count && ty < WNN_TYPE_COUNT; ++i) {
    const uint8_t* p = data.ptr + (size_t)i * size;
    if (i) hg_buf_puts(b, ",");
    switch (ty) {
      case WNN_TYPE_FP32: {
        float f;
        memcpy(&f, p, 4);
        hg_buf_float(b, f, 9);
        break;
      }
      case WNN_TYPE_FP64: {
        double d;
        memcpy(&d, p, 8);
        hg_buf_float(b, d, 17);
        break;
      }
      case WNN_TYPE_FP16: {
        uint16_t h;
        memcpy(&h, p, 2);
        hg_buf_float(b, half_to_float(h), 9);
        break;
      }
      case WNN_TYPE_BF16: {
        uint32_t bits = (uint32_t)(p[0] | p[1] << 8) << 16;
        float f;
        memcpy(&f, &bits, 4);
        hg_buf_float(b, f, 9);
        break;
      }
      case WNN_TYPE_U8: hg_buf_int(b, p[0]); break;
      case WNN_TYPE_I32: {
        int32_t v;
        memcpy(&v, p, 4);
        hg_buf_int(b, v);
        break;
      }
      case WNN_TYPE_I64: {
        int64_t v;
        memcpy(&v, p, 8);
        hg_buf_int(b, v);
        break;
      }
    }
  }
  hg_buf_puts(b, "]}");
  free(dims.ptr);
  free(data.ptr);
}

static void classify(wh_incoming_request req, wh_response_outparam out, const hg_request* r) {
  if (r->method != WH_POST) {
    hg_respond_error(out, 405, "use POST /infer/<graph>?dims=D0,D1,... with the f32 tensor as the body");
    return;
  }
  if (strncmp(r->path, "/infer/", 7) || !r->path[7] || strchr(r->path + 7, '/')) {
    hg_respond_error(out, 400, "the path must be /infer/<graph>");
    return;
  }
  char* graph_name = strdup(r->path + 7);
  hg_percent_decode(graph_name);
  char* dims_text = hg_query_get(r->query, "dims");
  char* input = hg_query_get(r->query, "input");
  uint32_t dims[MAX_RANK], rank = 0;
  hg_buf body = {0};
  wnn_graph graph = 0;
  wnn_context ctx = 0;
  wnn_error err;
  wnn_string data = {0, 0};
  uint64_t want = 4;
  if (!dims_text || parse_dims(dims_text, dims, &rank)) {
    hg_respond_error(out, 400, "dims must be given as ?dims=D0,D1,... (at most 8 numbers)");
    goto done;
  }
  if (hg_read_body(req, &body)) {
    hg_respond_error(out, 400, "the request body could not be read");
    goto done;
  }
  for (uint32_t i = 0; i < rank; ++i) want *= dims[i];
  if (body.len != want) {
    hg_buf msg = {0};
    hg_buf_puts(&msg, "the body has ");
    hg_buf_int(&msg, (int64_t)body.len);
    hg_buf_puts(&msg, " bytes; f32 [");
    hg_buf_puts(&msg, dims_text);
    hg_buf_puts(&msg, "] needs ");
    hg_buf_int(&msg, (int64_t)want);
    hg_respond_error(out, 400, msg.data);
    hg_buf_free(&msg);
    goto done;
  }
  if (wnn_load_by_name(graph_name, (uint32_t)strlen(graph_name), &graph, &err)) {
    int code = error_take(err, &data);
    graph = 0;
    if (code == WNN_ERROR_NOT_FOUND) {
      respond_nn_error(out, 404, "no graph of that name", code, data);
    } else {
      respond_nn_error(out, 500, "load-by-name failed", code, data);
    }
    goto done;
  }
  if (wnn_init_execution_context(graph, &ctx, &err)) {
    ctx = 0;
    int code = error_take(err, &data);
    respond_nn_error(out, 500, "init-execution-context failed", code, data);
    goto done;
  }
  wnn_named_tensor_list outputs;
  const char* name = input ? input : "0";
  wnn_named_tensor in = wnn_named(name, wnn_tensor_new(dims, rank, WNN_TYPE_FP32, body.data, (uint32_t)body.len));
  if (wnn_compute(ctx, &in, 1, &outputs, &err)) {
    int code = error_take(err, &data);
    /* invalid-argument: the client's tensor (its input name, shape or size) does not fit the graph */
    respond_nn_error(out, code == WNN_ERROR_INVALID_ARGUMENT ? 400 : 500, "compute failed", code, data);
    goto done;
  }
  hg_buf json = {0};
  hg_buf_puts(&json, "{\"outputs\":[");
  for (uint32_t i = 0; i < outputs.len; ++i) {
    if (i) hg_buf_puts(&json, ",");
    output_json(&json, &outputs.ptr[i]);
  }
  hg_buf_puts(&json, "]}\n");
  wnn_named_tensor_list_free(&outputs);
  hg_respond(out, 200, "application/json", json.data, json.len);
  hg_buf_free(&json);
done:
  if (ctx) wnn_context_drop(ctx);
  if (graph) wnn_graph_drop(graph);
  free(data.ptr);
  hg_buf_free(&body);
  free(graph_name);
  free(dims_text);
  free(input);
}

WH_EXPORT_HANDLE void handle(wh_incoming_request req, wh_response_outparam out) { hg_handle(req, out, classify); }
