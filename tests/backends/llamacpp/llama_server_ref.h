// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// llama.cpp's own llama-server (.deps/llamacpp-dl/bin/llama-server, built by
// scripts/deps/llamacpp.sh from the plugin's llama.cpp build) on loopback: the reference the chat
// tests compare the plugin with, on the same GGUF file and template, as `llama-server --jinja`.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <string>
#include <vector>

namespace wasinn_test {

class LlamaServer {
 public:
  // Starts it on a free loopback port with `model` and these extra arguments (e.g.
  // --chat-template-file), CPU only; waits (at most 120 s) until /health answers 200.
  LlamaServer(const std::string& model, const std::vector<std::string>& args);
  ~LlamaServer();
  LlamaServer(const LlamaServer&) = delete;
  LlamaServer& operator=(const LlamaServer&) = delete;

  bool ready() const { return ready_; }
  const std::string& why_not() const { return why_not_; }  // when not ready: what happened, and its log
  // POSTs a JSON body; the response's status and body.
  int post(const std::string& path, const std::string& body, std::string& out) const;

 private:
  pid_t pid_ = -1;
  int port_ = 0;
  bool ready_ = false;
  std::string why_not_;
  std::filesystem::path log_;
};

// The binary, from WASINN_LLAMA_SERVER (set by CMake).
std::string llama_server_path();

}  // namespace wasinn_test
