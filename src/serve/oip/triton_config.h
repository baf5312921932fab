// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// DIR/NAME/config.pbtxt, Triton's model configuration (protobuf text format), read with
// protobuf's TextFormat into the part of Triton's ModelConfig that src/oip/inference.proto holds.
// What maps onto wasinn is read: platform/backend (the encoding, unless config.json names one),
// max_batch_size and dynamic_batching.max_queue_delay_microseconds (dynamic batching, as
// config.json's max_batch_size and max_queue_delay_us), input and output (name, data_type, dims:
// checked against the model once it loads, check_triton_io). Every other field is ignored and
// named in one warning at start (ignored_fields).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/types.h"
#include "serve/oip/dynamic_batcher.h"
#include "serve/oip/model_description.h"

namespace wasinn::oip_server {

// The inputs and outputs a config.pbtxt declares, as Triton's /config shows them: dims without
// the batch dimension when max_batch_size is above 0.
struct TritonIo {
  std::filesystem::path file;
  uint32_t max_batch_size = 0;
  std::vector<ConfigTensor> inputs, outputs;
};

struct TritonConfig {
  std::optional<Encoding> encoding;  // from platform or backend, when wasinn has that framework
  BatchingOptions batching;          // dynamic_batching with max_batch_size > 0; else off
  TritonIo io;
  std::vector<std::string> ignored_fields;  // "instance_group", "input.reshape (line 4)"
};

// FILE read for the model directory named MODEL_NAME ("" for a flat repository's model, whose name
// the caller gives). A file that does not parse, a name other than MODEL_NAME, a negative max_batch_size,
// dynamic_batching with a max_batch_size of 0, or a queue delay past kMaxQueueDelayUs is an error naming the file and
// the line.
Result<TritonConfig> read_triton_config(const std::filesystem::path& file, const std::string& model_name);

// invalid_argument unless every tensor IO declares is one SERVED (the loaded model's Triton
// configuration) has, of the same data_type and dims (-1 on either side matches any size).
// batched: SERVED's dims already leave out the batch dimension.
Status check_triton_io(const TritonIo& io, const ModelConfigInfo& served, bool batched);

}  // namespace wasinn::oip_server
