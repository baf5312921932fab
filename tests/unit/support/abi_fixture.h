// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AbiTest: one NnEnvironment over the fake backends, one guest NnSession and one FakeGuest
// memory, plus short ways to load, create contexts and feed inputs through the witx ABI.
// TearDown checks that destroying the session and environment freed every plugin object.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "abi/ephemeral_nn.h"
#include "core/nn_environment.h"
#include "root/wired_environment.h"
#include "core/nn_session.h"
#include "support/fake_guest.h"
#include "support/fake_plugin.h"

namespace wasinn::unit {

namespace nn = ::wasinn::ephemeral_nn;

// gmock is not installed, so no substring matcher.
#define EXPECT_CONTAINS(haystack, needle) \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos) << "text: " << (haystack)

// The witx errno of `s` is `expected`, and (when given) its detail contains `part`.
inline ::testing::AssertionResult has_errno(const Status& s, int32_t expected, std::string_view part = {}) {
  const int32_t got = nn::errno_of(s);
  const std::string detail = s.ok() ? std::string("(success)") : s.error().detail;
  if (got != expected) {
    return ::testing::AssertionFailure() << "errno " << got << ", expected " << expected << "; detail: " << detail;
  }
  if (!part.empty() && detail.find(part) == std::string::npos) {
    return ::testing::AssertionFailure() << "errno " << got << " as expected, but the detail \"" << detail
                                         << "\" lacks \"" << part << "\"";
  }
  return ::testing::AssertionSuccess();
}

template <class T>
::testing::AssertionResult has_errno(const Result<T>& r, int32_t expected, std::string_view part = {}) {
  return has_errno(r.ok() ? Status{} : Status{r.error()}, expected, part);
}

inline std::shared_ptr<NnEnvironment> make_env(Limits limits = {}, std::filesystem::path dir = WASINN_UNIT_FAKE_DIR,
                                               std::map<std::string, std::string> configs = {}) {
  EnvironmentOptions options;
  options.backend_dirs = {std::move(dir)};
  options.backend_configs = std::move(configs);
  options.limits = limits;
  return wire_environment(std::move(options)).env;
}

// Every plugin object is gone: the leak check after a session and its environment die.
inline void expect_no_live_plugin_objects() {
  for (const FakePlugin* p : {&FakePlugin::main(), &FakePlugin::nostream()}) {
    const fake_stats s = p->stats();
    EXPECT_EQ(s.live_graphs, 0);
    EXPECT_EQ(s.live_contexts, 0);
    EXPECT_EQ(s.live_backends, 0);
  }
}

class AbiTest : public ::testing::Test {
 protected:
  void SetUp() override { start(Limits{}); }
  void TearDown() override {
    session_.reset();
    env_.reset();
    expect_no_live_plugin_objects();
  }

  void start(Limits limits) {
    session_.reset();
    env_ = make_env(limits);
    session_ = std::make_unique<NnSession>(env_);
  }
  nn::Call call() { return {*session_, guest_.view()}; }
  static fake_stats stats() { return FakePlugin::main().stats(); }

  // Loads a fake model through ABI load(); the graph handle, or kSentinel after a failure.
  uint32_t load_model(const std::string& model, uint32_t encoding = 1) {
    const uint32_t out = guest_.out_u32();
    EXPECT_TRUE(has_errno(nn::load(call(), guest_.builders({model}), 1, encoding, 0, out), 0));
    return guest_.u32_at(out);
  }
  uint32_t new_context(uint32_t graph) {
    const uint32_t out = guest_.out_u32();
    EXPECT_TRUE(has_errno(nn::init_execution_context(call(), graph, out), 0));
    return guest_.u32_at(out);
  }
  // A context on a freshly loaded model.
  uint32_t context_on(const std::string& model, uint32_t encoding = 1) {
    return new_context(load_model(model, encoding));
  }
  Status set_f32(uint32_t ctx, const std::vector<uint32_t>& dims, const std::vector<float>& values) {
    return nn::set_input(call(), ctx, 0, guest_.f32_tensor(dims, values));
  }

  // get_output into a fresh buffer of `max` bytes; the bytes written and the buffer's address.
  struct Output {
    Status status;
    uint32_t written;
    uint32_t buffer;
  };
  Output get_output(uint32_t ctx, uint32_t index, uint32_t max) {
    const uint32_t buf = guest_.buffer(max);
    const uint32_t written = guest_.out_u32();
    Status st = nn::get_output(call(), ctx, index, buf, max, written);
    return {std::move(st), guest_.u32_at(written), buf};
  }
  Output get_output_single(uint32_t ctx, uint32_t index, uint32_t max) {
    const uint32_t buf = guest_.buffer(max);
    const uint32_t written = guest_.out_u32();
    Status st = nn::get_output_single(call(), ctx, index, buf, max, written);
    return {std::move(st), guest_.u32_at(written), buf};
  }

  std::shared_ptr<NnEnvironment> env_;
  std::unique_ptr<NnSession> session_;
  FakeGuest guest_;
};

}  // namespace wasinn::unit
