// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "native_litert.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "litert_c_api.h"

namespace wasinn_test {

struct NativeLiteRt::State {
  void* model_bytes = nullptr;  // LiteRT reads the model from here for the model's life
  LiteRtEnvironment env = nullptr;
  LiteRtModel model = nullptr;
  LiteRtCompiledModel compiled = nullptr;
  LiteRtSignature signature = nullptr;
  std::vector<size_t> input_position, output_position;            // subgraph index -> signature index
  std::vector<LiteRtRankedTensorType> input_types, output_types;  // in subgraph order
  // The previous run's buffers: the compiled model may refer to them until the next run binds
  // new ones, so they are released one run late.
  std::vector<LiteRtTensorBuffer> last_buffers;
  std::vector<void*> last_memory;

  void retire(std::vector<LiteRtTensorBuffer> buffers, std::vector<void*> memory) {
    for (auto b : last_buffers)
      if (b) LiteRtDestroyTensorBuffer(b);
    for (void* p : last_memory) std::free(p);
    last_buffers = std::move(buffers);
    last_memory = std::move(memory);
  }

  ~State() {
    if (compiled) LiteRtDestroyCompiledModel(compiled);
    retire({}, {});
    if (model) LiteRtDestroyModel(model);
    if (env) LiteRtDestroyEnvironment(env);
    std::free(model_bytes);
  }
};

namespace {

// Zeroed 64-byte-aligned memory (LiteRT's host buffer alignment), with `n` bytes of src if any.
void* aligned_copy(const uint8_t* src, size_t n, size_t& capacity) {
  capacity = (n + 63) / 64 * 64 + 64;
  auto* p = static_cast<uint8_t*>(std::aligned_alloc(64, capacity));
  std::memset(p, 0, capacity);
  if (src) std::copy(src, src + n, p);
  return p;
}

size_t element_size(LiteRtElementType t) {
  switch (t) {
    case kLiteRtElementTypeUInt8:
    case kLiteRtElementTypeInt8:
    case kLiteRtElementTypeBool: return 1;
    case kLiteRtElementTypeInt16:
    case kLiteRtElementTypeFloat16:
    case kLiteRtElementTypeBFloat16: return 2;
    case kLiteRtElementTypeFloat32:
    case kLiteRtElementTypeInt32: return 4;
    case kLiteRtElementTypeInt64:
    case kLiteRtElementTypeFloat64: return 8;
    default: return 0;
  }
}

}  // namespace

NativeLiteRt::NativeLiteRt(const std::vector<uint8_t>& model) : s_(std::make_unique<State>()) {
  size_t cap = 0;
  s_->model_bytes = aligned_copy(model.data(), model.size(), cap);
  LiteRtSubgraph sub = nullptr;
  LiteRtParamIndex n_in = 0, n_out = 0, n_sig_in = 0, n_sig_out = 0;
  LiteRtOptions options = nullptr;
  if (LiteRtCreateEnvironment(0, nullptr, &s_->env) ||
      LiteRtCreateModelFromBuffer(s_->env, s_->model_bytes, model.size(), &s_->model) ||
      LiteRtGetModelSignature(s_->model, 0, &s_->signature) || LiteRtGetSignatureSubgraph(s_->signature, &sub) ||
      LiteRtGetNumSubgraphInputs(sub, &n_in) || LiteRtGetNumSubgraphOutputs(sub, &n_out) ||
      LiteRtGetNumSignatureInputs(s_->signature, &n_sig_in) ||
      LiteRtGetNumSignatureOutputs(s_->signature, &n_sig_out) || n_in != n_sig_in || n_out != n_sig_out ||
      LiteRtCreateOptions(&options) || LiteRtSetOptionsHardwareAccelerators(options, kLiteRtHwAcceleratorCpu) ||
      LiteRtCreateCompiledModel(s_->env, s_->model, options, &s_->compiled)) {
    if (options) LiteRtDestroyOptions(options);
    error_ = "native LiteRT could not load the model";
    return;
  }
  LiteRtDestroyOptions(options);
  auto map = [&](bool out, LiteRtParamIndex n, std::vector<size_t>& pos, std::vector<LiteRtRankedTensorType>& types) {
    for (LiteRtParamIndex i = 0; i < n; ++i) {
      LiteRtTensor t = nullptr;
      out ? LiteRtGetSubgraphOutput(sub, i, &t) : LiteRtGetSubgraphInput(sub, i, &t);
      LiteRtRankedTensorType type{};
      LiteRtGetRankedTensorType(t, &type);
      types.push_back(type);
      for (LiteRtParamIndex j = 0; j < n; ++j) {
        LiteRtTensor s = nullptr;
        out ? LiteRtGetSignatureOutputTensorByIndex(s_->signature, j, &s)
            : LiteRtGetSignatureInputTensorByIndex(s_->signature, j, &s);
        if (s == t) pos.push_back(j);
      }
    }
  };
  map(false, n_in, s_->input_position, s_->input_types);
  map(true, n_out, s_->output_position, s_->output_types);
  if (s_->input_position.size() != n_in || s_->output_position.size() != n_out)
    error_ = "native LiteRT: signature and subgraph tensors differ";
}

NativeLiteRt::~NativeLiteRt() = default;

std::vector<NativeTensor> NativeLiteRt::run(const std::vector<NativeTensor>& inputs) {
  if (!error_.empty()) return {};
  if (inputs.size() != s_->input_types.size()) {
    error_ = "native LiteRT: wrong number of inputs";
    return {};
  }
  std::vector<void*> memory;
  std::vector<LiteRtTensorBuffer> in(inputs.size()), out(s_->output_types.size());
  std::vector<NativeTensor> result(out.size());
  auto cleanup = [&] {
    std::vector<LiteRtTensorBuffer> all(in);
    all.insert(all.end(), out.begin(), out.end());
    s_->retire(std::move(all), std::move(memory));
  };
  for (size_t i = 0; i < inputs.size(); ++i) {
    LiteRtRankedTensorType type = s_->input_types[i];
    std::vector<int> dims(inputs[i].dims.begin(), inputs[i].dims.end());
    for (size_t k = 0; k < dims.size(); ++k) type.layout.dimensions[k] = dims[k];
    size_t cap = 0;
    memory.push_back(aligned_copy(inputs[i].bytes.data(), inputs[i].bytes.size(), cap));
    const size_t pos = s_->input_position[i];
    if (LiteRtCompiledModelResizeInputTensor(s_->compiled, 0, pos, dims.data(), dims.size()) ||
        LiteRtCreateTensorBufferFromHostMemory(&type, memory.back(), cap, nullptr, &in[pos])) {
      error_ = "native LiteRT: bad input " + std::to_string(i);
      cleanup();
      return {};
    }
  }
  std::vector<LiteRtLayout> layouts(out.size());
  if (LiteRtGetCompiledModelOutputTensorLayouts(s_->compiled, 0, layouts.size(), layouts.data(), true)) {
    error_ = "native LiteRT: output shapes";
    cleanup();
    return {};
  }
  for (size_t i = 0; i < out.size(); ++i) {
    const size_t pos = s_->output_position[i];
    LiteRtRankedTensorType type = s_->output_types[i];
    type.layout = layouts[pos];
    size_t bytes = element_size(type.element_type), cap = 0;
    for (unsigned k = 0; k < type.layout.rank; ++k) {
      bytes *= static_cast<size_t>(type.layout.dimensions[k]);
      result[i].dims.push_back(static_cast<uint32_t>(type.layout.dimensions[k]));
    }
    result[i].bytes.resize(bytes);
    memory.push_back(aligned_copy(nullptr, bytes, cap));
    if (LiteRtCreateTensorBufferFromHostMemory(&type, memory.back(), cap, nullptr, &out[pos])) {
      error_ = "native LiteRT: output buffer";
      cleanup();
      return {};
    }
  }
  if (LiteRtRunCompiledModel(s_->compiled, 0, in.size(), in.data(), out.size(), out.data())) {
    error_ = "native LiteRT: run failed";
    cleanup();
    return {};
  }
  for (size_t i = 0; i < out.size(); ++i)
    std::memcpy(result[i].bytes.data(), memory[inputs.size() + i], result[i].bytes.size());
  cleanup();
  return result;
}

}  // namespace wasinn_test
