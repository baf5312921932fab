// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Native libtorch runs for comparison. Written independently of the plugin (its own dtype table,
// NoGradGuard rather than InferenceMode), so a shared mistake cannot hide.
#include "native_torch.h"

#include <ATen/Parallel.h>
#include <torch/script.h>

#include <map>
#include <sstream>
#include <thread>

namespace wasinn_test {
namespace {

c10::ScalarType dtype_of(int32_t type) {
  switch (type) {
    case WASINN_TYPE_F16: return torch::kFloat16;
    case WASINN_TYPE_BF16: return torch::kBFloat16;
    case WASINN_TYPE_F32: return torch::kFloat32;
    case WASINN_TYPE_F64: return torch::kFloat64;
    case WASINN_TYPE_U8: return torch::kUInt8;
    case WASINN_TYPE_I32: return torch::kInt32;
    case WASINN_TYPE_I64: return torch::kInt64;
    case WASINN_TYPE_I8: return torch::kInt8;
  }
  ADD_FAILURE() << "no dtype for wasinn type " << type;
  return torch::kFloat32;
}

int32_t type_of(c10::ScalarType t) {
  switch (t) {
    case torch::kFloat16: return WASINN_TYPE_F16;
    case torch::kBFloat16: return WASINN_TYPE_BF16;
    case torch::kFloat32: return WASINN_TYPE_F32;
    case torch::kFloat64: return WASINN_TYPE_F64;
    case torch::kUInt8: return WASINN_TYPE_U8;
    case torch::kBool: return WASINN_TYPE_U8;
    case torch::kInt32: return WASINN_TYPE_I32;
    case torch::kInt64: return WASINN_TYPE_I64;
    case torch::kInt8: return WASINN_TYPE_I8;
    default: return WASINN_TYPE_UNKNOWN;
  }
}

HostTensor to_host(const torch::Tensor& t, std::string name = {}) {
  const torch::Tensor c = t.contiguous();
  HostTensor h;
  h.type = type_of(c.scalar_type());
  for (int64_t d : c.sizes()) h.dims.push_back(static_cast<uint32_t>(d));
  const auto* p = static_cast<const uint8_t*>(c.data_ptr());
  h.bytes.assign(p, p + c.nbytes());
  h.name = std::move(name);
  return h;
}

HostTensor scalar_to_host(int32_t type, const void* value, size_t size) {
  HostTensor h;
  h.type = type;
  const auto* p = static_cast<const uint8_t*>(value);
  h.bytes.assign(p, p + size);
  return h;
}

void flatten(const torch::jit::IValue& v, std::vector<HostTensor>& out) {
  if (v.isTuple()) {
    for (const auto& e : v.toTupleRef().elements()) flatten(e, out);
  } else if (v.isInt()) {
    const int64_t i = v.toInt();
    out.push_back(scalar_to_host(WASINN_TYPE_I64, &i, sizeof i));
  } else if (v.isDouble()) {
    const double d = v.toDouble();
    out.push_back(scalar_to_host(WASINN_TYPE_F64, &d, sizeof d));
  } else if (v.isBool()) {
    const uint8_t b = v.toBool();
    out.push_back(scalar_to_host(WASINN_TYPE_U8, &b, sizeof b));
  } else {
    out.push_back(to_host(v.toTensor()));
  }
}

}  // namespace

std::vector<HostTensor> native_forward_args(const std::string& path, const std::vector<NativeArg>& inputs) {
  torch::jit::Module m = torch::jit::load(path);
  m.eval();
  std::vector<torch::jit::IValue> args;
  for (const NativeArg& arg : inputs) {
    if (const auto* in = std::get_if<HostTensor>(&arg)) {
      std::vector<int64_t> sizes(in->dims.begin(), in->dims.end());
      args.emplace_back(torch::from_blob(const_cast<uint8_t*>(in->bytes.data()), sizes,
                                         torch::TensorOptions().dtype(dtype_of(in->type)))
                            .clone());
    } else {
      std::visit(
          [&](const auto& v) {
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<T, std::monostate>)
              args.emplace_back();  // None
            else if constexpr (!std::is_same_v<T, HostTensor>)
              args.emplace_back(v);
          },
          arg);
    }
  }
  torch::NoGradGuard no_grad;
  const torch::jit::IValue r = m.forward(args);
  std::vector<HostTensor> out;
  if (r.isList()) {
    for (const auto& e : r.toListRef()) out.push_back(to_host(e.toTensor()));
  } else if (r.isGenericDict()) {
    std::map<std::string, torch::Tensor> sorted;
    for (const auto& e : r.toGenericDict()) sorted[e.key().toStringRef()] = e.value().toTensor();
    for (const auto& [k, v] : sorted) out.push_back(to_host(v, k));
  } else if (r.isTensor() || r.isTuple() || r.isInt() || r.isDouble() || r.isBool()) {
    flatten(r, out);
  } else {
    ADD_FAILURE() << path << ": unexpected forward result " << r.tagKind();
  }
  return out;
}

std::vector<HostTensor> native_forward(const std::string& path, const std::vector<HostTensor>& inputs) {
  return native_forward_args(path, std::vector<NativeArg>(inputs.begin(), inputs.end()));
}

void native_set_threads(int n) { at::set_num_threads(n); }

std::vector<uint8_t> native_script_archive(const std::string& source) {
  torch::jit::Module m("Scripted");
  m.define(source);
  std::ostringstream out;
  m.save(out);
  const std::string bytes = out.str();
  return {bytes.begin(), bytes.end()};
}

void native_warn_on_new_thread(const std::string& message) {
  std::thread([&] { TORCH_WARN(message); }).join();
}

}  // namespace wasinn_test
