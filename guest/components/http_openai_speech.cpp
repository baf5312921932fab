// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// POST /v1/audio/speech. Not built yet: answers 501.
#include "http_openai.h"

namespace openai {

void speech(const json&, wh_response_outparam out, Generation) {
  respond_error(out, 501, "speech is not built yet", "not_implemented");
}

}  // namespace openai
