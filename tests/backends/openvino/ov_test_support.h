// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What the OpenVINO tests share beyond the common harness (plugin_harness.h): the plugin's
// table, the config that pins f32 math, IR loading, typed tensor shortcuts, and a native
// OpenVINO run of the same model for reference answers.
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <openvino/openvino.hpp>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "plugin_harness.h"

namespace wasinn_test {

inline const wasinn_backend_api& api() { return plugin_api("openvino"); }

// Every test that compares numbers pins f32 math (OpenVINO would pick bf16 on CPUs that have it)
// and keeps the user's compiled-model cache out of it.
inline const std::string kF32 = R"({"inference_precision":"f32","cache_dir":""})";

inline std::string fixture_path(const std::string& rel) { return (fixtures_dir() / rel).string(); }

// graph_load of encoding openvino with `builders` as the builder list.
inline int load_bytes(Backend& b, std::vector<std::vector<uint8_t>> builders, Graph& out, Diag& d,
                      int32_t target = WASINN_TARGET_CPU, const std::string& config = "") {
  LoadArgs args = model_args("openvino", std::move(builders));
  args.target = target;
  args.config = config;
  return load(b, args, out, d);
}

// Loads an IR fixture ("digits/openvino/model" -> .xml + .bin) or fails the test.
inline Graph load_ir(Backend& b, const std::string& stem, const std::string& config = "",
                     int32_t target = WASINN_TARGET_CPU) {
  Graph g;
  Diag d;
  const int st = load_bytes(b, {read_fixture(stem + ".xml"), read_fixture(stem + ".bin")}, g, d, target, config);
  EXPECT_EQ(st, WASINN_OK) << stem << ": " << d.detail;
  return g;
}

// set_input of `count` elements of T at `data`.
template <typename T>
int set_input_of(wasinn_context* c, wasinn_tensor_id id, int32_t type, const std::vector<uint32_t>& dims, const T* data,
                 size_t count, Diag& d) {
  const wasinn_tensor t{type, static_cast<uint32_t>(dims.size()), dims.data(), data, count * sizeof(T)};
  return api().set_input(c, &id, &t, &d);
}

// Output `id` of the last compute as a vector of T, checking its type.
template <typename T>
std::vector<T> output_as(wasinn_context* c, wasinn_tensor_id id, int32_t want_type,
                         std::vector<uint32_t>* dims = nullptr) {
  const std::vector<uint8_t> bytes = output_bytes(api(), c, id, want_type, dims);
  EXPECT_EQ(bytes.size() % sizeof(T), 0u);
  return as_vector<T>(bytes);
}

// Native OpenVINO, in this process, for reference answers: CPU, f32 math, no cache.
inline ov::Core& native_core() {
  static ov::Core core;
  return core;
}

inline ov::CompiledModel native_compile(const std::string& model_path, int threads = 0) {
  ov::AnyMap props{ov::hint::inference_precision(ov::element::f32)};
  if (threads > 0) props.emplace(ov::inference_num_threads(threads));
  return native_core().compile_model(model_path, "CPU", props);
}

// One f32 input -> output 0 as floats.
inline std::vector<float> native_run(ov::CompiledModel& model, const std::vector<size_t>& shape, const float* data) {
  ov::InferRequest req = model.create_infer_request();
  ov::Tensor in(ov::element::f32, ov::Shape(shape));
  std::memcpy(in.data(), data, in.get_byte_size());
  req.set_input_tensor(0, in);
  req.infer();
  ov::Tensor out = req.get_output_tensor(0);
  const float* p = out.data<float>();
  return std::vector<float>(p, p + out.get_size());
}

// Number of rows whose argmax over `classes` columns equals the label.
inline size_t count_correct(const std::vector<float>& logits, const std::vector<uint8_t>& labels, size_t classes) {
  size_t correct = 0;
  for (size_t i = 0; i < labels.size() && (i + 1) * classes <= logits.size(); ++i) {
    size_t best = 0;
    for (size_t k = 1; k < classes; ++k)
      if (logits[i * classes + k] > logits[i * classes + best]) best = k;
    correct += best == labels[i];
  }
  return correct;
}

}  // namespace wasinn_test
