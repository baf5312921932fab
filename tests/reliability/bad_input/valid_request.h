// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The valid request served after every bad-input case, in the same session and environment:
// the proof that the host survived the case. Fails the current gtest test when it does not.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "host_under_test.h"

namespace wasinn::bad_input {

// load, init_execution_context, set_input one digit, compute, get_output through `abi`, with
// the backend's digits model; the argmax must be the digit's label (and the logits those the
// fixture generator recorded, where it recorded them). Handles are released afterwards.
void expect_serves_digit(HostUnderTest& host, Backend backend, Abi abi, uint32_t sample);

// load_by_name_with_config of the tiny llama model, a prompt, compute, get_output: the greedy
// text must be non-empty and the same every time.
void expect_serves_llama(HostUnderTest& host);

// load_by_name of the tiny piper voice, the "welcome" text of piper/reference.json, compute,
// get_output: the WAV must equal piper-tts's for it (piper/ref-welcome.wav), byte for byte.
void expect_serves_piper(HostUnderTest& host);

// The known answer expect_serves_piper checks: the text and piper-tts's WAV of the fixtures'
// "welcome" case (the one the piper backend's tests compare with).
struct PiperReference {
  std::string text;
  std::vector<uint8_t> wav;
};
const PiperReference& piper_welcome(HostUnderTest& host);

}  // namespace wasinn::bad_input
