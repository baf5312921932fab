// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ort_reference: the native ONNX Runtime answer serve_test.py compares the HTTP guest's with.
//   ort_reference MODEL.onnx INPUT.f32 D0,D1,... OUT.f32
// Runs MODEL's only (f32) input through to its first output in this process, with the session
// settings of wasinn's plugin and one intra-op thread (tests/integration/native_ort.cpp, the
// C++ tests' reference), and writes the output's floats to OUT.f32. Exit 0, or 1 with a message.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "native_ort.h"
#include "support/stream_bytes.h"

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: ort_reference MODEL.onnx INPUT.f32 D0,D1,... OUT.f32\n");
    return 2;
  }
  try {
    std::ifstream model_in(argv[1], std::ios::binary), input_in(argv[2], std::ios::binary);
    if (!model_in || !input_in) throw std::runtime_error("cannot read the model or the input");
    const std::vector<uint8_t> model = wasinn_test::stream_bytes(model_in);
    const std::vector<uint8_t> bytes = wasinn_test::stream_bytes(input_in);
    std::vector<float> input(bytes.size() / sizeof(float));
    std::memcpy(input.data(), bytes.data(), input.size() * sizeof(float));
    std::vector<int64_t> dims;
    std::stringstream text(argv[3]);
    for (std::string d; std::getline(text, d, ',');) dims.push_back(std::stoll(d));
    wasinn_it::NativeOrtModel native(model, 1);
    const std::vector<float> out = native.run(input, dims);
    std::ofstream file(argv[4], std::ios::binary);
    file.write(reinterpret_cast<const char*>(out.data()), static_cast<std::streamsize>(out.size() * sizeof(float)));
    if (!file) throw std::runtime_error(std::string("cannot write ") + argv[4]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ort_reference: %s\n", e.what());
    return 1;
  }
  return 0;
}
