// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "valid_request.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

#include "case_run.h"

namespace wasinn::bad_input {

namespace {

std::string detail(const Status& s) { return s.ok() ? "" : s.error().detail; }

#define REQUIRE_CALL_OK(what, expr)                                                                                    \
  do {                                                                                                                 \
    const Status call_status_ = (expr);                                                                                \
    if (!call_status_.ok()) {                                                                                          \
      ADD_FAILURE() << "valid request after the case: " << what << " failed with errno " << nn::errno_of(call_status_) \
                    << ": " << detail(call_status_);                                                                   \
      return;                                                                                                          \
    }                                                                                                                  \
  } while (0)

// The handles a valid request made, released even when it stops early.
struct Handles {
  NnSession& session;
  uint32_t graph = kSentinel;
  uint32_t context = kSentinel;
  ~Handles() {
    if (context != kSentinel) (void)session.finalize_execution_context(context);
    if (graph != kSentinel) (void)session.unload(graph);
  }
};

void check_logits(HostUnderTest& host, Backend backend, const std::vector<float>& logits, const Digit& d) {
  ASSERT_EQ(logits.size(), 10u);
  const auto best = std::max_element(logits.begin(), logits.end()) - logits.begin();
  EXPECT_EQ(best, d.label) << "valid request after the case: sample " << d.index << " classified as " << best;
  const std::string recorded = HostUnderTest::recorded_logits(backend);
  if (recorded.empty()) return;
  const auto& want = host.logits(recorded);
  ASSERT_GE(want.size(), (d.index + 1) * 10u);
  for (size_t i = 0; i < 10; ++i) {
    EXPECT_NEAR(logits[i], want[d.index * 10 + i], 1e-4) << "logit " << i << " of sample " << d.index;
  }
}

void serve_ephemeral(HostUnderTest& host, Backend backend, uint32_t sample) {
  CaseRun run(host, sample);
  Handles h{host.session()};
  const auto files = HostUnderTest::digits_model(backend);
  const uint32_t graph_out = run.guest.out_u32();
  REQUIRE_CALL_OK("load", nn::load(run.call(), run.fixture_builders(files), static_cast<uint32_t>(files.size()),
                                   witx_encoding(backend), 0, graph_out));
  h.graph = run.guest.u32_at(graph_out);
  const uint32_t ctx_out = run.guest.out_u32();
  REQUIRE_CALL_OK("init_execution_context", nn::init_execution_context(run.call(), h.graph, ctx_out));
  h.context = run.guest.u32_at(ctx_out);
  REQUIRE_CALL_OK("set_input", nn::set_input(run.call(), h.context, 0, run.digit_tensor()));
  REQUIRE_CALL_OK("compute", nn::compute(run.call(), h.context));
  const uint32_t buf = run.guest.buffer(64);
  const uint32_t written = run.guest.out_u32();
  REQUIRE_CALL_OK("get_output", nn::get_output(run.call(), h.context, 0, buf, 64, written));
  ASSERT_EQ(run.guest.u32_at(written), 40u) << "bytes_written";
  check_logits(host, backend, run.guest.f32s_at(buf, 10), host.digit(sample));
}

void serve_legacy(HostUnderTest& host, Backend backend, uint32_t sample) {
  CaseRun run(host, sample);
  Handles h{host.session()};
  const auto files = HostUnderTest::digits_model(backend);
  const uint32_t header = run.legacy_header(run.fixture_builders(files), static_cast<uint32_t>(files.size()));
  const uint32_t graph_out = run.guest.out_u32();
  REQUIRE_CALL_OK("load", legacy::load(run.call(), header, witx_encoding(backend), 0, graph_out));
  h.graph = run.guest.u32_at(graph_out);
  const uint32_t ctx_out = run.guest.out_u32();
  REQUIRE_CALL_OK("init_execution_context", legacy::init_execution_context(run.call(), h.graph, ctx_out));
  h.context = run.guest.u32_at(ctx_out);
  REQUIRE_CALL_OK("set_input", legacy::set_input(run.call(), h.context, 0, run.legacy_digit_tensor()));
  REQUIRE_CALL_OK("compute", legacy::compute(run.call(), h.context));
  const uint32_t buf = run.guest.buffer(64);
  const uint32_t size = run.guest.put_u32s({16});  // capacity in f32 elements
  REQUIRE_CALL_OK("get_output", legacy::get_output(run.call(), h.context, 0, buf, size));
  ASSERT_EQ(run.guest.u32_at(size), 10u) << "legacy get_output size (f32 elements)";
  check_logits(host, backend, run.guest.f32s_at(buf, 10), host.digit(sample));
}

}  // namespace

void expect_serves_digit(HostUnderTest& host, Backend backend, Abi abi, uint32_t sample) {
  backend = HostUnderTest::digits_backend(backend);
  if (abi == Abi::ephemeral) {
    serve_ephemeral(host, backend, sample);
  } else {
    serve_legacy(host, backend, sample);
  }
}

void expect_serves_llama(HostUnderTest& host) {
  static std::string first_text;  // greedy decoding: every healthy run gives the same text
  CaseRun run(host);
  Handles h{host.session()};
  const std::string name = HostUnderTest::kTinyLlama;
  const std::string config = R"({"temp": 0, "ctx-size": 64, "n-predict": 6, "threads": 1})";
  const uint32_t graph_out = run.guest.out_u32();
  REQUIRE_CALL_OK("load_by_name_with_config",
                  nn::load_by_name_with_config(run.call(), run.guest.put(name), static_cast<uint32_t>(name.size()),
                                               run.guest.put(config), static_cast<uint32_t>(config.size()), graph_out));
  h.graph = run.guest.u32_at(graph_out);
  const uint32_t ctx_out = run.guest.out_u32();
  REQUIRE_CALL_OK("init_execution_context", nn::init_execution_context(run.call(), h.graph, ctx_out));
  h.context = run.guest.u32_at(ctx_out);
  const std::string prompt = "Once upon a time";
  const uint32_t tensor = run.guest.tensor({static_cast<uint32_t>(prompt.size())}, 3,
                                           {reinterpret_cast<const uint8_t*>(prompt.data()), prompt.size()});
  REQUIRE_CALL_OK("set_input (prompt)", nn::set_input(run.call(), h.context, 0, tensor));
  REQUIRE_CALL_OK("compute", nn::compute(run.call(), h.context));
  const uint32_t buf = run.guest.buffer(4096);
  const uint32_t written = run.guest.out_u32();
  REQUIRE_CALL_OK("get_output", nn::get_output(run.call(), h.context, 0, buf, 4096, written));
  const std::string text = run.guest.text_at(buf, run.guest.u32_at(written));
  ASSERT_FALSE(text.empty()) << "the tiny llama model generated no text";
  if (first_text.empty()) first_text = text;
  EXPECT_EQ(text, first_text) << "greedy generation changed after the case";
}

const PiperReference& piper_welcome(HostUnderTest& host) {
  static const PiperReference ref = [&host] {
    const auto& bytes = host.fixture("piper/reference.json");
    const auto welcome = nlohmann::json::parse(bytes.begin(), bytes.end()).at("cases").at("welcome");
    return PiperReference{welcome.at("text").get<std::string>(),
                          host.fixture("piper/" + welcome.at("wav").get<std::string>())};
  }();
  return ref;
}

void expect_serves_piper(HostUnderTest& host) {
  const PiperReference& want = piper_welcome(host);
  CaseRun run(host);
  Handles h{host.session()};
  const std::string name = HostUnderTest::kTinyPiper;
  const uint32_t graph_out = run.guest.out_u32();
  REQUIRE_CALL_OK("load_by_name (piper voice)",
                  nn::load_by_name(run.call(), run.guest.put(name), static_cast<uint32_t>(name.size()), graph_out));
  h.graph = run.guest.u32_at(graph_out);
  const uint32_t ctx_out = run.guest.out_u32();
  REQUIRE_CALL_OK("init_execution_context", nn::init_execution_context(run.call(), h.graph, ctx_out));
  h.context = run.guest.u32_at(ctx_out);
  const uint32_t tensor = run.guest.tensor({static_cast<uint32_t>(want.text.size())}, 3,
                                           {reinterpret_cast<const uint8_t*>(want.text.data()), want.text.size()});
  REQUIRE_CALL_OK("set_input (text)", nn::set_input(run.call(), h.context, 0, tensor));
  REQUIRE_CALL_OK("compute", nn::compute(run.call(), h.context));
  const auto capacity = static_cast<uint32_t>(want.wav.size() + 64);
  const uint32_t buf = run.guest.buffer(capacity);
  const uint32_t written = run.guest.out_u32();
  REQUIRE_CALL_OK("get_output", nn::get_output(run.call(), h.context, 0, buf, capacity, written));
  ASSERT_EQ(run.guest.u32_at(written), want.wav.size()) << "valid request after the case: WAV size";
  EXPECT_TRUE(run.guest.bytes_at(buf, capacity - 64) == want.wav)
      << "valid request after the case: the WAV differs from piper-tts's (piper/ref-welcome.wav)";
}

}  // namespace wasinn::bad_input
