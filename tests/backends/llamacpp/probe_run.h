// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Runs the llama_probe test guest with the wasinn command (guest_runner.h) and parses its result
// file; helpers shared by the llamacpp tests.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace wasinn_test {

std::string tiny_model();  // <fixtures>/llama/tiny.gguf

struct ProbeContext {
  int set_input = -1;
  int compute = -1;     // -1: not run
  int stream_end = -1;  // -1: not streamed
  std::string text;     // output 0 of compute, decoded from hex
  std::vector<std::string> pieces;
  std::vector<float> embedding;
  std::string metadata;
};

struct ProbeResult {
  int exit_code = -1;
  std::string message;     // what wasinn printed (its log, the guest's stderr)
  std::vector<int> loads;  // errno of each load (one per --unload-loop round)
  std::vector<int> unloads;
  std::map<int, ProbeContext> contexts;  // of the last round
  std::string raw;
};

// The host arguments of every llama guest run: "tiny" is the test model, "missing" is
// registered as GGML but its file does not exist; the fixtures' llama/ directory is /models and
// `out_dir` is /out.
std::vector<std::string> llama_host_args(const std::string& out_dir);

// Runs llama_probe.wasm with `args` (the guest's argv[1..]); the guest writes its result into a
// fresh directory mapped at /out.
ProbeResult run_probe(const std::vector<std::string>& args);

// Runs a guest from WASINN_GUEST_DIR on the same host arguments, with the host logging errors
// only, and returns what it wrote to stdout (and stderr).
std::string run_capturing_stdout(const std::string& guest, const std::vector<std::string>& args, int* exit_code);

// The config JSON for greedy decoding with the given settings.
std::string greedy_config(unsigned ctx_size, int n_predict, unsigned threads = 1);

// Integer field of the metadata JSON, -1 if absent.
long metadata_field(const std::string& metadata, const std::string& key);

}  // namespace wasinn_test
