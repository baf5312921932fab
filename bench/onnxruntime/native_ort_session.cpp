// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "native_ort_session.h"

namespace wasinn::bench {

std::unique_ptr<NativeOrtSession> NativeOrtSession::open(Ort::Env& env, const std::string& model_path,
                                                         int intra_op_threads, std::string* error) {
  try {
    Ort::SessionOptions options;
    // The same two settings the plugin applies (backends/onnxruntime/ort_config.cpp).
    options.SetIntraOpNumThreads(intra_op_threads);
    options.SetGraphOptimizationLevel(ORT_ENABLE_ALL);
    Ort::Session session(env, model_path.c_str(), options);
    Ort::AllocatorWithDefaultOptions alloc;
    std::vector<std::string> in, out;
    for (size_t i = 0; i < session.GetInputCount(); ++i) in.emplace_back(session.GetInputNameAllocated(i, alloc).get());
    for (size_t i = 0; i < session.GetOutputCount(); ++i)
      out.emplace_back(session.GetOutputNameAllocated(i, alloc).get());
    return std::unique_ptr<NativeOrtSession>(new NativeOrtSession(std::move(session), std::move(in), std::move(out)));
  } catch (const Ort::Exception& e) {
    if (error) *error = "native ONNX Runtime: loading " + model_path + ": " + e.what();
    return nullptr;
  }
}

NativeOrtSession::NativeOrtSession(Ort::Session session, std::vector<std::string> input_names,
                                   std::vector<std::string> output_names)
    : session_(std::move(session)), input_names_(std::move(input_names)), output_names_(std::move(output_names)) {
  for (const auto& n : input_names_) input_name_ptrs_.push_back(n.c_str());
  for (const auto& n : output_names_) output_name_ptrs_.push_back(n.c_str());
  input_dims_.resize(input_names_.size());
  // Ort::Value has no default constructor; nullptr makes an empty one.
  for (size_t i = 0; i < input_names_.size(); ++i) inputs_.emplace_back(nullptr);
  for (size_t i = 0; i < output_names_.size(); ++i) outputs_.emplace_back(nullptr);
}

bool NativeOrtSession::bind_f32_input(size_t index, std::span<float> data, std::vector<int64_t> dims,
                                      std::string* error) {
  if (index >= inputs_.size()) {
    if (error) *error = "native ONNX Runtime: the model has no input " + std::to_string(index);
    return false;
  }
  try {
    input_dims_[index] = std::move(dims);
    inputs_[index] = Ort::Value::CreateTensor<float>(cpu_, data.data(), data.size(), input_dims_[index].data(),
                                                     input_dims_[index].size());
    return true;
  } catch (const Ort::Exception& e) {
    if (error) *error = std::string("native ONNX Runtime: binding input: ") + e.what();
    return false;
  }
}

bool NativeOrtSession::run(std::string* error) {
  try {
    // Released first, as the plugin does: a non-empty value would make ORT write into it as a
    // preallocated output, a reuse the plugin does not do.
    for (auto& o : outputs_) o = Ort::Value(nullptr);
    session_.Run(run_options_, input_name_ptrs_.data(), inputs_.data(), inputs_.size(), output_name_ptrs_.data(),
                 outputs_.data(), outputs_.size());
    return true;
  } catch (const Ort::Exception& e) {
    if (error) *error = std::string("native ONNX Runtime: run: ") + e.what();
    return false;
  }
}

std::span<const uint8_t> NativeOrtSession::output_bytes(size_t index) const {
  if (index >= outputs_.size() || !outputs_[index]) return {};
  try {
    const Ort::Value& v = outputs_[index];
    return {static_cast<const uint8_t*>(v.GetTensorRawData()), v.GetTensorSizeInBytes()};
  } catch (const Ort::Exception&) {
    return {};  // not a tensor of numbers: nothing to compare
  }
}

}  // namespace wasinn::bench
