// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ApiKeys: the keys both servers take (--api-key, --api-key-file; docs/serving.md, "API keys"):
// a request shows one as `Authorization: Bearer KEY` (gRPC: the `authorization` metadata). Only
// the keys' SHA-256 digests are kept, and a presented key is digested and compared with every one
// of them in constant time (Nettle's memeql_sec), so neither its bytes nor its length show in the
// time an answer takes. Keys are never logged. Thread-safe: check() from the servers' threads,
// reload() (SIGHUP) from another; a reload that fails keeps the keys in use.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"

namespace wasinn {

class ApiKeys {
 public:
  // `keys` as given (--api-key), `files` read now: one key a line, blank lines and lines
  // starting with '#' skipped, spaces around a key trimmed. An error names the flag or the file
  // (unreadable, holding no key, a key with a space or a control character).
  static Result<std::shared_ptr<ApiKeys>> make(const std::vector<std::string>& keys,
                                               const std::vector<std::string>& files);

  // Whether `authorization` (an Authorization header's value, "" when absent) is "Bearer KEY"
  // with one of the keys (the scheme's case does not matter, as RFC 7235 says).
  bool check(std::string_view authorization) const;

  // Rereads the files (the --api-key keys stay); on an error the keys in use stay too. Returns
  // how many keys are in use after it.
  Result<size_t> reload();
  size_t size() const;
  const std::vector<std::string>& files() const { return files_; }

 private:
  using Digest = std::array<uint8_t, 32>;
  ApiKeys() = default;
  static Status read_file(const std::string& path, std::vector<Digest>& out);
  static Status add_key(std::string_view key, const std::string& where, std::vector<Digest>& out);

  std::vector<Digest> flag_digests_;
  std::vector<std::string> files_;
  mutable std::mutex mu_;
  std::shared_ptr<const std::vector<Digest>> digests_;  // flags' and files', swapped whole by reload
};

// A request's path and query as the access log may show it: the values of query parameters that
// commonly carry a secret (api_key, key, token, access_token, password, ...; any case) replaced by
// REDACTED. A client that sends its key there must not find it in the server's logs.
std::string redact_query_secrets(std::string_view path_and_query);

}  // namespace wasinn
