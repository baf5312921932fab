// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Input 2, "messages": a conversation as JSON ([{"role": ..., "content": ...}, ...]) turned into
// the prompt by the model's chat template (its GGUF's tokenizer.chat_template, else chatml), as
// llama.cpp's llama_chat_apply_template applies it: an OpenAI-style server needs no template of
// its own.
#pragma once

#include <llama.h>

#include <string>
#include <string_view>

#include "wasinn/plugin_sdk/error.hpp"

namespace wasinn::llamacpp {

// The prompt for `messages_json`, ending where the assistant's answer begins. INVALID_ARGUMENT
// for JSON that is not such an array; UNSUPPORTED_OPERATION for a template llama.cpp does not
// know (a Jinja template it cannot match), naming what to do instead.
sdk::Error format_chat(const llama_model* model, std::string_view messages_json, std::string& prompt);

}  // namespace wasinn::llamacpp
