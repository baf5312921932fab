// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The HTTP requests `wasinn pull` makes (libcurl): a HEAD that stops at a redirect (the Hub's
// metadata is on the redirect itself), a small GET read into memory (the Hub's API), and a GET
// written to a file from an offset (Range) with every byte handed to a callback. TLS verified,
// a connect timeout, and a low-speed limit so that a stalled server ends the request.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace wasinn_cli::hub {

struct HttpResponse {
  long status = 0;                             // 0: no answer (transport is set)
  std::string transport;                       // why there was no answer: libcurl's message
  bool cut = false;                            // an answer that ended early (connection dropped, stalled)
  std::map<std::string, std::string> headers;  // the last response's, names in lower case
  std::string body;                            // HEAD: empty; a download: the error body only
  std::string url;                             // the URL answered (after redirects followed)
  std::string redirect;                        // a 3xx's Location, absolute
  uint64_t received = 0;                       // a download: bytes written to the file by this request

  std::string header(const std::string& lower_name) const;
};

struct HttpSettings {
  long connect_timeout_s = 30;
  long stall_timeout_s = 60;  // less than 1 byte/s for this long ends a request
  std::string user_agent;
};

// Request headers: "Name: value" lines.
using Headers = std::vector<std::string>;

// HEAD without following redirects.
HttpResponse http_head(const std::string& url, const Headers& headers, const HttpSettings& s);

// GET following redirects, the body kept up to max_bytes (more is an error: transport says so).
HttpResponse http_get_text(const std::string& url, const Headers& headers, const HttpSettings& s, size_t max_bytes);

// GET following redirects, from byte `offset` (a Range request when it is not 0). A 200 or 206
// body goes to on_bytes; a 200 answering a Range request first calls on_restart (the server sent
// the whole file: what was kept must go). on_bytes returns false to stop (an error of the
// caller's: transport says "stopped"). Any other status keeps the body (up to 64 KiB) instead.
HttpResponse http_get_to(const std::string& url, const Headers& headers, const HttpSettings& s, uint64_t offset,
                         const std::function<bool(const char*, size_t)>& on_bytes,
                         const std::function<void()>& on_restart);

// Whether two URLs have the same scheme, host and port.
bool same_origin(const std::string& a, const std::string& b);
// The host of a URL ("huggingface.co"), lower case; empty when it has none.
std::string url_host(const std::string& url);
// A path segment or path percent-encoded as a URL wants it ("/" kept when keep_slash).
std::string url_escape(const std::string& text, bool keep_slash);

}  // namespace wasinn_cli::hub
