// Runs the llama_probe test guest on a wasinn Host and parses its result file.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace llama_test {

// Where the fixtures are: $WASINN_FIXTURES, else the build's default.
std::string fixtures_dir();
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
  std::string message;    // from the host, when the run failed
  std::vector<int> loads;  // errno of each load (one per --unload-loop round)
  std::vector<int> unloads;
  std::map<int, ProbeContext> contexts;  // of the last round
  std::string raw;
};

// Runs llama_probe.wasm with `args` (the guest's argv[1..]); the guest sees the fixtures'
// llama/ directory as /models and writes its result into a fresh directory mapped at /out.
ProbeResult run_probe(const std::vector<std::string> &args);

// Runs a guest from WASINN_GUEST_DIR on the same Host (with /models and a scratch /out, as
// run_probe) and returns what it wrote to stdout.
std::string run_capturing_stdout(const std::string &wasm_name, const std::vector<std::string> &args, int *exit_code);

// The config JSON for greedy decoding with the given settings.
std::string greedy_config(unsigned ctx_size, int n_predict, unsigned threads = 1);

// Integer field of the metadata JSON, -1 if absent.
long metadata_field(const std::string &metadata, const std::string &key);

}  // namespace llama_test
