#include "llm_context.h"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <string_view>

#include "llm_embedding.h"
#include "llm_log.h"

#ifndef WASINN_LLAMA_BUILD_NUMBER
#define WASINN_LLAMA_BUILD_NUMBER 0
#endif
#ifndef WASINN_LLAMA_COMMIT
#define WASINN_LLAMA_COMMIT "unknown"
#endif

namespace wasinn_llama {
namespace {

enum class Slot { prompt = 0, metadata = 1 };

// Index, or the names io_info reports ("prompt"/"text", "metadata").
Error resolve_slot(const wasinn_tensor_id *id, bool is_output, Slot &slot) {
  if (!id) return {WASINN_INVALID_ARGUMENT, "tensor id is NULL"};
  if (id->name) {
    const std::string_view name(id->name, id->name_length);
    if (name == (is_output ? "text" : "prompt")) {
      slot = Slot::prompt;
    } else if (name == "metadata") {
      slot = Slot::metadata;
    } else {
      return {WASINN_INVALID_ARGUMENT, std::string(is_output ? "output" : "input") + " \"" + std::string(name) +
                                           "\" does not exist (" + (is_output ? "text" : "prompt") + ", metadata)"};
    }
    return {};
  }
  if (id->index > 1) {
    return {WASINN_INVALID_ARGUMENT,
            std::string(is_output ? "output " : "input ") + std::to_string(id->index) +
                (is_output ? " does not exist: 0 is the text (or embedding), 1 the metadata JSON"
                           : " does not exist: 0 is the prompt, 1 the metadata JSON")};
  }
  slot = static_cast<Slot>(id->index);
  return {};
}

bool abort_requested(void *data) { return static_cast<std::atomic<bool> *>(data)->load(std::memory_order_relaxed); }

ContextShape wanted_shape(const wasinn_context &ctx) {
  const LlamaOptions &o = ctx.options;
  ContextShape s;
  s.n_ctx = o.ctx_size > 0 ? o.ctx_size : (ctx.graph->n_ctx_train > 0 ? ctx.graph->n_ctx_train : 512);
  s.n_batch = std::min(o.batch_size, s.n_ctx);
  // Pooled embeddings need the whole prompt in one physical batch.
  s.n_ubatch = o.embedding ? s.n_batch : std::min(o.ubatch_size, s.n_batch);
  s.embedding = o.embedding;
  return s;
}

// Makes the llama_context match the options; only this context's KV cache is remade.
Error prepare_llama_context(wasinn_context &ctx, const LogScope &scope) {
  const ContextShape want = wanted_shape(ctx);
  const auto threads = static_cast<int32_t>(ctx.options.effective_threads());
  if (ctx.llama && ctx.shape == want) {
    if (llama_n_threads(ctx.llama.get()) != threads) llama_set_n_threads(ctx.llama.get(), threads, threads);
    return {};
  }
  ctx.stream.reset();  // it points at the llama_context about to go
  ctx.llama.reset();
  llama_context_params p = llama_context_default_params();
  p.n_ctx = want.n_ctx;
  p.n_batch = want.n_batch;
  p.n_ubatch = want.n_ubatch;
  p.n_seq_max = 1;
  p.n_threads = threads;
  p.n_threads_batch = threads;
  p.embeddings = want.embedding;
  p.abort_callback = abort_requested;
  p.abort_callback_data = &ctx.cancel_requested;
  p.no_perf = !ctx.options.enable_log;
  llama_context *made = llama_init_from_model(ctx.graph->model.get(), p);
  if (!made) {
    return {WASINN_RUNTIME_ERROR, "could not create a llama context of " + std::to_string(want.n_ctx) + " tokens" +
                                      (scope.errors().empty() ? "" : ": " + scope.errors())};
  }
  ctx.llama.reset(made);
  ctx.shape = want;
  if (ctx.options.enable_debug_log) {
    log_line("context: n_ctx " + std::to_string(want.n_ctx) + ", n_batch " + std::to_string(want.n_batch) +
             ", n_ubatch " + std::to_string(want.n_ubatch) + ", threads " + std::to_string(threads) +
             (want.embedding ? ", embeddings" : ""));
  }
  return {};
}

Error tokenize(const wasinn_graph &graph, std::string_view text, std::vector<llama_token> &out) {
  if (text.size() > static_cast<size_t>(INT32_MAX / 2)) {
    return {WASINN_TOO_LARGE, "the prompt of " + std::to_string(text.size()) + " bytes is too large to tokenize"};
  }
  const auto len = static_cast<int32_t>(text.size());
  // A first guess that fits most prompts; a longer prompt is measured by the first call, so a
  // huge input never makes a buffer of one token per byte.
  out.resize(std::min<size_t>(text.size() + 8, 4096));
  int32_t n = llama_tokenize(graph.vocab, text.data(), len, out.data(), static_cast<int32_t>(out.size()),
                             /*add_special=*/true, /*parse_special=*/true);
  if (n < 0 && n != INT32_MIN) {
    out.resize(static_cast<size_t>(-n));
    n = llama_tokenize(graph.vocab, text.data(), len, out.data(), -n, true, true);
  }
  if (n < 0) return {WASINN_INVALID_ARGUMENT, "the prompt could not be tokenized"};
  out.resize(static_cast<size_t>(n));
  return {};
}

void set_bytes(wasinn_context &ctx, std::string_view bytes, wasinn_tensor &out) {
  ctx.out_dims[0] = static_cast<uint32_t>(bytes.size());
  out.type = WASINN_TYPE_U8;
  out.rank = 1;
  out.dims = ctx.out_dims;
  out.data = bytes.data();
  out.data_length = bytes.size();
}

void set_metadata(wasinn_context &ctx, wasinn_tensor &out) {
  ctx.metadata = "{\"input_tokens\": " + std::to_string(ctx.prompt.size()) +
                 ", \"output_tokens\": " + std::to_string(ctx.stream.tokens().size()) +
                 ", \"llama_build_number\": " + std::to_string(WASINN_LLAMA_BUILD_NUMBER) +
                 ", \"llama_commit\": \"" WASINN_LLAMA_COMMIT "\"}";
  set_bytes(ctx, ctx.metadata, out);
}

// Streams of compute() and compute_single() start the same way.
Error start_generation(wasinn_context &ctx, const LogScope &scope) {
  if (!ctx.has_prompt) return {WASINN_INVALID_ARGUMENT, "no prompt: set input 0 first"};
  if (Error e = prepare_llama_context(ctx, scope)) return e;
  ctx.output_is_embedding = false;
  const uint32_t n_ctx = std::min(ctx.shape.n_ctx, llama_n_ctx(ctx.llama.get()));
  return ctx.stream.begin(ctx.llama.get(), ctx.graph->vocab, ctx.prompt, n_ctx, ctx.options);
}

}  // namespace

Error create_context(wasinn_graph &graph, std::unique_ptr<wasinn_context> &out) {
  out = std::make_unique<wasinn_context>(&graph);  // the llama_context is made at first compute
  return {};
}

Error set_input(wasinn_context &ctx, const wasinn_tensor_id *id, const wasinn_tensor &tensor) {
  Slot slot;
  if (Error e = resolve_slot(id, false, slot)) return e;
  // Any element type and dims are taken as raw bytes: WasmEdge's guests send U8 with dims [1].
  const std::string_view bytes(static_cast<const char *>(tensor.data), tensor.data ? tensor.data_length : 0);
  LogScope scope(ctx.options.enable_log);
  if (slot == Slot::metadata) {
    LlamaOptions updated = ctx.options;
    std::vector<IgnoredKey> ignored;
    if (Error e = apply_config(bytes, updated, ignored)) return {e.status, "metadata (input 1): " + e.message};
    log_ignored(ignored, "metadata");
    if (updated.n_gpu_layers != ctx.options.n_gpu_layers || updated.use_mmap != ctx.options.use_mmap) {
      log_line("metadata: n-gpu-layers and use-mmap apply when the model is loaded; this context keeps the loaded model");
    }
    ctx.options = std::move(updated);  // takes effect at the next generation
    return {};
  }
  std::vector<llama_token> tokens;
  if (Error e = tokenize(*ctx.graph, bytes, tokens)) return e;
  ctx.prompt = std::move(tokens);
  ctx.has_prompt = true;
  ctx.stream.reset();  // a new prompt ends any sequence in progress
  ctx.streaming = false;
  ctx.output_is_embedding = false;
  if (ctx.options.enable_debug_log) log_line("set_input: prompt of " + std::to_string(ctx.prompt.size()) + " tokens");
  return {};
}

Error compute(wasinn_context &ctx) {
  ctx.cancel_requested.store(false);
  LogScope scope(ctx.options.enable_log);
  ctx.streaming = false;
  if (ctx.options.embedding) {
    if (!ctx.has_prompt) return {WASINN_INVALID_ARGUMENT, "no prompt: set input 0 first"};
    if (Error e = prepare_llama_context(ctx, scope)) return e;
    ctx.stream.reset();
    ctx.output_is_embedding = true;
    return compute_embedding(ctx.llama.get(), ctx.prompt, ctx.graph->n_embd, ctx.embedding);
  }
  if (Error e = start_generation(ctx, scope)) return e;
  const bool to_stdout = ctx.options.stream_stdout;
  Error result;
  while (true) {
    if (ctx.cancel_requested.load()) {
      result = {WASINN_TIMEOUT, "generation was cancelled"};
      break;
    }
    Error e = ctx.stream.next();
    if (e.status == WASINN_END_OF_SEQUENCE) break;  // a complete answer
    if (e) {
      result = e;  // CONTEXT_FULL keeps the text so far, as WasmEdge does
      break;
    }
    if (to_stdout) {
      const std::string_view piece = ctx.stream.last_piece();
      std::fwrite(piece.data(), 1, piece.size(), stdout);
      std::fflush(stdout);
    }
  }
  if (ctx.options.enable_log) llama_perf_context_print(ctx.llama.get());
  return result;
}

Error get_output(wasinn_context &ctx, const wasinn_tensor_id *id, wasinn_tensor &out) {
  Slot slot;
  if (Error e = resolve_slot(id, true, slot)) return e;
  if (slot == Slot::metadata) {
    set_metadata(ctx, out);
  } else if (ctx.output_is_embedding) {
    ctx.out_dims[0] = static_cast<uint32_t>(ctx.embedding.size());
    out.type = WASINN_TYPE_F32;
    out.rank = 1;
    out.dims = ctx.out_dims;
    out.data = ctx.embedding.data();
    out.data_length = ctx.embedding.size() * sizeof(float);
  } else {
    set_bytes(ctx, ctx.stream.text(), out);
  }
  return {};
}

Error compute_single(wasinn_context &ctx) {
  ctx.cancel_requested.store(false);
  LogScope scope(ctx.options.enable_log);
  if (!ctx.streaming) {
    if (ctx.options.embedding) {
      return {WASINN_UNSUPPORTED_OPERATION, "compute_single streams text; with \"embedding\": true use compute"};
    }
    if (Error e = start_generation(ctx, scope)) return e;
    ctx.streaming = true;
  }
  Error e = ctx.stream.next();
  if (e && e.status != WASINN_END_OF_SEQUENCE && e.status != WASINN_CONTEXT_FULL) {
    // A failed or cancelled decode may leave part of a batch in the KV cache: the next call
    // starts the sequence over rather than continue from an unknown state.
    ctx.streaming = false;
  }
  return e;
}

Error get_output_single(wasinn_context &ctx, const wasinn_tensor_id *id, wasinn_tensor &out) {
  Slot slot;
  if (Error e = resolve_slot(id, true, slot)) return e;
  if (slot == Slot::metadata) {
    set_metadata(ctx, out);
  } else {
    set_bytes(ctx, ctx.stream.last_piece(), out);
  }
  return {};
}

Error fini_single(wasinn_context &ctx) {
  LogScope scope(ctx.options.enable_log);
  if (ctx.options.enable_log && ctx.llama) llama_perf_context_print(ctx.llama.get());
  ctx.stream.reset();
  ctx.streaming = false;
  if (ctx.llama) llama_memory_clear(llama_get_memory(ctx.llama.get()), true);
  return {};
}

}  // namespace wasinn_llama
