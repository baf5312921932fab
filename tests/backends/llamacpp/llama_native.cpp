// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "llama_native.h"

#include <chat.h>
#include <ggml-backend.h>
#include <llama.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>

namespace wasinn_test {
namespace {

void quiet(ggml_log_level, const char*, void*) {}

struct ModelDeleter {
  void operator()(llama_model* m) const { llama_model_free(m); }
};

// One model per path for the whole test binary: loading is the slow part.
llama_model* model_for(const std::string& path) {
  static std::mutex mu;
  static std::map<std::string, std::unique_ptr<llama_model, ModelDeleter>> models;
  std::lock_guard lock(mu);
  if (auto it = models.find(path); it != models.end()) return it->second.get();
  llama_log_set(quiet, nullptr);
  // ggml's backends are run-time modules (GGML_BACKEND_DL): the reference needs only the CPU's,
  // unless the plugin in this process loaded it already (they share ggml's registry).
  const std::string module_dir = WASINN_GGML_MODULE_DIR;
  if (!ggml_backend_reg_by_name("CPU") && !ggml_backend_load((module_dir + "/libggml-cpu.so").c_str()))
    throw std::runtime_error("native llama.cpp: no CPU module in " + module_dir);
  llama_backend_init();
  llama_model_params mp = llama_model_default_params();
  // The CPU alone, even when the plugin in this process has loaded a GPU module.
  static ggml_backend_dev_t no_gpu[] = {nullptr};
  mp.devices = no_gpu;
  mp.n_gpu_layers = 0;
  llama_model* m = llama_model_load_from_file(path.c_str(), mp);
  if (!m) throw std::runtime_error("native llama.cpp could not load " + path);
  models[path].reset(m);
  return m;
}

struct CtxDeleter {
  void operator()(llama_context* c) const { llama_free(c); }
};

std::unique_ptr<llama_context, CtxDeleter> make_context(llama_model* m, const NativeSettings& s, bool embeddings) {
  llama_context_params p = llama_context_default_params();
  p.n_ctx = s.n_ctx;
  p.n_batch = std::min(s.n_batch, s.n_ctx);
  p.n_ubatch = embeddings ? p.n_batch : std::min(s.n_ubatch, p.n_batch);
  p.n_seq_max = 1;
  p.n_threads = static_cast<int32_t>(s.threads);
  p.n_threads_batch = static_cast<int32_t>(s.threads);
  p.embeddings = embeddings;
  p.pooling_type = static_cast<enum llama_pooling_type>(s.pooling);
  p.attention_type = static_cast<enum llama_attention_type>(s.attention);
  llama_context* c = llama_init_from_model(m, p);
  if (!c) throw std::runtime_error("native llama.cpp could not create a context");
  return std::unique_ptr<llama_context, CtxDeleter>(c);
}

std::vector<llama_token> tokenize(const llama_vocab* vocab, const std::string& text, bool add_special = true) {
  std::vector<llama_token> t(text.size() + 8);
  int n = llama_tokenize(vocab, text.data(), static_cast<int32_t>(text.size()), t.data(),
                         static_cast<int32_t>(t.size()), add_special, true);
  if (n < 0) throw std::runtime_error("native tokenize failed");
  t.resize(static_cast<size_t>(n));
  return t;
}

void decode(llama_context* c, std::vector<llama_token> tokens) {
  const size_t batch = llama_n_batch(c);
  for (size_t at = 0; at < tokens.size(); at += batch) {
    const auto n = static_cast<int32_t>(std::min(batch, tokens.size() - at));
    if (llama_decode(c, llama_batch_get_one(tokens.data() + at, n)) != 0) {
      throw std::runtime_error("native llama_decode failed");
    }
  }
}

std::string piece(const llama_vocab* vocab, llama_token t) {
  char buf[256];
  const int n = llama_token_to_piece(vocab, t, buf, sizeof buf, 0, true);
  if (n < 0) throw std::runtime_error("native token_to_piece failed");
  return std::string(buf, static_cast<size_t>(n));
}

}  // namespace

std::string NativeRun::text() const {
  std::string s;
  for (const auto& p : pieces) s += p;
  return s;
}

std::string native_chat_prompt(const std::string& model_path,
                               const std::vector<std::pair<std::string, std::string>>& messages) {
  // As llama-server --jinja renders a chat: llama.cpp's chat layer with the model's template
  // (chatml when it has none).
  const auto templates = common_chat_templates_init(model_for(model_path), "");
  common_chat_templates_inputs inputs;
  for (const auto& [role, content] : messages) {
    common_chat_msg m;
    m.role = role;
    m.content = content;
    inputs.messages.push_back(std::move(m));
  }
  inputs.use_jinja = true;
  inputs.add_generation_prompt = true;
  inputs.enable_thinking = common_chat_templates_support_enable_thinking(templates.get());
  inputs.reasoning_format = COMMON_REASONING_FORMAT_DEEPSEEK;
  return common_chat_templates_apply(templates.get(), inputs).prompt;
}

size_t native_token_count(const std::string& model_path, const std::string& prompt) {
  return tokenize(llama_model_get_vocab(model_for(model_path)), prompt).size();
}

std::vector<int32_t> native_tokenize(const std::string& model_path, const std::string& text, bool add_special) {
  return tokenize(llama_model_get_vocab(model_for(model_path)), text, add_special);
}

NativeRun native_generate(const std::string& model_path, const std::string& prompt, const NativeSettings& s) {
  return native_generate(model_path, tokenize(llama_model_get_vocab(model_for(model_path)), prompt), s);
}

NativeRun native_generate(const std::string& model_path, const std::vector<int32_t>& prompt_tokens,
                          const NativeSettings& s) {
  llama_model* m = model_for(model_path);
  const llama_vocab* vocab = llama_model_get_vocab(m);
  auto ctx = make_context(m, s, false);
  NativeRun run;
  run.n_prompt = prompt_tokens.size();
  decode(ctx.get(), prompt_tokens);
  uint32_t n_past = static_cast<uint32_t>(prompt_tokens.size());
  const int32_t n_vocab = llama_vocab_n_tokens(vocab);
  while (true) {
    if (s.n_predict >= 0 && run.tokens.size() >= static_cast<size_t>(s.n_predict)) {
      run.end = 100;
      break;
    }
    const float* logits = llama_get_logits_ith(ctx.get(), -1);
    llama_token best = 0;
    for (llama_token t = 1; t < n_vocab; ++t) {
      if (logits[t] > logits[best]) best = t;
    }
    if (llama_vocab_is_eog(vocab, best)) {
      run.end = 100;
      break;
    }
    run.tokens.push_back(best);
    run.pieces.push_back(piece(vocab, best));
    if (s.n_probs > 0) {  // log-softmax in double, on its own
      double sum = 0;
      for (llama_token t = 0; t < n_vocab; ++t) sum += std::exp(double(logits[t]) - double(logits[best]));
      const double norm = double(logits[best]) + std::log(sum);
      run.logprobs.push_back(float(double(logits[best]) - norm));
      std::vector<llama_token> order(n_vocab);
      for (llama_token t = 0; t < n_vocab; ++t) order[t] = t;
      std::stable_sort(order.begin(), order.end(), [&](llama_token a, llama_token b) { return logits[a] > logits[b]; });
      run.top.emplace_back();
      for (int i = 0; i < s.n_probs && i < n_vocab; ++i)
        run.top.back().emplace_back(piece(vocab, order[i]), float(double(logits[order[i]]) - norm));
    }
    if (s.n_predict >= 0 && run.tokens.size() >= static_cast<size_t>(s.n_predict)) continue;
    if (n_past >= s.n_ctx) {  // no room to feed the token back
      run.end = 101;
      break;
    }
    decode(ctx.get(), {best});
    ++n_past;
  }
  return run;
}

std::vector<float> native_embedding(const std::string& model_path, const std::string& prompt, const NativeSettings& s) {
  llama_model* m = model_for(model_path);
  auto ctx = make_context(m, s, true);
  decode(ctx.get(), tokenize(llama_model_get_vocab(m), prompt));
  const float* v = s.pooling > 0 ? llama_get_embeddings_seq(ctx.get(), 0) : llama_get_embeddings_ith(ctx.get(), -1);
  if (!v) throw std::runtime_error("native llama.cpp returned no embedding");
  const int32_t n = llama_model_n_embd(m);
  double norm = 0;
  for (int32_t i = 0; i < n; ++i) norm += double(v[i]) * v[i];
  norm = std::sqrt(norm);
  std::vector<float> out(static_cast<size_t>(n));
  for (int32_t i = 0; i < n; ++i) out[i] = static_cast<float>(v[i] / norm);
  return out;
}

std::vector<float> native_spectra(const std::string& vocoder_path, const std::vector<int32_t>& codes) {
  llama_model* m = model_for(vocoder_path);
  NativeSettings s;
  s.n_ctx = s.n_batch = s.n_ubatch = std::max<uint32_t>(static_cast<uint32_t>(codes.size()), 512);
  auto ctx = make_context(m, s, true);
  llama_batch batch = llama_batch_init(static_cast<int32_t>(codes.size()), 0, 1);
  for (size_t i = 0; i < codes.size(); ++i) {
    batch.token[i] = codes[i];
    batch.pos[i] = static_cast<llama_pos>(i);
    batch.n_seq_id[i] = 1;
    batch.seq_id[i][0] = 0;
    batch.logits[i] = 1;
  }
  batch.n_tokens = static_cast<int32_t>(codes.size());
  const int rc = llama_encode(ctx.get(), batch);
  llama_batch_free(batch);
  if (rc != 0) throw std::runtime_error("native llama_encode of the vocoder failed");
  const float* v = llama_get_embeddings(ctx.get());
  const size_t n = codes.size() * static_cast<size_t>(llama_model_n_embd_out(m));
  return std::vector<float>(v, v + n);
}

}  // namespace wasinn_test
