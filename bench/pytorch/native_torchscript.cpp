// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "native_torchscript.h"

#include <ATen/Parallel.h>
#include <c10/core/InferenceMode.h>
#include <torch/script.h>
#include <torch/version.h>

#include <cstring>

namespace wasinn::bench {

struct NativeTorchScript::Impl {
  torch::jit::Module module;
  std::vector<torch::jit::IValue> args;
};

NativeTorchScript::NativeTorchScript(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
NativeTorchScript::~NativeTorchScript() = default;

std::unique_ptr<NativeTorchScript> NativeTorchScript::open(const std::string& path, std::string* error) {
  auto impl = std::make_unique<Impl>();
  try {
    impl->module = torch::jit::load(path);
  } catch (const std::exception& e) {
    *error = path + ": " + e.what();
    return nullptr;
  }
  impl->module.eval();
  return std::unique_ptr<NativeTorchScript>(new NativeTorchScript(std::move(impl)));
}

void NativeTorchScript::bind_f32_input(std::span<const float> data, const std::vector<int64_t>& dims) {
  // Cloned once, outside the timing, into libtorch's own (64-byte aligned) allocation: the
  // plugin's input tensors come from the same allocator, so alignment cannot favour either side.
  impl_->args = {torch::from_blob(const_cast<float*>(data.data()), dims, torch::kFloat32).clone()};
}

bool NativeTorchScript::run(std::string* error) {
  try {
    c10::InferenceMode guard;
    const torch::Tensor out = impl_->module.forward(impl_->args).toTensor().contiguous();
    output_.resize(out.nbytes());
    std::memcpy(output_.data(), out.data_ptr(), out.nbytes());
  } catch (const std::exception& e) {
    *error = std::string("native forward: ") + e.what();
    return false;
  }
  return true;
}

void set_torch_threads(int n) { at::set_num_threads(n); }
const char* torch_version() { return TORCH_VERSION; }

}  // namespace wasinn::bench
