// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Remote image URLs: openai_image_fetch.h.
#include "openai_image_fetch.h"

#include <cstdlib>
#include <string>

namespace openai {
namespace {

std::string base64(const char* data, size_t len) {
  static const char kDigits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((len + 2) / 3 * 4);
  const auto* p = reinterpret_cast<const unsigned char*>(data);
  size_t i = 0;
  for (; i + 2 < len; i += 3) {
    const uint32_t v = (uint32_t{p[i]} << 16) | (uint32_t{p[i + 1]} << 8) | p[i + 2];
    for (int s = 18; s >= 0; s -= 6) out += kDigits[(v >> s) & 63];
  }
  if (i < len) {
    const uint32_t v = (uint32_t{p[i]} << 16) | (i + 1 < len ? uint32_t{p[i + 1]} << 8 : 0);
    out += kDigits[(v >> 18) & 63];
    out += kDigits[(v >> 12) & 63];
    out += i + 1 < len ? kDigits[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

std::string error_text(const hg_fetch_result& r) { return r.error.data ? r.error.data : "no reason given"; }

bool refuse_fetch(wh_response_outparam out, const RemoteImage& image, const std::string& what,
                  const char* code = "invalid_image_url") {
  Refusal why;
  why.status = 400;
  why.message = image.where + ".image_url.url " + image.url + ": " + what;
  why.code = code;
  why.param = "messages";
  respond_refusal(out, why);
  return false;
}

}  // namespace

RemoteImageLimits remote_image_limits() {
  RemoteImageLimits l;
  l.max_bytes = env_number("IMAGE_URL_MAX_BYTES");
  const uint64_t timeout = env_number("IMAGE_URL_TIMEOUT_MS");
  if (timeout > 0) l.timeout_ms = timeout;
  return l;
}

bool fetch_remote_images(const Request& req, const RemoteImageLimits& limits, uint64_t max_image_bytes, json& body,
                         wh_response_outparam out) {
  // One deadline for all of a request's images: a list of slow URLs cannot hold a worker longer.
  const uint64_t deadline = wh_monotonic_now() + limits.timeout_ms * 1000000;
  const std::string timeout = std::to_string(limits.timeout_ms) + " ms";
  uint64_t total = 0;
  for (const RemoteImage& image : req.remote_images) {
    hg_fetch_result r;
    hg_fetch(image.https, image.authority.c_str(), image.path.c_str(), limits.max_bytes, deadline, &r);
    std::string failed;
    const char* code = "invalid_image_url";
    if (r.outcome == HG_FETCH_TIMEOUT) {
      failed = "the download took longer than this server allows (" + timeout + ", --image-urls): " + error_text(r);
    } else if (r.outcome == HG_FETCH_TOO_LARGE) {
      failed = "the image is larger than this server's limit of " + std::to_string(limits.max_bytes) +
               " bytes for a remote image (--image-urls)";
      code = "image_too_large";
    } else if (r.outcome != HG_FETCH_OK) {
      failed = std::string("the download failed: ") + error_text(r);
    } else if (r.status < 200 || r.status > 299) {
      failed = "the server answered HTTP " + std::to_string(r.status) +
               (r.status >= 300 && r.status < 400 ? " (redirects are not followed)" : "") + ", not an image";
    } else if (r.body.len == 0) {
      failed = "the server answered with no bytes, not an image";
    }
    if (failed.empty()) {
      total += r.body.len;
      if (total > max_image_bytes) {
        failed = "the request's images are " + std::to_string(total) + " bytes (decoded) so far, over this server's " +
                 "limit of " + std::to_string(max_image_bytes) + " bytes per request (MAX_IMAGE_BYTES)";
        code = "image_too_large";
      }
    }
    if (!failed.empty()) {
      hg_fetch_result_free(&r);
      return refuse_fetch(out, image, failed, code);
    }
    // The media type is the data URL's only: the bytes say their format, as a data URL's do.
    std::string url = "data:image/fetched;base64," + base64(r.body.data, r.body.len);
    hg_fetch_result_free(&r);
    body["messages"][image.message]["content"][image.part]["image_url"]["url"] = std::move(url);
  }
  return true;
}

}  // namespace openai
