// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Native llama.cpp's answer (llama_native.h, greedy) as JSON, for tests that drive wasinn through
// a client of their own (tests/serve/openai_test.py):
//   llama_reference MODEL --prompt TEXT [OPTIONS]     {"text_hex", "n_prompt", "n_tokens", "prompt"}
//   llama_reference MODEL --messages JSON [OPTIONS]   the same, through the chat template
//   llama_reference MODEL --embedding TEXT [OPTIONS]  {"embedding": [...], "n_prompt"}
// OPTIONS: --n N (tokens; default until the end), --ctx N (512), --threads N (1), --logprobs K (each
// token's log-softmax, "logprobs", its text, "tokens", and its K likeliest candidates', "top").
// text_hex: the answer's bytes in hex (a token may end mid-character).
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include <nlohmann/json.hpp>

#include "llama_native.h"

using nlohmann::json;
using namespace wasinn_test;

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr,
                 "usage: llama_reference MODEL (--prompt TEXT | --messages JSON | --embedding TEXT) [--n N] "
                 "[--ctx N] [--threads N]\n");
    return 2;
  }
  try {
    const std::string model = argv[1], mode = argv[2], arg = argv[3];
    NativeSettings s;
    s.n_ctx = 512;
    for (int i = 4; i + 1 < argc; i += 2) {
      const std::string k = argv[i];
      if (k == "--n")
        s.n_predict = std::atoi(argv[i + 1]);
      else if (k == "--ctx")
        s.n_ctx = static_cast<uint32_t>(std::atoi(argv[i + 1]));
      else if (k == "--logprobs")
        s.n_probs = std::atoi(argv[i + 1]);
      else if (k == "--threads")
        s.threads = static_cast<uint32_t>(std::atoi(argv[i + 1]));
      else
        throw std::runtime_error("unknown option " + k);
    }
    json out;
    if (mode == "--embedding") {
      out["embedding"] = native_embedding(model, arg, s);
      out["n_prompt"] = native_token_count(model, arg);
    } else {
      std::string prompt = arg;
      if (mode == "--messages") {
        std::vector<std::pair<std::string, std::string>> messages;
        for (const auto& m : json::parse(arg)) messages.emplace_back(m.at("role"), m.at("content"));
        prompt = native_chat_prompt(model, messages);
      } else if (mode != "--prompt") {
        throw std::runtime_error("unknown mode " + mode);
      }
      const NativeRun run = native_generate(model, prompt, s);
      static const char hex[] = "0123456789abcdef";
      std::string text_hex;
      for (unsigned char c : run.text()) {
        text_hex += hex[c >> 4];
        text_hex += hex[c & 15];
      }
      out = {{"text_hex", text_hex}, {"n_prompt", run.n_prompt}, {"n_tokens", run.tokens.size()}, {"prompt", prompt}};
      if (s.n_probs > 0) {
        out["logprobs"] = run.logprobs;
        out["tokens"] = run.pieces;
        out["top"] = run.top;
      }
    }
    std::puts(out.dump(-1, ' ', false, json::error_handler_t::replace).c_str());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "llama_reference: %s\n", e.what());
    return 1;
  }
}
