// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "native_ov_model.h"

namespace wasinn::bench {

std::unique_ptr<NativeOvModel> NativeOvModel::open(ov::Core& core, const std::string& xml_path, int threads,
                                                   std::string* error) {
  try {
    ov::CompiledModel compiled = core.compile_model(
        xml_path, "CPU", {ov::inference_num_threads(threads), ov::hint::inference_precision(ov::element::f32)});
    ov::InferRequest request = compiled.create_infer_request();
    return std::unique_ptr<NativeOvModel>(new NativeOvModel(std::move(compiled), std::move(request)));
  } catch (const std::exception& e) {
    *error = "native OpenVINO: " + xml_path + ": " + e.what();
    return nullptr;
  }
}

bool NativeOvModel::bind_f32_input(size_t index, std::span<float> data, const std::vector<uint32_t>& dims,
                                   std::string* error) {
  try {
    request_.set_input_tensor(index, ov::Tensor(ov::element::f32, ov::Shape(dims.begin(), dims.end()), data.data()));
    return true;
  } catch (const std::exception& e) {
    *error = std::string("native OpenVINO: binding input: ") + e.what();
    return false;
  }
}

bool NativeOvModel::run(std::string* error) {
  try {
    request_.infer();
    return true;
  } catch (const std::exception& e) {
    *error = std::string("native OpenVINO: infer: ") + e.what();
    return false;
  }
}

std::span<const uint8_t> NativeOvModel::output_bytes(size_t index) {
  try {
    ov::Tensor t = request_.get_output_tensor(index);
    return {static_cast<const uint8_t*>(t.data()), t.get_byte_size()};
  } catch (const std::exception&) {
    return {};
  }
}

}  // namespace wasinn::bench
