// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// `wasinn serve --models-dir DIR`: every GGUF model of DIR served by the OpenAI endpoint, each
// loaded at its first use (docs/serving.md, "Many models"). DIR's own *.gguf files are named by
// their file name without .gguf (a split model by its first part, as --openai names it); a
// Hugging Face Hub cache (models--OWNER--REPO/snapshots/REV/..., as `wasinn pull` and
// huggingface_hub write it) gives OWNER/REPO:TAG, the reference `wasinn pull` and llama-server's
// -hf take for that file (TAG its quantization, e.g. Q4_K_M; the file's name without .gguf where
// no tag picks it alone). Projector files (mmproj-*.gguf) are skipped.
#pragma once

#include <filesystem>
#include <vector>

#include "cli/openai_models.h"

namespace wasinn_cli {

// DIR's models, sorted by name. Throws UsageError for a DIR that is missing, not a directory or
// holds no GGUF model, or two models of one name, saying what to do.
std::vector<OpenaiModel> scan_models_dir(const std::filesystem::path& dir);

}  // namespace wasinn_cli
