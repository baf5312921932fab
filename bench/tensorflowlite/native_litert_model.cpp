// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "native_litert_model.h"

#include <cstdlib>
#include <cstring>

#include "litert_c_api.h"

namespace wasinn::bench {

struct NativeLiteRtModel::State {
  void* model_bytes = nullptr;
  LiteRtEnvironment env = nullptr;
  LiteRtModel model = nullptr;
  LiteRtCompiledModel compiled = nullptr;
  LiteRtRankedTensorType in_type{}, out_type{};
  void* in_mem = nullptr;
  void* out_mem = nullptr;
  size_t out_bytes = 0;
  LiteRtTensorBuffer in = nullptr, out = nullptr;

  ~State() {
    if (compiled) LiteRtDestroyCompiledModel(compiled);
    if (in) LiteRtDestroyTensorBuffer(in);
    if (out) LiteRtDestroyTensorBuffer(out);
    std::free(in_mem);
    std::free(out_mem);
    if (model) LiteRtDestroyModel(model);
    if (env) LiteRtDestroyEnvironment(env);
    std::free(model_bytes);
  }
};

namespace {
void* aligned(size_t n) {
  const size_t cap = (n + 63) / 64 * 64 + 64;
  void* p = std::aligned_alloc(64, cap);
  if (p) std::memset(p, 0, cap);
  return p;
}
size_t element_size(LiteRtElementType t) {
  switch (t) {
    case kLiteRtElementTypeUInt8:
    case kLiteRtElementTypeInt8: return 1;
    case kLiteRtElementTypeFloat32:
    case kLiteRtElementTypeInt32: return 4;
    case kLiteRtElementTypeInt64: return 8;
    default: return 0;
  }
}
}  // namespace

NativeLiteRtModel::NativeLiteRtModel() : s_(std::make_unique<State>()) {}
NativeLiteRtModel::~NativeLiteRtModel() = default;

std::unique_ptr<NativeLiteRtModel> NativeLiteRtModel::open(const std::string& path, std::string* error) {
  std::unique_ptr<NativeLiteRtModel> m(new NativeLiteRtModel());
  State& s = *m->s_;
  LiteRtSignature sig = nullptr;
  LiteRtTensor in = nullptr, out = nullptr;
  LiteRtOptions options = nullptr;
  const bool ok = LiteRtCreateEnvironment(0, nullptr, &s.env) == kLiteRtStatusOk &&
                  LiteRtCreateModelFromFile(s.env, path.c_str(), &s.model) == kLiteRtStatusOk &&
                  LiteRtGetModelSignature(s.model, 0, &sig) == kLiteRtStatusOk &&
                  LiteRtGetSignatureInputTensorByIndex(sig, 0, &in) == kLiteRtStatusOk &&
                  LiteRtGetSignatureOutputTensorByIndex(sig, 0, &out) == kLiteRtStatusOk &&
                  LiteRtGetRankedTensorType(in, &s.in_type) == kLiteRtStatusOk &&
                  LiteRtGetRankedTensorType(out, &s.out_type) == kLiteRtStatusOk &&
                  LiteRtCreateOptions(&options) == kLiteRtStatusOk &&
                  LiteRtSetOptionsHardwareAccelerators(options, kLiteRtHwAcceleratorCpu) == kLiteRtStatusOk &&
                  LiteRtCreateCompiledModel(s.env, s.model, options, &s.compiled) == kLiteRtStatusOk;
  if (options) LiteRtDestroyOptions(options);
  if (!ok) {
    *error = "native LiteRT cannot load " + path;
    return nullptr;
  }
  return m;
}

bool NativeLiteRtModel::set_input(std::span<const uint8_t> data, const std::vector<uint32_t>& dims,
                                  std::string* error) {
  State& s = *s_;
  std::vector<int> d(dims.begin(), dims.end());
  for (size_t i = 0; i < d.size(); ++i) s.in_type.layout.dimensions[i] = d[i];
  LiteRtLayout out_layout{};
  if (LiteRtCompiledModelResizeInputTensor(s.compiled, 0, 0, d.data(), d.size()) ||
      LiteRtGetCompiledModelOutputTensorLayouts(s.compiled, 0, 1, &out_layout, true)) {
    *error = "native LiteRT cannot take that input shape";
    return false;
  }
  s.out_type.layout = out_layout;
  s.out_bytes = element_size(s.out_type.element_type);
  for (unsigned i = 0; i < out_layout.rank; ++i) s.out_bytes *= static_cast<size_t>(out_layout.dimensions[i]);
  s.in_mem = aligned(data.size());
  s.out_mem = aligned(s.out_bytes);
  std::memcpy(s.in_mem, data.data(), data.size());
  if (LiteRtCreateTensorBufferFromHostMemory(&s.in_type, s.in_mem, (data.size() + 63) / 64 * 64 + 64, nullptr, &s.in) ||
      LiteRtCreateTensorBufferFromHostMemory(&s.out_type, s.out_mem, (s.out_bytes + 63) / 64 * 64 + 64, nullptr,
                                             &s.out)) {
    *error = "native LiteRT cannot wrap its buffers";
    return false;
  }
  return true;
}

bool NativeLiteRtModel::run(std::string* error) {
  if (LiteRtRunCompiledModel(s_->compiled, 0, 1, &s_->in, 1, &s_->out) != kLiteRtStatusOk) {
    *error = "native LiteRT run failed";
    return false;
  }
  return true;
}

std::span<const uint8_t> NativeLiteRtModel::output_bytes() const {
  return {static_cast<const uint8_t*>(s_->out_mem), s_->out_bytes};
}

}  // namespace wasinn::bench
