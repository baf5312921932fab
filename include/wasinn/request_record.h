// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// One request a server answered, for an access log: what wasinn serve's HTTP front
// (ServeOptions::on_request, wasinn/host.h) and the OIP server both report. A plain value; the
// views are valid during the call only.
#pragma once

#include <cstdint>
#include <string_view>

namespace wasinn {

struct RequestRecord {
  std::string_view method;
  std::string_view path;  // with the query
  int status = 0;
  uint64_t bytes_in = 0;        // the request's body
  uint64_t bytes_out = 0;       // the answer's body, as sent
  uint64_t micros = 0;          // from arrival to the answer's last byte
  std::string_view note;        // why the host answered for the guest (a trap, a timeout, a full queue), or empty
  std::string_view client;      // the client's HOST:PORT, or empty
  std::string_view request_id;  // the client's X-Request-Id when usable, else the server's; echoed in the answer
  std::string_view user_agent;  // or empty
  // "completed", or how the answer was cut, whatever status went first: "cut:timeout",
  // "cut:client-left", "cut:shutdown", "cut:error" (the answer's body failed midway).
  std::string_view outcome = "completed";
};

}  // namespace wasinn
