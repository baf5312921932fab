// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What the remote backend's server tests share: the state file a ctest fixture wrote
// (servers/serve.py), the skip when a server is not installed, tensors to and from files, and
// the URL of a model on a transport.
#pragma once

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "guest_runner.h"
#include "support/stream_bytes.h"

namespace wasinn_remote_test {

struct Server {
  std::string kind, skip;
  int http = 0, grpc = 0;
};

// The server a fixture started, from the state file named by env var `var`.
inline Server server_from_env(const char* var) {
  Server s;
  const char* path = std::getenv(var);
  if (!path) {
    s.skip = std::string(var) + " is not set: run the test through ctest, whose fixture starts the server";
    return s;
  }
  std::ifstream f(path);
  nlohmann::json j = nlohmann::json::parse(f, nullptr, false);
  if (j.is_discarded()) {
    s.skip = std::string("no server state in ") + path + " (did the fixture fail?)";
    return s;
  }
  if (j.contains("skip")) {
    s.skip = j["skip"].get<std::string>();
    return s;
  }
  s.kind = j["kind"];
  s.http = j["http"];
  s.grpc = j["grpc"];
  return s;
}

// How a test reaches a model: a scheme and the options that go with it.
struct Transport {
  std::string name;  // "rest_json", "rest_binary", "grpc"
  std::string url(const Server& s, const std::string& model) const {
    return (name == "grpc" ? "grpc://127.0.0.1:" + std::to_string(s.grpc)
                           : "http://127.0.0.1:" + std::to_string(s.http)) +
           "/models/" + model;
  }
  // --nn-remote NAME=URL, plus --nn-remote-json for rest_json.
  std::vector<std::string> host_args(const Server& s, const std::string& name, const std::string& model) const {
    std::vector<std::string> a = {"--nn-remote", name + "=" + url(s, model)};
    if (this->name == "rest_json") a.push_back("--nn-remote-json");
    return a;
  }
};

template <typename T>
void write_file(const std::string& path, const std::vector<T>& v) {
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(v.data()), static_cast<std::streamsize>(v.size() * sizeof(T)));
}

template <typename T>
std::vector<T> read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  const std::vector<uint8_t> bytes = wasinn_test::stream_bytes(f);
  std::vector<T> v(bytes.size() / sizeof(T));
  if (!v.empty()) std::memcpy(v.data(), bytes.data(), v.size() * sizeof(T));
  return v;
}

}  // namespace wasinn_remote_test
