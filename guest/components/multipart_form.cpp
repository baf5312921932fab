// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "multipart_form.h"

namespace multipart {
namespace {

char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (lower(a[i]) != lower(b[i])) return false;
  return true;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// A header value's parameters after its first token: `; key=value` or `; key="quoted \" value"`.
// Calls `take(key, value)` for each; false when a quoted value does not end.
template <class Take>
bool parameters(std::string_view s, Take take) {
  size_t at = s.find(';');
  while (at != std::string_view::npos && at < s.size()) {
    ++at;
    const size_t eq = s.find('=', at);
    if (eq == std::string_view::npos) return true;  // a bare flag: nothing form-data needs
    const std::string_view key = trim(s.substr(at, eq - at));
    size_t i = eq + 1;
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
    std::string value;
    if (i < s.size() && s[i] == '"') {
      for (++i;; ++i) {
        if (i >= s.size()) return false;
        if (s[i] == '"') break;
        if (s[i] == '\\' && i + 1 < s.size()) ++i;
        value += s[i];
      }
      at = s.find(';', i);
    } else {
      at = s.find(';', i);
      value = std::string(trim(s.substr(i, at == std::string_view::npos ? std::string_view::npos : at - i)));
    }
    take(key, value);
  }
  return true;
}

std::string ordinal(size_t n) { return "part " + std::to_string(n); }

// One part's header block (the lines between its boundary line and the blank line).
bool read_headers(std::string_view block, size_t n, Part& part, std::string& why) {
  bool disposition = false;
  while (!block.empty()) {
    const size_t eol = block.find("\r\n");
    const std::string_view line = block.substr(0, eol);
    block = eol == std::string_view::npos ? std::string_view() : block.substr(eol + 2);
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos) {
      why = ordinal(n) + " has a header line without ':' (" + std::string(line.substr(0, 40)) + ")";
      return false;
    }
    const std::string_view name = trim(line.substr(0, colon)), value = trim(line.substr(colon + 1));
    if (iequals(name, "content-type")) {
      part.content_type = std::string(value);
    } else if (iequals(name, "content-disposition")) {
      const std::string_view type = trim(value.substr(0, value.find(';')));
      if (!iequals(type, "form-data")) {
        why = ordinal(n) + "'s Content-Disposition is " + std::string(type.substr(0, 40)) + ", not form-data";
        return false;
      }
      bool named = false;
      const bool closed = parameters(value, [&](std::string_view key, const std::string& v) {
        if (iequals(key, "name")) part.name = v, named = true;
        if (iequals(key, "filename")) part.filename = v, part.has_filename = true;
      });
      if (!closed) {
        why = ordinal(n) + "'s Content-Disposition has a quoted value that does not end";
        return false;
      }
      if (!named || part.name.empty()) {
        why = ordinal(n) + "'s Content-Disposition has no name";
        return false;
      }
      disposition = true;
    }
  }
  if (!disposition) {
    why = ordinal(n) + " has no Content-Disposition: form-data header naming its field";
    return false;
  }
  return true;
}

}  // namespace

bool boundary_of(std::string_view content_type, std::string& boundary, std::string& why) {
  const std::string_view type = trim(content_type.substr(0, content_type.find(';')));
  if (!iequals(type, "multipart/form-data")) {
    why = "the request's Content-Type is " + (type.empty() ? std::string("missing") : std::string(type.substr(0, 60))) +
          "; send the audio as multipart/form-data";
    return false;
  }
  bool found = false;
  const bool closed = parameters(content_type, [&](std::string_view key, const std::string& v) {
    if (iequals(key, "boundary")) boundary = v, found = true;
  });
  if (!closed || !found || boundary.empty() || boundary.size() > 70) {
    why = "the multipart/form-data Content-Type has no valid boundary (1 to 70 characters)";
    return false;
  }
  return true;
}

bool parse(std::string_view body, std::string_view boundary, std::vector<Part>& parts, std::string& why) {
  parts.clear();
  const std::string dash = "--" + std::string(boundary), delimiter = "\r\n" + dash;
  // The first boundary line opens the body or follows a preamble's line break.
  size_t at = 0;
  if (body.substr(0, dash.size()) != dash) {
    at = body.find(delimiter);
    if (at == std::string_view::npos) {
      why = "the form holds no boundary line (--" + std::string(boundary) +
            "): it is not the multipart body its Content-Type says";
      return false;
    }
    at += 2;
  }
  for (size_t n = 1;; ++n) {
    at += dash.size();
    if (body.substr(at, 2) == "--") return true;  // the closing boundary; the epilogue is ignored
    while (at < body.size() && (body[at] == ' ' || body[at] == '\t')) ++at;  // RFC 2046's padding
    if (body.substr(at, 2) != "\r\n") {
      why = at < body.size()
                ? "a boundary line is not followed by a line break"
                : "the form ends without its closing boundary (--" + std::string(boundary) + "--): it is cut off";
      return false;
    }
    at += 2;
    if (parts.size() == kMaxParts) {
      why = "the form has more than " + std::to_string(kMaxParts) + " parts";
      return false;
    }
    // Headers end at a blank line; a part with none starts with the blank line itself.
    size_t content = 0;
    std::string_view headers;
    if (body.substr(at, 2) == "\r\n") {
      content = at + 2;
    } else {
      const size_t end = body.find("\r\n\r\n", at);
      if (end == std::string_view::npos) {
        why = ordinal(n) + "'s headers do not end (no blank line before its content): the form is cut off";
        return false;
      }
      headers = body.substr(at, end - at);
      content = end + 4;
    }
    const size_t next = body.find(delimiter, content);
    if (next == std::string_view::npos) {
      why = ordinal(n) + " does not end (no boundary line after it): the form is cut off";
      return false;
    }
    Part part;
    if (!read_headers(headers, n, part, why)) return false;
    part.body = body.substr(content, next - content);
    parts.push_back(std::move(part));
    at = next + 2;
  }
}

}  // namespace multipart
