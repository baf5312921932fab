// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// POST /v1/audio/transcriptions and /v1/audio/translations. Not built yet: answers 501.
#include "http_openai.h"

namespace openai {

void transcriptions(const std::string&, const std::string&, bool, wh_response_outparam out, Generation) {
  respond_error(out, 501, "audio transcription is not built yet", "not_implemented");
}

}  // namespace openai
