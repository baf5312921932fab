// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "serve/api_keys.h"

#include <nettle/memops.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "base/sha256.h"

namespace wasinn {

namespace {

std::array<uint8_t, 32> digest_of(std::string_view key) {
  Sha256 h;
  h.field(key);
  return h.digest();
}

std::string_view trimmed(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t\r") - first + 1);
}

}  // namespace

Status ApiKeys::add_key(std::string_view key, const std::string& where, std::vector<Digest>& out) {
  // What a header's token can carry (RFC 6750's b64token is narrower still); the key itself is
  // never repeated in a message.
  if (key.empty()) return make_error(Errc::invalid_argument, fmt::format("{}: an API key may not be empty", where));
  for (const char c : key) {
    if (c <= ' ' || c == 0x7f)
      return make_error(Errc::invalid_argument,
                        fmt::format("{}: an API key may not contain spaces or control characters", where));
  }
  out.push_back(digest_of(key));
  return {};
}

Status ApiKeys::read_file(const std::string& path, std::vector<Digest>& out) {
  const auto unreadable = [&] {
    return make_error(Errc::invalid_argument,
                      fmt::format("--api-key-file {}: cannot read it: {}", path, std::strerror(errno)));
  };
  std::ifstream in(path, std::ios::binary);
  if (!in) return unreadable();
  std::stringstream text;
  text << in.rdbuf();
  if (in.bad()) return unreadable();
  const size_t before = out.size();
  std::string line;
  for (size_t n = 1; std::getline(text, line); ++n) {
    const std::string_view key = trimmed(line);
    if (key.empty() || key[0] == '#') continue;
    if (auto added = add_key(key, fmt::format("--api-key-file {} line {}", path, n), out); !added) return added;
  }
  if (out.size() == before)
    return make_error(Errc::invalid_argument,
                      fmt::format("--api-key-file {}: holds no key (one key a line; '#' starts a comment)", path));
  return {};
}

Result<std::shared_ptr<ApiKeys>> ApiKeys::make(const std::vector<std::string>& keys,
                                               const std::vector<std::string>& files) {
  std::shared_ptr<ApiKeys> k(new ApiKeys());
  for (const auto& key : keys)
    if (auto added = add_key(key, "--api-key", k->flag_digests_); !added) return added.error();
  k->files_ = files;
  auto all = std::make_shared<std::vector<Digest>>(k->flag_digests_);
  for (const auto& f : files)
    if (auto read = read_file(f, *all); !read) return read.error();
  k->digests_ = std::move(all);
  return k;
}

Result<size_t> ApiKeys::reload() {
  auto all = std::make_shared<std::vector<Digest>>(flag_digests_);
  for (const auto& f : files_)
    if (auto read = read_file(f, *all); !read) return read.error();
  const size_t n = all->size();
  std::lock_guard lock(mu_);
  digests_ = std::move(all);
  return n;
}

size_t ApiKeys::size() const {
  std::lock_guard lock(mu_);
  return digests_->size();
}

bool ApiKeys::check(std::string_view authorization) const {
  std::shared_ptr<const std::vector<Digest>> digests;
  {
    std::lock_guard lock(mu_);
    digests = digests_;
  }
  constexpr std::string_view kScheme = "bearer ";
  bool bearer = authorization.size() > kScheme.size();
  for (size_t i = 0; bearer && i < kScheme.size(); ++i)
    bearer = (authorization[i] | 0x20) == kScheme[i];  // ' ' | 0x20 is ' '
  const Digest presented = digest_of(bearer ? trimmed(authorization.substr(kScheme.size())) : std::string_view());
  // Every digest is compared, whichever matches: the time depends on the number of keys only.
  int found = 0;
  for (const auto& d : *digests) found |= memeql_sec(d.data(), presented.data(), d.size());
  return bearer && found != 0;
}

namespace {

bool names_a_secret(std::string_view name) {
  static constexpr std::string_view kSecretNames[] = {"api_key",  "api-key", "apikey",       "key",
                                                      "token",    "auth",    "access_token", "authorization",
                                                      "password", "secret",  "x-api-key"};
  std::string lower(name);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return std::find(std::begin(kSecretNames), std::end(kSecretNames), lower) != std::end(kSecretNames);
}

}  // namespace

std::string redact_query_secrets(std::string_view path_and_query) {
  const size_t q = path_and_query.find('?');
  if (q == std::string_view::npos) return std::string(path_and_query);
  std::string out(path_and_query.substr(0, q + 1));
  std::string_view query = path_and_query.substr(q + 1);
  while (true) {
    const size_t amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    const size_t eq = pair.find('=');
    if (eq != std::string_view::npos && names_a_secret(pair.substr(0, eq))) {
      out.append(pair.substr(0, eq + 1));
      out += "REDACTED";
    } else {
      out.append(pair);
    }
    if (amp == std::string_view::npos) break;
    out += '&';
    query = query.substr(amp + 1);
  }
  return out;
}

}  // namespace wasinn
