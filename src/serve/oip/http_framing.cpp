// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "serve/oip/http_framing.h"

#include <strings.h>

#include <cstring>
#include <string_view>

#include <civetweb.h>
#include <fmt/format.h>

namespace wasinn::oip_server {

namespace {

bool is_token_char(char c) {
  const auto u = static_cast<unsigned char>(c);
  return (u >= '0' && u <= '9') || (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') ||
         std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

// The checks below that look past a header's strings read civetweb 1.15's parse in place (parse_http_headers in
// civetweb.c): the request's buffer, where it wrote a NUL over each space between a name and its colon, and over the
// colon and the line's end. Another version may lay it out otherwise: they apply to 1.15.
bool parsed_by_civetweb_1_15() {
  static const bool is = std::string_view(mg_version()).starts_with("1.15");
  return is;
}

// Whether the header had spaces before its colon ("Transfer-Encoding : chunked"), which civetweb
// drops: the byte after the name's NUL is another NUL (the colon, or a space) and the value starts
// past it. Without them that byte is the colon's successor, or the value's first (NUL for "Name:").
bool space_before_colon(const mg_header& h) {
  const size_t n = std::strlen(h.name);
  return h.name[n + 1] == '\0' && h.value != h.name + n + 1;
}

// The bytes civetweb zeroed between the end of a line's last word and the next line's first byte:
// 2 after CR LF, 1 after a bare LF; more after the request line when its next line was folded
// (civetweb zeroes all the whitespace after the HTTP version, a fold's leading spaces too).
size_t gap(const char* word_end, const char* next) { return static_cast<size_t>(next - word_end); }

// Headers of at most this many bytes from the method on, half of civetweb's 16 KiB buffer: the
// byte header_lines_dropped reads after the last line is then inside that buffer (past the block
// only for a mixed CR LF / LF block, whose end is then far from the buffer's).
constexpr size_t kMaxHeaderBlock = 8192;

// Whether civetweb stopped reading header lines before the block's end: at a folded line (one
// that starts with a space or a tab, obs-fold) or a line with no name, it ends its list and drops
// the rest, which a proxy in front would have read. `end` is the last value's end, `crlf` whether
// the lines before it end with CR LF. After the last line come its zeroed end and the block's
// final CR LF (its LF zeroed); after a bare LF, the block's final LF (zeroed) or the next line.
bool header_lines_dropped(const char* end, bool crlf) {
  if (end[1] != '\0') return true;  // a bare LF, and a line after it: no block ends so
  // CR LF then end[2] is the block's final CR, or the first byte of a line civetweb dropped.
  return crlf && end[2] != '\r' && end[2] != '\0';
}

}  // namespace

std::optional<FramingError> framing_error(const mg_request_info& r) {
  auto bad = [](std::string message) { return FramingError{400, std::move(message)}; };
  const bool http_1_1 = r.http_version && std::strcmp(r.http_version, "1.1") == 0;
  if (r.num_headers >= MG_MAX_HEADERS)
    return FramingError{
        431, fmt::format("the request has {} header lines or more: at most {}", MG_MAX_HEADERS, MG_MAX_HEADERS - 1)};
  int lengths = 0, encodings = 0, hosts = 0, authorizations = 0;
  const char *length = nullptr, *encoding = nullptr;
  for (int i = 0; i < r.num_headers; ++i) {
    const mg_header& h = r.http_headers[i];
    const std::string_view name(h.name);
    for (char c : name)
      if (!is_token_char(c)) return bad(fmt::format("the header name {:?} is not a token (RFC 9110)", name));
    if (parsed_by_civetweb_1_15() && space_before_colon(h))
      return bad(fmt::format("the header '{}' has whitespace before its colon", name));
    if (strcasecmp(h.name, "Content-Length") == 0) {
      ++lengths;
      length = h.value;
    } else if (strcasecmp(h.name, "Transfer-Encoding") == 0) {
      ++encodings;
      encoding = h.value;
    } else if (strcasecmp(h.name, "Host") == 0) {
      ++hosts;
    } else if (strcasecmp(h.name, "Authorization") == 0) {
      ++authorizations;
    }
  }
  if (parsed_by_civetweb_1_15() && r.num_headers > 0 && r.request_method && r.http_version) {
    const char* line_end = r.http_version + std::strlen(r.http_version);
    size_t last_gap = gap(line_end, r.http_headers[0].name);
    if (last_gap > 2) return bad("the request line is followed by a folded line");
    for (int i = 1; i < r.num_headers; ++i) {
      line_end = r.http_headers[i - 1].value + std::strlen(r.http_headers[i - 1].value);
      last_gap = gap(line_end, r.http_headers[i].name);
    }
    const mg_header& last = r.http_headers[r.num_headers - 1];
    const char* end = last.value + std::strlen(last.value);
    if (static_cast<size_t>(end - r.request_method) > kMaxHeaderBlock)
      return FramingError{431, fmt::format("the request's headers take more than {} bytes", kMaxHeaderBlock)};
    if (header_lines_dropped(end, last_gap == 2))
      return bad("a header line starts with whitespace (a folded line) or has no name");
  }
  if (lengths > 1) return bad(fmt::format("the request has {} Content-Length headers: one at most", lengths));
  if (encodings > 1) return bad(fmt::format("the request has {} Transfer-Encoding headers: one at most", encodings));
  if (lengths && encodings) return bad("the request has both Content-Length and Transfer-Encoding");
  if (length) {
    const std::string_view v(length);
    if (v.empty() || v.find_first_not_of("0123456789") != std::string_view::npos || v.size() > 18)
      return bad(fmt::format("Content-Length {:?} is not a length", v));
  }
  if (encoding) {
    if (!http_1_1) return bad("Transfer-Encoding is HTTP/1.1's: an HTTP/1.0 request cannot have it");
    if (strcasecmp(encoding, "chunked") != 0)
      return bad(fmt::format("Transfer-Encoding {:?}: only 'chunked' is taken", std::string_view(encoding)));
  }
  if (hosts > 1) return bad(fmt::format("the request has {} Host headers: one at most", hosts));
  if (http_1_1 && hosts == 0) return bad("an HTTP/1.1 request needs a Host header");
  if (authorizations > 1)
    return bad(fmt::format("the request has {} Authorization headers: send the key once", authorizations));
  return std::nullopt;
}

}  // namespace wasinn::oip_server
