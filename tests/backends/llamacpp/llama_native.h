// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Native llama.cpp runs, written directly on llama.h and independent of the plugin's code: the
// reference the guest's tokens and embeddings must equal. Greedy decoding picks the first
// token with the highest logit, as llama.cpp's greedy sampler does.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace wasinn_test {

struct NativeSettings {
  uint32_t n_ctx = 128;
  uint32_t n_batch = 512;
  uint32_t n_ubatch = 512;
  uint32_t threads = 1;
  int n_predict = -1;  // -1: until end of generation or a full context
  int n_probs = 0;     // > 0: each token's log-softmax and that many likeliest candidates' (NativeRun)
  int pooling = -1;    // an embedding's llama_pooling_type and llama_attention_type; -1: the model's
  int attention = -1;
};

struct NativeRun {
  size_t n_prompt = 0;
  std::vector<int32_t> tokens;
  std::vector<std::string> pieces;  // each token's text, special tokens rendered
  int end = 0;                      // 100: end of generation or n_predict reached; 101: the context is full
  std::vector<float> logprobs;      // with n_probs: each token's log-probability (log-softmax of the logits)
  std::vector<std::vector<std::pair<std::string, float>>> top;  // and its n_probs likeliest candidates'
  std::string text() const;
};

NativeRun native_generate(const std::string& model_path, const std::string& prompt, const NativeSettings& s);
// From tokens: a prompt made of pieces tokenized apart.
NativeRun native_generate(const std::string& model_path, const std::vector<int32_t>& prompt_tokens,
                          const NativeSettings& s);
std::vector<int32_t> native_tokenize(const std::string& model_path, const std::string& text, bool add_special);

// A WavTokenizer decoder's (wavtokenizer-dec) output for `codes`: one spectrum of n_embd_out floats
// per code, all codes in one llama_encode.
std::vector<float> native_spectra(const std::string& vocoder_path, const std::vector<int32_t>& codes);

// The embedding as the backend defines it: the last token's hidden state (llama has no pooling),
// or the sequence's pooled one with `pooling` set, L2-normalised.
std::vector<float> native_embedding(const std::string& model_path, const std::string& prompt, const NativeSettings& s);

// The prompt llama-server --jinja makes of (role, content) messages: llama.cpp's chat layer with the
// model's Jinja template (chatml when the GGUF has none), ending where the answer begins.
std::string native_chat_prompt(const std::string& model_path,
                               const std::vector<std::pair<std::string, std::string>>& messages);

// Prompt length in tokens (BOS included).
size_t native_token_count(const std::string& model_path, const std::string& prompt);

}  // namespace wasinn_test
