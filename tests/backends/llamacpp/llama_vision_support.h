// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What the vision tests share (llama_vision_test.cpp: the plugin's table; llama_vision_guests_test.cpp:
// WasmEdge's vision examples on the wasinn command): the fixtures of scripts/fixtures/export_llava.py
// and native llama.cpp's answer on them, by llama-mtmd-cli.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "guest_runner.h"

namespace wasinn_test {

inline const std::string kQuestion = "describe the picture";
// LLaVA's (vicuna's) prompt for kQuestion, its image marker first, in WasmEdge's marker.
inline const std::string kPrompt = "USER: <image>" + kQuestion + "\nASSISTANT:";
inline constexpr int kPredict = 16;

// <fixtures>/llava/<name>.
std::string llava(const std::string& name);

// Native llama.cpp: llama-mtmd-cli's greedy answer (kPredict tokens, 1 thread, context 512) to
// `prompt` as it is, WasmEdge's "<image>" where `image` goes, on `model` with `mmproj`.
std::string native_answer(const std::string& image, const std::string& prompt = kPrompt, const std::string& model = "",
                          const std::string& mmproj = "");

std::string base64(const std::vector<uint8_t>& bytes);
std::string trimmed(const std::string& s);

// run_guest with `input` on the guest's stdin (the examples' chat reads it), then its end. A
// `guest` with a '/' is a .wasm file's path, not one of WASINN_GUEST_DIR's names.
GuestRun run_guest_with_stdin(const std::vector<std::string>& host_args, const std::string& guest,
                              const std::vector<std::string>& guest_args, const std::string& input);

// Standard base64, padding optional; false on any other byte.
bool decode_base64(const std::string& text, std::vector<uint8_t>& out);

}  // namespace wasinn_test
