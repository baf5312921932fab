// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "digits_reference.h"

#include <stdexcept>

#include <onnxruntime_cxx_api.h>

#include "compat_env.h"

namespace wasinn_compat {
namespace {

constexpr int64_t kFeatures = 64;
constexpr size_t kClasses = 10;

// Runs each row of `x` (rows x 64 elements of `type`, raw bytes) through the model.
DigitsAnswer classify(const std::vector<uint8_t>& model, ONNXTensorElementDataType type, size_t element_size,
                      std::vector<uint8_t> x) {
  static Ort::Env env(ORT_LOGGING_LEVEL_WARNING, "wasinn-compat-test");
  Ort::SessionOptions options;
  options.SetIntraOpNumThreads(1);
  Ort::Session session(env, model.data(), model.size(), options);
  Ort::AllocatorWithDefaultOptions alloc;
  const std::string in_name = session.GetInputNameAllocated(0, alloc).get();
  const std::string out_name = session.GetOutputNameAllocated(0, alloc).get();
  const char* in_names[] = {in_name.c_str()};
  const char* out_names[] = {out_name.c_str()};
  const auto memory = Ort::MemoryInfo::CreateCpu(OrtDeviceAllocator, OrtMemTypeDefault);
  const int64_t dims[] = {1, kFeatures};

  const auto labels = read_bytes(fixture("digits/test_y.u8"));
  const size_t row_bytes = kFeatures * element_size;
  if (x.size() != labels.size() * row_bytes) throw std::runtime_error("features and labels disagree in count");
  DigitsAnswer a;
  a.total = labels.size();
  for (size_t row = 0; row < labels.size(); ++row) {
    Ort::Value in = Ort::Value::CreateTensor(memory, x.data() + row * row_bytes, row_bytes, dims, 2, type);
    auto out = session.Run(Ort::RunOptions{nullptr}, in_names, &in, 1, out_names, 1);
    const float* y = out[0].GetTensorData<float>();
    if (out[0].GetTensorTypeAndShapeInfo().GetElementCount() != kClasses) throw std::runtime_error("not 10 logits");
    size_t best = 0;
    for (size_t k = 1; k < kClasses; ++k)
      if (y[k] > y[best]) best = k;
    a.predictions.push_back(static_cast<char>('0' + best));
    a.correct += best == labels[row];
    if (row == 0) a.logits0.assign(y, y + kClasses);
  }
  return a;
}

}  // namespace

const DigitsAnswer& native_f32_answer() {
  static const DigitsAnswer a = classify(read_bytes(fixture("digits/model.onnx")), ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT,
                                         4, read_bytes(fixture("digits/test_x.f32")));
  return a;
}

const DigitsAnswer& native_u8_answer() {
  static const DigitsAnswer a = classify(read_bytes(data_dir() / "digits_u8" / "model.onnx"),
                                         ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT8, 1, read_bytes(data_dir() / "test_x.u8"));
  return a;
}

}  // namespace wasinn_compat
