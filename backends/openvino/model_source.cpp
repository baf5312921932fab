// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "model_source.h"

#include <cstring>

namespace wasinn::openvino {
namespace {

// IR is XML text: '<' first, after an optional UTF-8 byte order mark and whitespace.
bool looks_like_xml(const wasinn_bytes& b) {
  size_t i = 0;
  if (b.length >= 3 && std::memcmp(b.data, "\xEF\xBB\xBF", 3) == 0) i = 3;
  while (i < b.length && (b.data[i] == ' ' || b.data[i] == '\t' || b.data[i] == '\r' || b.data[i] == '\n')) ++i;
  return i < b.length && b.data[i] == '<';
}

}  // namespace

Error read_model_source(std::span<const wasinn_bytes> builders, ModelSource& out) {
  const size_t count = builders.size();
  if (count == 0) return sdk::invalid("load: no graph builders given");
  if (count > 2)
    return sdk::invalid("load: " + std::to_string(count) +
                        " graph builders given; OpenVINO takes 2 (IR: .xml then .bin) or 1 (ONNX)");
  for (size_t i = 0; i < count; ++i)
    if (builders[i].length && !builders[i].data)
      return sdk::invalid("load: builder " + std::to_string(i) + " has no data");
  const bool xml = looks_like_xml(builders[0]);
  if (count == 1 && xml)
    return sdk::invalid(
        "load: OpenVINO IR needs two graph builders, the .xml and then its .bin weights; "
        "only the .xml was given");
  if (count == 2 && !xml)
    return sdk::invalid(
        "load: two graph builders are read as OpenVINO IR (.xml then .bin), "
        "but builder 0 is not XML");

  out.is_ir = xml;
  out.model.assign(reinterpret_cast<const char*>(builders[0].data), builders[0].length);
  if (xml) {
    const wasinn_bytes& w = builders[1];
    // An IR without constants has an empty .bin; OpenVINO wants no tensor at all then.
    if (w.length) {
      out.weights = ov::Tensor(ov::element::u8, ov::Shape{w.length});
      std::memcpy(out.weights.data(), w.data, w.length);
    }
  }
  return {};
}

}  // namespace wasinn::openvino
