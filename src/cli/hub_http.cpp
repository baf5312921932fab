// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "cli/hub_http.h"

#include <dlfcn.h>

#include <algorithm>
#include <cctype>
#include <memory>

#include <curl/curl.h>
#include <fmt/format.h>

namespace wasinn_cli::hub {

namespace {

constexpr size_t kErrorBodyBytes = 64 << 10;

// libcurl, loaded when the first request is made rather than linked: its libraries (OpenSSL,
// GnuTLS, Kerberos, LDAP, nghttp2...) cost every start of `wasinn` ~7 ms, and only `pull` uses it.
struct Curl {
  std::string error;  // why it could not be loaded
  decltype(&curl_global_init) global_init = nullptr;
  decltype(&curl_easy_init) easy_init = nullptr;
  decltype(&curl_easy_setopt) easy_setopt = nullptr;
  decltype(&curl_easy_perform) easy_perform = nullptr;
  decltype(&curl_easy_getinfo) easy_getinfo = nullptr;
  decltype(&curl_easy_cleanup) easy_cleanup = nullptr;
  decltype(&curl_easy_strerror) easy_strerror = nullptr;
  decltype(&curl_slist_append) slist_append = nullptr;
  decltype(&curl_slist_free_all) slist_free_all = nullptr;
};

const Curl& curl() {
  static const Curl loaded = [] {
    Curl c;
    void* lib = nullptr;
    for (const char* name : {"libcurl.so.4", "libcurl-gnutls.so.4"}) {
      if ((lib = ::dlopen(name, RTLD_NOW | RTLD_LOCAL))) break;
    }
    if (!lib) {
      c.error = fmt::format("cannot load libcurl (libcurl.so.4, Debian's libcurl4): {}", ::dlerror());
      return c;
    }
    const auto load = [&](auto& fn, const char* name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(::dlsym(lib, name));
      if (!fn && c.error.empty()) c.error = fmt::format("libcurl.so.4 has no {}", name);
    };
    load(c.global_init, "curl_global_init");
    load(c.easy_init, "curl_easy_init");
    load(c.easy_setopt, "curl_easy_setopt");
    load(c.easy_perform, "curl_easy_perform");
    load(c.easy_getinfo, "curl_easy_getinfo");
    load(c.easy_cleanup, "curl_easy_cleanup");
    load(c.easy_strerror, "curl_easy_strerror");
    load(c.slist_append, "curl_slist_append");
    load(c.slist_free_all, "curl_slist_free_all");
    if (c.error.empty()) c.global_init(CURL_GLOBAL_DEFAULT);  // once, before any thread uses it
    return c;
  }();
  return loaded;
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\r' || s.back() == '\n' || s.back() == ' ' || s.back() == '\t')) s.pop_back();
  size_t start = 0;
  while (start < s.size() && (s[start] == ' ' || s[start] == '\t')) ++start;
  return s.substr(start);
}

struct Capture {
  CURL* easy = nullptr;
  HttpResponse* r = nullptr;
  const std::function<bool(const char*, size_t)>* on_bytes = nullptr;  // a download
  const std::function<void()>* on_restart = nullptr;
  uint64_t offset = 0;
  size_t max_body = kErrorBodyBytes;
  bool checked = false;  // the final response's status looked at
  bool to_file = false;
  bool stopped = false;
  bool too_big = false;
  std::string bad_range;
};

size_t on_header(char* data, size_t size, size_t n, void* user) {
  auto* c = static_cast<Capture*>(user);
  const size_t len = size * n;
  const std::string line = trim(std::string(data, len));
  if (line.rfind("HTTP/", 0) == 0) {  // a new response (after a redirect or a 100): its headers only
    c->r->headers.clear();
    return len;
  }
  const size_t colon = line.find(':');
  if (colon == std::string::npos) return len;
  const std::string name = lower(trim(line.substr(0, colon)));
  const std::string value = trim(line.substr(colon + 1));
  auto [it, added] = c->r->headers.emplace(name, value);
  if (!added) it->second += ", " + value;
  return len;
}

// "bytes START-END/TOTAL" -> START; -1 when it is not that form.
long long range_start(const std::string& content_range) {
  const std::string prefix = "bytes ";
  if (content_range.rfind(prefix, 0) != 0) return -1;
  long long start = 0;
  size_t i = prefix.size();
  if (i >= content_range.size() || !std::isdigit(static_cast<unsigned char>(content_range[i]))) return -1;
  for (; i < content_range.size() && std::isdigit(static_cast<unsigned char>(content_range[i])); ++i)
    start = start * 10 + (content_range[i] - '0');
  return start;
}

size_t on_body(char* data, size_t size, size_t n, void* user) {
  auto* c = static_cast<Capture*>(user);
  const size_t len = size * n;
  long status = 0;
  curl().easy_getinfo(c->easy, CURLINFO_RESPONSE_CODE, &status);
  if (status >= 300 && status < 400) return len;  // a redirect's own body
  if (!c->checked) {
    c->checked = true;
    if (c->on_bytes && (status == 200 || status == 206)) {
      c->to_file = true;
      if (status == 206 && range_start(c->r->header("content-range")) != static_cast<long long>(c->offset)) {
        c->bad_range = c->r->header("content-range");
        return 0;
      }
      if (status == 200 && c->offset > 0) (*c->on_restart)();
    }
  }
  if (c->to_file) {
    if (!(*c->on_bytes)(data, len)) {
      c->stopped = true;
      return 0;
    }
    c->r->received += len;
    return len;
  }
  if (c->r->body.size() + len > c->max_body) {
    c->too_big = true;
    return 0;
  }
  c->r->body.append(data, len);
  return len;
}

struct Request {
  CURL* easy = nullptr;
  curl_slist* headers = nullptr;
  char error[CURL_ERROR_SIZE] = {};
  ~Request() {
    if (headers) curl().slist_free_all(headers);
    if (easy) curl().easy_cleanup(easy);
  }
};

HttpResponse perform(const std::string& url, const Headers& headers, const HttpSettings& s, bool head, bool follow,
                     Capture& capture) {
  const Curl& lib = curl();
  HttpResponse r;
  r.url = url;
  if (!lib.error.empty()) {
    r.transport = lib.error;
    return r;
  }
  Request q;
  q.easy = lib.easy_init();
  if (!q.easy) {
    r.transport = "libcurl could not start a request";
    return r;
  }
  capture.easy = q.easy;
  capture.r = &r;
  for (const auto& h : headers) q.headers = lib.slist_append(q.headers, h.c_str());
  CURL* e = q.easy;
  lib.easy_setopt(e, CURLOPT_URL, url.c_str());
  lib.easy_setopt(e, CURLOPT_HTTPHEADER, q.headers);
  lib.easy_setopt(e, CURLOPT_USERAGENT, s.user_agent.c_str());
  lib.easy_setopt(e, CURLOPT_ERRORBUFFER, q.error);
  lib.easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
  lib.easy_setopt(e, CURLOPT_CONNECTTIMEOUT, s.connect_timeout_s);
  lib.easy_setopt(e, CURLOPT_LOW_SPEED_LIMIT, 1L);
  lib.easy_setopt(e, CURLOPT_LOW_SPEED_TIME, s.stall_timeout_s);
#if LIBCURL_VERSION_NUM >= 0x075500
  lib.easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
  lib.easy_setopt(e, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
#else
  lib.easy_setopt(e, CURLOPT_PROTOCOLS, static_cast<long>(CURLPROTO_HTTP | CURLPROTO_HTTPS));
  lib.easy_setopt(e, CURLOPT_REDIR_PROTOCOLS, static_cast<long>(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
  lib.easy_setopt(e, CURLOPT_FOLLOWLOCATION, follow ? 1L : 0L);
  lib.easy_setopt(e, CURLOPT_MAXREDIRS, 10L);
  lib.easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
  lib.easy_setopt(e, CURLOPT_HEADERDATA, &capture);
  lib.easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
  lib.easy_setopt(e, CURLOPT_WRITEDATA, &capture);
  if (head) lib.easy_setopt(e, CURLOPT_NOBODY, 1L);
  const std::string range = fmt::format("{}-", capture.offset);
  if (capture.offset > 0) lib.easy_setopt(e, CURLOPT_RANGE, range.c_str());

  const CURLcode code = lib.easy_perform(e);
  lib.easy_getinfo(e, CURLINFO_RESPONSE_CODE, &r.status);
  char* effective = nullptr;
  if (lib.easy_getinfo(e, CURLINFO_EFFECTIVE_URL, &effective) == CURLE_OK && effective) r.url = effective;
  char* location = nullptr;
  if (lib.easy_getinfo(e, CURLINFO_REDIRECT_URL, &location) == CURLE_OK && location) r.redirect = location;
  if (code == CURLE_OK) return r;
  if (!capture.bad_range.empty()) {
    r.transport = fmt::format("the server answered a request from byte {} with Content-Range '{}'", capture.offset,
                              capture.bad_range);
  } else if (capture.stopped) {
    r.transport = "stopped";
  } else if (capture.too_big) {
    r.transport = fmt::format("the answer is larger than {} bytes", capture.max_body);
  } else {
    r.transport = q.error[0] ? std::string(q.error) : std::string(lib.easy_strerror(code));
    if (code == CURLE_OPERATION_TIMEDOUT && r.status != 0) {
      r.transport = fmt::format("no data for {} s: {}", s.stall_timeout_s, r.transport);
    }
    r.cut = r.status != 0 && (code == CURLE_PARTIAL_FILE || code == CURLE_RECV_ERROR ||
                              code == CURLE_OPERATION_TIMEDOUT || code == CURLE_GOT_NOTHING ||
                              code == CURLE_HTTP2_STREAM || code == CURLE_HTTP2 || code == CURLE_SEND_ERROR);
  }
  return r;
}

struct UrlParts {
  std::string scheme, host, port;
};

// scheme://[user@]host[:port][/...]: enough to compare origins (a [v6] host keeps its brackets).
UrlParts parts_of(const std::string& url) {
  UrlParts p;
  const size_t sep = url.find("://");
  if (sep == std::string::npos) return p;
  p.scheme = lower(url.substr(0, sep));
  std::string authority = url.substr(sep + 3, url.find_first_of("/?#", sep + 3) - (sep + 3));
  if (const size_t at = authority.rfind('@'); at != std::string::npos) authority = authority.substr(at + 1);
  const size_t bracket = authority.find(']');
  const size_t colon = authority.find(':', bracket == std::string::npos ? 0 : bracket);
  p.host = lower(authority.substr(0, colon));
  if (colon != std::string::npos) p.port = authority.substr(colon + 1);
  if (p.port.empty()) p.port = p.scheme == "https" ? "443" : p.scheme == "http" ? "80" : "";
  return p;
}

}  // namespace

std::string HttpResponse::header(const std::string& lower_name) const {
  const auto it = headers.find(lower_name);
  return it == headers.end() ? std::string() : it->second;
}

HttpResponse http_head(const std::string& url, const Headers& headers, const HttpSettings& s) {
  Capture capture;
  return perform(url, headers, s, /*head=*/true, /*follow=*/false, capture);
}

HttpResponse http_get_text(const std::string& url, const Headers& headers, const HttpSettings& s, size_t max_bytes) {
  Capture capture;
  capture.max_body = max_bytes;
  return perform(url, headers, s, /*head=*/false, /*follow=*/true, capture);
}

HttpResponse http_get_to(const std::string& url, const Headers& headers, const HttpSettings& s, uint64_t offset,
                         const std::function<bool(const char*, size_t)>& on_bytes,
                         const std::function<void()>& on_restart) {
  Capture capture;
  capture.on_bytes = &on_bytes;
  capture.on_restart = &on_restart;
  capture.offset = offset;
  return perform(url, headers, s, /*head=*/false, /*follow=*/true, capture);
}

bool same_origin(const std::string& a, const std::string& b) {
  const UrlParts x = parts_of(a);
  const UrlParts y = parts_of(b);
  return !x.host.empty() && x.scheme == y.scheme && x.host == y.host && x.port == y.port;
}

std::string url_host(const std::string& url) { return parts_of(url).host; }

std::string url_escape(const std::string& text, bool keep_slash) {
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~' || (keep_slash && c == '/')) {
      out += static_cast<char>(c);
    } else {
      out += fmt::format("%{:02X}", c);
    }
  }
  return out;
}

}  // namespace wasinn_cli::hub
