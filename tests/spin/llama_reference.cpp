// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// llama_reference: native llama.cpp's answers (llama_native.cpp, the C++ tests' reference) for
// the scripts that compare a served guest's with them (spin_test.py):
//   llama_reference MODEL generate PROMPT N_PREDICT N_CTX THREADS  -> OUT: the greedy text's bytes
//   llama_reference MODEL embed PROMPT N_CTX THREADS               -> OUT: the embedding's f32s
// each written to stdout, with one line on stderr: the prompt's token count and, for generate,
// the generated tokens' count ("n_prompt N n_generated M"). Exit 0, or 1 with a message.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "llama_native.h"

namespace {

int usage() {
  std::fprintf(stderr,
               "usage: llama_reference MODEL generate PROMPT N_PREDICT N_CTX THREADS\n"
               "       llama_reference MODEL embed PROMPT N_CTX THREADS\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) return usage();
  const std::string model = argv[1], mode = argv[2];
  try {
    wasinn_test::NativeSettings s;
    if (mode == "generate" && argc == 7) {
      s.n_predict = std::stoi(argv[4]);
      s.n_ctx = static_cast<uint32_t>(std::stoul(argv[5]));
      s.threads = static_cast<uint32_t>(std::stoul(argv[6]));
      const wasinn_test::NativeRun run = wasinn_test::native_generate(model, argv[3], s);
      const std::string text = run.text();
      std::fwrite(text.data(), 1, text.size(), stdout);
      std::fprintf(stderr, "n_prompt %zu n_generated %zu\n", run.n_prompt, run.tokens.size());
      return 0;
    }
    if (mode == "embed" && argc == 6) {
      s.n_ctx = static_cast<uint32_t>(std::stoul(argv[4]));
      s.threads = static_cast<uint32_t>(std::stoul(argv[5]));
      const std::vector<float> v = wasinn_test::native_embedding(model, argv[3], s);
      std::fwrite(v.data(), sizeof(float), v.size(), stdout);
      std::fprintf(stderr, "n_prompt %zu\n", wasinn_test::native_token_count(model, argv[3]));
      return 0;
    }
    return usage();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "llama_reference: %s\n", e.what());
    return 1;
  }
}
