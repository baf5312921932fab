// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What wasinn checks of a whisper.cpp model before whisper.cpp reads it. whisper_model_load
// trusts the file: it sizes vectors and strings from the lengths it reads (a hostile header asks
// for gigabytes), and takes a file that ends before its first tensor for an empty "test model"
// that transcribes nothing. So the header, the mel filters' and vocabulary's lengths, and the
// file's size against what its dimensions need are checked here first. Pure functions.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "wasinn/plugin_sdk/error.hpp"

namespace wasinn::whisper {

// `head`: the model's first bytes (all of them for guest bytes); `total_size`: the whole
// model's. INVALID_ENCODING when it is not a whisper.cpp ggml model at all, INVALID_ARGUMENT
// (naming what is wrong) when it is one that is corrupt or truncated. `what` names it in details.
sdk::Error check_model_bytes(std::span<const uint8_t> head, uint64_t total_size, const std::string& what);

// The same for a host file: reads its head (the header, mel filters and vocabulary).
sdk::Error check_model_file(const std::string& path, const std::string& what);

}  // namespace wasinn::whisper
