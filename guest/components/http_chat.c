// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * http_chat: a wasi:http/proxy component (KIND http) that answers a prompt with an LLM through
 * wasi:nn@0.2.0-rc-2024-10-28, as wit_chat does for one prompt.
 *
 *   POST /                 graph "default"
 *   POST /chat/<graph>     graph <graph>
 *        ?n=N              n-predict (default 32, 1..100000)
 *        &temp=T           the sampling temperature (a decimal number; default: the host's)
 *        body: the prompt (text)
 *
 * load-by-name, init-execution-context, then one compute([("prompt", U8 tensor [len] of the
 * body), ("metadata", U8 JSON {"n-predict": N, "ctx-size": 1024[, "temp": T]})]) as wit_chat
 * does (WIT has no load config: llama.cpp's config goes in as the optional "metadata" input);
 * the output named "text" (U8) is the answer.
 *
 * Answers:
 *   200 text/plain; charset=utf-8, with no content-length: the text, written and flushed one
 *       word (with the spaces after it) at a time, so the host sends the body chunked. WIT
 *       wasi:nn 0.2 has no per-token streaming (compute returns the whole text), so the pieces
 *       come after the whole generation: this shows the streaming path, not token latency.
 *   400 {"error":"..."}  an empty prompt, a bad n or temp
 *   404 {"error":"..."}  another path, or load-by-name found no such graph
 *   405 {"error":"..."}  a method other than POST
 *   500 {"error":"WHAT failed: CODE: DATA"}  another wasi:nn error, or no output named "text"
 */
#include <stdlib.h>
#include <string.h>

#include "http_guest.h"
#include "wasi_nn_wit.h"

static void respond_nn_error(wh_response_outparam out, const char* what, wnn_error err) {
  int code = (int)wnn_error_get_code(err);
  wnn_string data = wnn_error_get_data(err);
  wnn_error_drop(err);
  hg_buf msg = {0};
  hg_buf_puts(&msg, what);
  hg_buf_puts(&msg, " failed: ");
  hg_buf_nn_code(&msg, code);
  hg_buf_puts(&msg, ": ");
  hg_buf_append(&msg, data.ptr, data.len);
  free(data.ptr);
  hg_respond_error(out, code == WNN_ERROR_NOT_FOUND && !strcmp(what, "load-by-name") ? 404 : 500, msg.data);
  hg_buf_free(&msg);
}

/* A decimal number (digits, at most one '.'): what temp may be, passed into the JSON as is. */
static int is_decimal(const char* s) {
  int digits = 0, dots = 0;
  for (; *s; ++s) {
    if (*s >= '0' && *s <= '9')
      ++digits;
    else if (*s == '.' && !dots++)
      continue;
    else
      return 0;
  }
  return digits > 0;
}

static void chat(wh_incoming_request req, wh_response_outparam out, const hg_request* r) {
  if (r->method != WH_POST) {
    hg_respond_error(out, 405, "use POST / or POST /chat/<graph> with the prompt as the body");
    return;
  }
  char* graph_name = NULL;
  if (!strcmp(r->path, "/")) {
    graph_name = strdup("default");
  } else if (!strncmp(r->path, "/chat/", 6) && r->path[6] && !strchr(r->path + 6, '/')) {
    graph_name = strdup(r->path + 6);
    hg_percent_decode(graph_name);
  } else {
    hg_respond_error(out, 404, "no such path: POST / or POST /chat/<graph>");
    return;
  }
  char* n_text = hg_query_get(r->query, "n");
  char* temp = hg_query_get(r->query, "temp");
  hg_buf prompt = {0}, config = {0};
  wnn_graph graph = 0;
  wnn_context ctx = 0;
  wnn_error err;
  long n = 32;
  if (n_text) {
    char* end;
    n = strtol(n_text, &end, 10);
    if (!*n_text || *end || n < 1 || n > 100000) {
      hg_respond_error(out, 400, "n must be a number of tokens, 1..100000");
      goto done;
    }
  }
  if (temp && !is_decimal(temp)) {
    hg_respond_error(out, 400, "temp must be a decimal number like 0 or 0.8");
    goto done;
  }
  if (hg_read_body(req, &prompt) || prompt.len == 0) {
    hg_respond_error(out, 400, "the body must be the prompt (not empty)");
    goto done;
  }
  hg_buf_puts(&config, "{\"n-predict\": ");
  hg_buf_int(&config, n);
  hg_buf_puts(&config, ", \"ctx-size\": 1024");
  if (temp) {
    hg_buf_puts(&config, ", \"temp\": ");
    hg_buf_puts(&config, temp);
  }
  hg_buf_puts(&config, "}");

  if (wnn_load_by_name(graph_name, (uint32_t)strlen(graph_name), &graph, &err)) {
    graph = 0;
    respond_nn_error(out, "load-by-name", err);
    goto done;
  }
  if (wnn_init_execution_context(graph, &ctx, &err)) {
    ctx = 0;
    respond_nn_error(out, "init-execution-context", err);
    goto done;
  }
  uint32_t dims[1] = {(uint32_t)prompt.len};
  uint32_t config_dims[1] = {(uint32_t)config.len};
  wnn_named_tensor inputs[2] = {
      wnn_named("prompt", wnn_tensor_new(dims, 1, WNN_TYPE_U8, prompt.data, (uint32_t)prompt.len)),
      wnn_named("metadata", wnn_tensor_new(config_dims, 1, WNN_TYPE_U8, config.data, (uint32_t)config.len))};
  wnn_named_tensor_list outputs;
  if (wnn_compute(ctx, inputs, 2, &outputs, &err)) {
    respond_nn_error(out, "compute", err);
    goto done;
  }
  int k = wnn_find_output(&outputs, "text");
  if (k < 0) {
    wnn_named_tensor_list_free(&outputs);
    hg_respond_error(out, 500, "compute gave no output named text");
    goto done;
  }
  wnn_bytes text = wnn_tensor_data(outputs.ptr[k].tensor);
  wnn_named_tensor_list_free(&outputs);

  hg_stream s;
  hg_stream_begin(out, 200, "text/plain; charset=utf-8", &s);
  for (uint32_t start = 0; start < text.len;) {
    uint32_t end = start;
    while (end < text.len && text.ptr[end] != ' ') ++end;
    while (end < text.len && text.ptr[end] == ' ') ++end;
    if (hg_stream_write(&s, text.ptr + start, end - start)) break; /* the client has gone */
    start = end;
  }
  hg_stream_end(&s);
  free(text.ptr);
done:
  if (ctx) wnn_context_drop(ctx);
  if (graph) wnn_graph_drop(graph);
  hg_buf_free(&prompt);
  hg_buf_free(&config);
  free(graph_name);
  free(n_text);
  free(temp);
}

WH_EXPORT_HANDLE void handle(wh_incoming_request req, wh_response_outparam out) { hg_handle(req, out, chat); }
