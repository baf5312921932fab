// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// --log-level trace: one line per crossing of a request's path, each carrying the request's id,
// so that `grep ID` shows one request's whole way: the server's steps (serve/http), each wasi-nn
// call the guest makes (abi/nn_call_log.h) and each plugin call under it (core/plugin_call.h).
// The id travels with the thread: the wasi-nn call sets it for the plugin calls it makes. Nothing
// is formatted when the log is not at trace.
#pragma once

#include <string>
#include <string_view>

namespace wasinn {

// Whether trace lines are logged now.
bool tracing();

// The request the thread's current wasi-nn call is for, while it lives ("" for none): the id
// trace_line writes.
class RequestScope {
 public:
  explicit RequestScope(const std::string& request_id);
  ~RequestScope();
  RequestScope(const RequestScope&) = delete;
  RequestScope& operator=(const RequestScope&) = delete;

 private:
  const std::string* outer_;
};

// "LAYER [ID] TEXT" at trace, ID the current request's ("-" for none); json logs get the id and
// the layer as fields.
void trace_line(std::string_view layer, std::string_view text);

}  // namespace wasinn
