// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Checks of a GGUF model for values that llama.cpp b11312 answers with GGML_ASSERT (abort) instead
// of a load error, so that the plugin refuses them with a message and the process lives on (load
// isolation, isolation/isolated_load.h, contains what these miss). Stateless; thread-safe.
#pragma once

#include <llama.h>

#include "wasinn/plugin_sdk/error.hpp"

namespace wasinn::llamacpp {

using sdk::Error;

// Before llama.cpp loads `path`: the declared block count must be 1..512 (LLAMA_MAX_LAYERS),
// else load_hparams asserts, and no vocabulary token may repeat, else the vocabulary load
// asserts. A header gguf cannot read passes, for llama.cpp to reject.
Error check_gguf_header(const char* path);

// Whether `path` is a multimodal projector GGUF (general.architecture "clip", what llama.cpp's
// converters write for an mmproj): read from its header only. False for anything else, a file
// gguf cannot read included.
bool is_projector_gguf(const char* path);
// Whether `path` is a WavTokenizer decoder GGUF (general.architecture "wavtokenizer-dec"), the
// vocoder of OuteTTS's text to speech; read as is_projector_gguf.
bool is_vocoder_gguf(const char* path);

// After a load: normalisation epsilons reach ggml_norm/ggml_rms_norm, which assert eps >= 0 at
// the first compute, long after the load succeeded.
Error check_loaded_model(const llama_model* model);

}  // namespace wasinn::llamacpp
