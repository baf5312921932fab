// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "native_llama.h"

#include <ggml-backend.h>

#include <string>

namespace llama_bench {
namespace {
void quiet(ggml_log_level, const char*, void*) {}

// ggml's backends are run-time modules (GGML_BACKEND_DL), loaded from llama.cpp's own build as
// the plugin loads them; the plugin in this process may have loaded them already.
void load_modules(bool gpu) {
  if (!ggml_backend_reg_by_name("CPU"))
    ggml_backend_load((std::string(WASINN_GGML_MODULE_DIR) + "/libggml-cpu.so").c_str());
  if (gpu && !ggml_backend_reg_by_name("Vulkan"))
    ggml_backend_load((std::string(WASINN_GGML_MODULE_DIR) + "/libggml-vulkan.so").c_str());
}

ggml_backend_dev_t first_gpu() {
  for (size_t i = 0; i < ggml_backend_dev_count(); ++i) {
    const auto type = ggml_backend_dev_type(ggml_backend_dev_get(i));
    if (type == GGML_BACKEND_DEVICE_TYPE_GPU || type == GGML_BACKEND_DEVICE_TYPE_IGPU) return ggml_backend_dev_get(i);
  }
  return nullptr;
}

std::vector<llama_token> tokenize(const llama_vocab* vocab, const std::string& text) {
  std::vector<llama_token> t(text.size() + 8);
  const int n = llama_tokenize(vocab, text.data(), static_cast<int32_t>(text.size()), t.data(),
                               static_cast<int32_t>(t.size()), true, true);
  t.resize(n > 0 ? static_cast<size_t>(n) : 0);
  return t;
}

bool decode(llama_context* ctx, llama_token* tokens, size_t n, std::string* error) {
  const size_t batch = llama_n_batch(ctx);
  for (size_t at = 0; at < n; at += batch) {
    const auto k = static_cast<int32_t>(std::min(batch, n - at));
    if (llama_decode(ctx, llama_batch_get_one(tokens + at, k)) != 0) {
      *error = "native llama_decode failed";
      return false;
    }
  }
  return true;
}
}  // namespace

std::unique_ptr<NativeLlama> NativeLlama::open(const NativeOptions& o, int contexts, std::string* error) {
  std::unique_ptr<NativeLlama> n(new NativeLlama());
  n->o_ = o;
  llama_log_set(quiet, nullptr);
  load_modules(o.gpu);
  llama_backend_init();
  llama_model_params mp = llama_model_default_params();
  if (o.gpu) {
    n->devices_[0] = first_gpu();
    if (!n->devices_[0]) {
      *error = "native llama.cpp: no GPU device (for Mesa's lavapipe, set GGML_VK_VISIBLE_DEVICES=0)";
      return nullptr;
    }
  }
  mp.devices = n->devices_;  // the GPU, then nullptr; or only nullptr: the CPU alone
  mp.n_gpu_layers = o.gpu ? -1 : 0;
  mp.load_mode = LLAMA_LOAD_MODE_MMAP;  // as the plugin loads a preloaded model
  n->model_ = llama_model_load_from_file(o.model.c_str(), mp);
  if (!n->model_) {
    *error = "native llama.cpp could not load " + o.model;
    return nullptr;
  }
  for (int i = 0; i < contexts; ++i) {
    llama_context_params p = llama_context_default_params();
    p.n_ctx = o.n_ctx;
    p.n_batch = std::min(o.n_batch, o.n_ctx);
    p.n_ubatch = std::min(o.n_ubatch, p.n_batch);
    p.n_seq_max = 1;
    p.n_threads = o.threads;
    p.n_threads_batch = o.threads;
    llama_context* c = llama_init_from_model(n->model_, p);
    if (!c) {
      *error = "native llama.cpp could not create a context";
      return nullptr;
    }
    n->contexts_.push_back(c);
  }
  return n;
}

NativeLlama::~NativeLlama() {
  if (sampler_) llama_sampler_free(sampler_);
  for (auto* c : contexts_) llama_free(c);
  if (model_) llama_model_free(model_);
}

size_t NativeLlama::count_tokens(const std::string& text) const {
  return tokenize(llama_model_get_vocab(model_), text).size();
}

// What the plugin's first compute_single does: fresh sampler, empty memory, prompt decoded,
// one token sampled.
bool NativeLlama::start(llama_context* ctx, const std::string& prompt, std::string* error) {
  auto tokens = tokenize(llama_model_get_vocab(model_), prompt);
  if (sampler_) llama_sampler_free(sampler_);
  llama_sampler_chain_params sp = llama_sampler_chain_default_params();
  sp.no_perf = true;
  sampler_ = llama_sampler_chain_init(sp);
  llama_sampler_chain_add(sampler_, llama_sampler_init_greedy());
  llama_memory_clear(llama_get_memory(ctx), true);
  if (!decode(ctx, tokens.data(), tokens.size(), error)) return false;
  last_ = llama_sampler_sample(sampler_, ctx, -1);
  return true;
}

bool NativeLlama::pp(const std::string& prompt, std::string* error) { return start(contexts_[0], prompt, error); }

bool NativeLlama::tg(std::string* error) {
  llama_context* ctx = contexts_[0];
  if (!start(ctx, "", error)) return false;
  for (int i = 1; i < o_.gen; ++i) {
    if (!decode(ctx, &last_, 1, error)) return false;
    last_ = llama_sampler_sample(sampler_, ctx, -1);
  }
  return true;
}

std::string NativeLlama::greedy_text(const std::string& prompt, std::string* error) {
  llama_context* ctx = contexts_[0];
  const llama_vocab* vocab = llama_model_get_vocab(model_);
  std::string text;
  if (!start(ctx, prompt, error)) return text;
  for (int i = 0; i < o_.gen && !llama_vocab_is_eog(vocab, last_); ++i) {
    char piece[256];
    const int n = llama_token_to_piece(vocab, last_, piece, sizeof piece, 0, true);
    if (n > 0) text.append(piece, static_cast<size_t>(n));
    if (i + 1 == o_.gen || !decode(ctx, &last_, 1, error)) break;
    last_ = llama_sampler_sample(sampler_, ctx, -1);
  }
  return text;
}

bool NativeLlama::touch(const std::string& prompt, std::string* error) {
  for (auto* c : contexts_) {
    if (!start(c, prompt, error)) return false;
    for (int i = 0; i < 8; ++i) {
      if (!decode(c, &last_, 1, error)) return false;
      last_ = llama_sampler_sample(sampler_, c, -1);
    }
  }
  return true;
}

}  // namespace llama_bench
