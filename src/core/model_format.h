// Guessing a model's encoding from its bytes, for the autodetect encoding and for guests whose
// encoding numbers are ambiguous across hosts (witx 5 vs 6). Pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "core/types.h"

namespace wasinn {

// Looks at the builders' first bytes: GGUF magic, "TFL3" at offset 4, a zip archive
// (TorchScript), XML plus a second builder (OpenVINO IR), a text "preload:" path (GGML),
// else ONNX's protobuf. nullopt when nothing fits.
std::optional<Encoding> detect_encoding(std::span<const std::span<const uint8_t>> builders);

}  // namespace wasinn
