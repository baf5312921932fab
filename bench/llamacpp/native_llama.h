// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The native side of the llama.cpp benchmark: the same work the guest's bench_pp and bench_tg
// ask the plugin for, done directly on llama.h with the same context parameters and a greedy
// sampler chain: tokenize, clear the KV cache, decode, sample.
#pragma once

#include <llama.h>

#include <memory>
#include <string>
#include <vector>

namespace llama_bench {

struct NativeOptions {
  std::string model;
  uint32_t n_ctx = 1024;
  uint32_t n_batch = 512;
  uint32_t n_ubatch = 512;
  int threads = 2;
  int gen = 16;
  bool gpu = false;  // every layer on ggml's first GPU device (Vulkan), else the CPU alone
};

class NativeLlama {
 public:
  // Returns nullptr and sets *error if the model or a context cannot be made, or gpu was asked
  // and ggml has no GPU device.
  static std::unique_ptr<NativeLlama> open(const NativeOptions& o, int contexts, std::string* error);
  ~NativeLlama();
  NativeLlama(const NativeLlama&) = delete;
  NativeLlama& operator=(const NativeLlama&) = delete;

  // The prompt's token count (BOS included).
  size_t count_tokens(const std::string& text) const;
  // Tokenize the prompt, evaluate it on context 0 and sample one token.
  bool pp(const std::string& prompt, std::string* error);
  // From a BOS-only prompt, gen decode-and-sample steps on context 0.
  bool tg(std::string* error);
  // The greedy answer of `gen` tokens to the prompt, each token's text with special tokens
  // rendered, as the plugin's get_output gives it.
  std::string greedy_text(const std::string& prompt, std::string* error);
  // One short generation on every context, so each has touched its buffers.
  bool touch(const std::string& prompt, std::string* error);

 private:
  NativeLlama() = default;
  bool start(llama_context* ctx, const std::string& prompt, std::string* error);
  NativeOptions o_;
  llama_model* model_ = nullptr;
  std::vector<llama_context*> contexts_;
  llama_sampler* sampler_ = nullptr;
  llama_token last_ = 0;
  ggml_backend_dev_t devices_[2] = {nullptr, nullptr};  // llama_model_params.devices
};

}  // namespace llama_bench
