// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// GuestBench: one instance of the reactor guest bench_guest.wasm (bench_guest.c) driven through
// the embedding API: instantiate, _initialize, bench_setup once, then bench_infer per sample.
//
// GuestArgs describes what the guest loads and feeds, in the guest's own paths (the caller maps
// host directories into the guest with Program::dirs). A GuestBench owns its Instance and must
// not outlive the Host that made it. Not thread-safe: one thread drives one GuestBench.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "wasinn/host.h"

namespace wasinn::bench {

struct GuestInput {
  uint32_t index = 0;
  std::string type;  // "f32", "u8", ... (witx names) or a number
  std::vector<uint32_t> dims;
  std::string file;  // guest path of the raw little-endian tensor bytes
};

struct GuestOutput {
  uint32_t index = 0;
  std::string file;  // guest path bench_save_outputs writes; empty: not saved
  uint32_t max_bytes = 16u << 20;
};

struct GuestArgs {
  std::vector<std::string> model_files;  // guest paths; or empty and `name` set
  std::string name;                      // a model registered with HostOptions::preloads
  std::string config;                    // JSON for load_by_name_with_config (with `name` only)
  int encoding = 1;                      // witx graph_encoding (1 = onnx)
  int target = 0;                        // witx execution_target (0 = cpu)
  std::vector<GuestInput> inputs;
  std::vector<GuestOutput> outputs;
  uint32_t repeat = 1;  // inferences per bench_infer call

  // The guest's argv[1..] (see the comment at the top of bench_guest.c).
  std::vector<std::string> to_argv() const;
};

class GuestBench {
 public:
  // Instantiates `program` (its args are replaced by args.to_argv()), runs _initialize and
  // bench_setup. Returns nullptr and sets *error when any step fails.
  static std::unique_ptr<GuestBench> start(Host& host, Program program, const GuestArgs& args, std::string* error);

  // One bench_infer call: `repeat` times set_input for every input, compute, get_output.
  bool infer(std::string* error) { return call("bench_infer", error); }
  // Writes the outputs of the last infer() to their files.
  bool save_outputs(std::string* error) { return call("bench_save_outputs", error); }
  // Calls an empty export: the cost of entering the guest through the embedding API.
  bool noop(std::string* error) { return call("bench_noop", error); }

 private:
  explicit GuestBench(std::unique_ptr<Instance> instance) : instance_(std::move(instance)) {}
  bool call(const std::string& export_name, std::string* error);
  std::unique_ptr<Instance> instance_;
};

}  // namespace wasinn::bench
