// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "backend.h"

#include <curl/curl.h>
#include <grpcpp/grpcpp.h>

#include "graph.h"

namespace wasinn::remote {

const char* RemoteBackend::framework_version() noexcept {
  static const std::string v =
      std::string("libcurl ") + curl_version_info(CURLVERSION_NOW)->version + ", grpc++ " + grpc::Version();
  return v.c_str();
}

Error RemoteBackend::create(std::string_view config, std::unique_ptr<RemoteBackend>& out) {
  auto b = std::make_unique<RemoteBackend>();
  if (Error e = parse_remote_options(config, "remote backend config", b->defaults_)) return e;
  if (b->defaults_.url) return sdk::invalid("remote backend config: \"url\" belongs to a model (--nn-remote)");
  b->description_ = "Open Inference Protocol v2 over REST (http, https) and gRPC (grpc, grpcs)";
  out = std::move(b);
  return {};
}

Error RemoteBackend::model_target(std::string_view spec, ModelTarget& out) const {
  RemoteOptions own;
  if (Error e = parse_remote_options(spec, "remote model spec", own)) return e;
  return resolve_target(defaults_.merged_with(own), out);
}

Error RemoteBackend::load(const sdk::LoadRequest& request, std::unique_ptr<RemoteGraph>& out) {
  return RemoteGraph::load(*this, request, out);
}

}  // namespace wasinn::remote
