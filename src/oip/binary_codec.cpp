// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "binary_codec.h"

#include "json_codec.h"

namespace wasinn::oip {

std::string encode_infer_binary(std::span<const InputTensor> inputs, std::span<const std::string> output_names,
                                size_t* json_length) {
  std::string body = encode_infer_json(inputs, output_names, /*binary=*/true);
  *json_length = body.size();
  size_t total = body.size();
  for (const auto& t : inputs) total += t.data.size();
  body.reserve(total);
  for (const auto& t : inputs) body.append(reinterpret_cast<const char*>(t.data.data()), t.data.size());
  return body;
}

sdk::Error decode_infer_response(std::span<const uint8_t> body, std::optional<size_t> header_length,
                                 std::vector<OutputTensor>& out) {
  size_t json_len = body.size();
  if (header_length) {
    if (*header_length > body.size())
      return malformed_response(std::string(kHeaderLengthField) + " " + std::to_string(*header_length) +
                                " exceeds the body's " + std::to_string(body.size()) + " bytes");
    json_len = *header_length;
  }
  const std::string_view json(reinterpret_cast<const char*>(body.data()), json_len);
  return decode_infer_json(json, body.subspan(json_len), out);
}

}  // namespace wasinn::oip
