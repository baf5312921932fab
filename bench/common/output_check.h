// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Checks that two runs produced the same tensor before anyone times them: a benchmark of wrong
// answers is worthless. Plain functions over byte buffers.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace wasinn::bench {

// The whole file, or nullopt with *error set.
std::optional<std::vector<uint8_t>> read_bytes(const std::string& path, std::string* error);
bool write_bytes(const std::string& path, std::span<const uint8_t> data, std::string* error);

// True when `got` and `want` hold the same number of f32 values and each pair satisfies
// |got - want| <= atol + rtol * |want|. Otherwise false, with the worst element in *detail.
bool f32_close(std::span<const uint8_t> got, std::span<const uint8_t> want, double atol, double rtol,
               std::string* detail);

// The f32 values of a byte buffer (its length must be a multiple of 4).
std::vector<float> as_f32(std::span<const uint8_t> bytes);

}  // namespace wasinn::bench
