// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What the backends' WIT-component tests share: the component guests wit_run_model and
// wit_classify_digits (guest/components) run through the wasinn command as a user runs them, their
// named outputs read back, `wasinn models inspect --json`'s names to check them against, and the
// witx guest classify_digits run beside the component on the same model.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "guest_runner.h"

namespace wasinn_test {

// One output as wit_run_model reports it ("output NAME TYPE DIMS BYTES") and writes it.
struct WitOutput {
  std::string name;
  std::string type;           // WIT tensor-type name: "fp32", "i64", ...
  std::string dims;           // "1x3", "-" for a scalar
  std::vector<uint8_t> data;  // its --output-dir file
};

struct WitModelRun {
  GuestRun run;                    // stdout and stderr together
  std::vector<WitOutput> outputs;  // in the order compute returned them
  std::vector<std::string> names() const;
};

// guests/wit_run_model.component.wasm: `wasinn run <host_args> ... <guest_args>`, its outputs
// written to a fresh scratch directory `name` (the guest's /wit_out) and read back.
WitModelRun run_wit_model(const std::string& name, std::vector<std::string> host_args,
                          std::vector<std::string> guest_args);

// wit_run_model's "--input NAME:TYPE:DIMS:FILE"; dims {} for a scalar.
std::string wit_input(const std::string& name, const std::string& type, const std::vector<uint32_t>& dims,
                      const std::string& guest_file);

// `wasinn models inspect --backend-dir <built> --json <args>`: the names in index order (""
// for an unnamed one) and each input's framework words.
struct InspectedIo {
  std::string error;  // what went wrong, "" on success
  std::vector<std::string> inputs, outputs, input_framework_types;
};
InspectedIo inspect_io(const std::vector<std::string>& args);

// The digits model registered by `preload` ("digits:ENCODING:cpu:PATH...") run by the witx guest
// classify_digits.wasm and by the component wit_classify_digits (with wit_args before MODEL,
// e.g. --input NAME), each on name:digits and the 450 held-out rows, each writing its logits.
struct DigitsRuns {
  GuestRun witx, wit;  // stdout in output, stderr in errors
  std::vector<uint8_t> witx_logits, wit_logits;
};
DigitsRuns run_digits_both_abis(const std::string& name, const std::string& preload,
                                const std::vector<std::string>& host_args = {},
                                const std::vector<std::string>& wit_args = {});

// The check every backend's digits test makes: `models inspect <inspect_args>` shows one input
// and one output (returned in *io when given); wit_classify_digits, told those names, and the
// witx classify_digits both exit 0 on `preload` with the same stdout (classify_digits' lines and
// accuracy) and the same 450 x 10 logits, byte for byte; the component names the output on stderr.
void expect_digits_component_matches_witx(const std::string& name, const std::string& preload,
                                          const std::vector<std::string>& inspect_args,
                                          const std::vector<std::string>& host_args = {}, InspectedIo* io = nullptr);

}  // namespace wasinn_test
