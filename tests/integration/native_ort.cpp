// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "native_ort.h"

#include <cstring>
#include <new>
#include <stdexcept>

#include <onnxruntime_cxx_api.h>

namespace wasinn_it {

namespace {

Ort::Env& env() {
  static Ort::Env e(ORT_LOGGING_LEVEL_WARNING, "wasinn-integration-test");
  return e;
}

// The plugin copies inputs into 64-byte-aligned buffers; doing the same here rules out
// alignment-dependent kernel paths as a source of differences.
struct AlignedFloats {
  explicit AlignedFloats(size_t n)
      : size(n), data(static_cast<float*>(::operator new[](n * sizeof(float), std::align_val_t{64}))) {}
  ~AlignedFloats() { ::operator delete[](data, std::align_val_t{64}); }
  AlignedFloats(const AlignedFloats&) = delete;
  AlignedFloats& operator=(const AlignedFloats&) = delete;
  size_t size;
  float* data;
};

}  // namespace

struct NativeOrtModel::Impl {
  Ort::Session session{nullptr};
  std::string input_name, output_name;
};

NativeOrtModel::NativeOrtModel(const std::vector<uint8_t>& model, int intra_op_threads)
    : impl_(std::make_unique<Impl>()) {
  Ort::SessionOptions options;
  options.SetIntraOpNumThreads(intra_op_threads);
  options.SetGraphOptimizationLevel(GraphOptimizationLevel::ORT_ENABLE_ALL);
  impl_->session = Ort::Session(env(), model.data(), model.size(), options);
  Ort::AllocatorWithDefaultOptions alloc;
  if (impl_->session.GetInputCount() != 1) throw std::runtime_error("NativeOrtModel: the model needs one input");
  impl_->input_name = impl_->session.GetInputNameAllocated(0, alloc).get();
  impl_->output_name = impl_->session.GetOutputNameAllocated(0, alloc).get();
}

NativeOrtModel::~NativeOrtModel() = default;

std::vector<float> NativeOrtModel::run(const std::vector<float>& input, const std::vector<int64_t>& dims) {
  AlignedFloats buffer(input.size());
  std::memcpy(buffer.data, input.data(), input.size() * sizeof(float));
  const auto memory = Ort::MemoryInfo::CreateCpu(OrtDeviceAllocator, OrtMemTypeDefault);
  Ort::Value x = Ort::Value::CreateTensor<float>(memory, buffer.data, buffer.size, dims.data(), dims.size());
  const char* in_names[] = {impl_->input_name.c_str()};
  const char* out_names[] = {impl_->output_name.c_str()};
  auto outputs = impl_->session.Run(Ort::RunOptions{nullptr}, in_names, &x, 1, out_names, 1);
  auto info = outputs[0].GetTensorTypeAndShapeInfo();
  if (info.GetElementType() != ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT) {
    throw std::runtime_error("NativeOrtModel: the first output is not f32");
  }
  const float* y = outputs[0].GetTensorData<float>();
  return std::vector<float>(y, y + info.GetElementCount());
}

std::string NativeOrtModel::version() { return Ort::GetVersionString(); }

}  // namespace wasinn_it
