// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Remote image URLs (wasinn serve --image-urls): an image_url part's http(s) URL fetched by the
// guest (wasi:http/outgoing-handler, http_guest.h's hg_fetch) and put back into the request as a
// data URL, so that its bytes take the data URL's path (format checks, MAX_IMAGE_BYTES, decoder).
#pragma once

#include <cstdint>

#include "http_openai.h"

namespace openai {

// The guest's environment: IMAGE_URL_MAX_BYTES (a whole number above 0 turns fetching on: the
// most bytes one image may have) and IMAGE_URL_TIMEOUT_MS (the time all of one request's fetches
// may take together; default 10 s).
struct RemoteImageLimits {
  uint64_t max_bytes = 0;  // 0: off, http(s) URLs are refused
  uint64_t timeout_ms = 10000;
};
RemoteImageLimits remote_image_limits();

// Fetches each of req.remote_images and writes it into `body` (a copy of the request) as a
// data:image/...;base64 URL; false after answering (400 naming the URL and what went wrong).
// `max_image_bytes` bounds the sum of the fetched bytes as it bounds a request's data URLs.
bool fetch_remote_images(const Request& req, const RemoteImageLimits& limits, uint64_t max_image_bytes, json& body,
                         wh_response_outparam out);

}  // namespace openai
