// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The wasi-nn metrics: what the core counts per backend and graph for a guest's calls (over the
// fake backend, through the witx ABI as a guest makes them), the series registry's rules, and
// the Prometheus text rendering.
#include <unistd.h>

#include <fstream>
#include <thread>

#include "core/nn_metrics.h"
#include "core/prometheus_text.h"
#include "support/abi_fixture.h"

namespace wasinn::unit {
namespace {

size_t code(Errc e) { return static_cast<size_t>(e); }

uint64_t histogram_count(const GraphMetrics::Snapshot& s) {
  uint64_t n = 0;
  for (uint64_t b : s.compute_buckets) n += b;
  return n;
}

class MetricsTest : public AbiTest {
 protected:
  // The one series of (backend, graph); fails the test if there is none.
  GraphMetrics::Snapshot series(const std::string& backend, const std::string& graph) {
    for (auto& s : env_->metrics().snapshot()) {
      if (s.backend == backend && s.graph == graph) return s;
    }
    ADD_FAILURE() << "no series backend=" << backend << " graph=" << graph << " in\n"
                  << render_prometheus_text(env_->metrics().snapshot());
    return {};
  }
  // The label of a fake model loaded from a guest's bytes: "onnx:" and 12 hex digits.
  std::string bytes_label(const std::string& model) {
    const std::span<const uint8_t> b(reinterpret_cast<const uint8_t*>(model.data()), model.size());
    const auto digest = builders_digest(std::span(&b, 1));
    return graph_label({}, Encoding::onnx, &digest, {});
  }
};

TEST_F(MetricsTest, CountsAGuestsCallsPerGraph) {
  const std::string model = "fake:add1";
  const uint32_t graph = load_model(model);
  const uint32_t ctx = new_context(graph);
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(has_errno(set_f32(ctx, {1, 4}, {1, 2, 3, 4}), 0));
    ASSERT_TRUE(has_errno(nn::compute(call(), ctx), 0));
    ASSERT_TRUE(has_errno(get_output(ctx, 0, 16).status, 0));
  }
  EXPECT_TRUE(has_errno(get_output(ctx, 0, 8).status, 7)) << "too small a buffer: nothing copied, nothing counted";

  const auto s = series("fake", bytes_label(model));
  EXPECT_EQ(s.graph.size(), 5u + 12u) << s.graph;
  EXPECT_EQ(s.device, "cpu") << "a graph whose plugin names no device runs on the CPU";
  EXPECT_EQ(s.loads, 1u);
  EXPECT_EQ(s.computes, 3u);
  EXPECT_EQ(histogram_count(s), 3u);
  EXPECT_GT(s.compute_nanos, 0u);
  EXPECT_EQ(s.input_bytes, 3u * 16);
  EXPECT_EQ(s.output_bytes, 3u * 16);
  EXPECT_EQ(s.live_graphs, 1);
  EXPECT_EQ(s.live_contexts, 1);
  EXPECT_EQ(s.compute_errors, (std::array<uint64_t, kErrcCount>{})) << "no compute failed";

  ASSERT_TRUE(has_errno(nn::finalize_execution_context(call(), ctx), 0));
  EXPECT_EQ(series("fake", bytes_label(model)).live_contexts, 0);
  ASSERT_TRUE(has_errno(nn::unload(call(), graph), 0));
  const auto after = series("fake", bytes_label(model));
  EXPECT_EQ(after.live_graphs, 0);
  EXPECT_EQ(after.loads, 1u) << "counters outlive the graph";
}

TEST_F(MetricsTest, ErrorsAreCountedByCode) {
  const std::string failing = "fake:fail_compute";
  const uint32_t ctx = context_on(failing);
  ASSERT_TRUE(has_errno(set_f32(ctx, {1, 4}, {1, 2, 3, 4}), 0));
  EXPECT_TRUE(has_errno(nn::compute(call(), ctx), 5)) << "the backend fails: runtime_error";
  EXPECT_TRUE(has_errno(nn::compute(call(), ctx), 5));
  const auto s = series("fake", bytes_label(failing));
  EXPECT_EQ(s.computes, 2u) << "failed computes are computes";
  EXPECT_EQ(histogram_count(s), 2u);
  EXPECT_EQ(s.compute_errors[code(Errc::runtime_error)], 2u);
  EXPECT_EQ(s.compute_errors[code(Errc::invalid_argument)], 0u);

  const uint32_t unset = context_on("fake:add1");
  EXPECT_TRUE(has_errno(nn::compute(call(), unset), 1)) << "no input set: invalid_argument";
  EXPECT_EQ(series("fake", bytes_label("fake:add1")).compute_errors[code(Errc::invalid_argument)], 1u);

  // A failed load has no digest: its label is the encoding's.
  const uint32_t out = guest_.out_u32();
  EXPECT_TRUE(has_errno(nn::load(call(), guest_.builders({"fake:fail_load"}), 1, 1, 0, out), 5));
  EXPECT_TRUE(has_errno(nn::load(call(), guest_.builders({"not a model"}), 1, 1, 0, out), 1));
  const auto load = series("fake", "onnx:bytes");
  EXPECT_EQ(load.loads, 0u);
  EXPECT_EQ(load.device, "") << "a failed load ran nowhere";
  EXPECT_EQ(load.load_errors[code(Errc::runtime_error)], 1u);
  EXPECT_EQ(load.load_errors[code(Errc::invalid_argument)], 1u);

  // A name nobody registered: no backend to name.
  const std::string name = "nobody";
  EXPECT_TRUE(has_errno(nn::load_by_name(call(), guest_.put(name), static_cast<uint32_t>(name.size()), out), 8));
  EXPECT_EQ(series("none", "nobody").load_errors[code(Errc::not_found)], 1u);
}

TEST_F(MetricsTest, NamedModelsAreLabelledByTheirNameAndBackend) {
  const auto dir = std::filesystem::path(::testing::TempDir()) / ("wasinn_unit_metrics_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "ok", std::ios::binary) << "fake:add1";
  std::ofstream(dir / "broken", std::ios::binary) << "fake:fail_load";
  ASSERT_TRUE(env_->models().add(NamedModel{"digits", Encoding::onnx, Target::cpu, {dir / "ok"}, {}}).ok());
  ASSERT_TRUE(env_->models().add(NamedModel{"broken", Encoding::onnx, Target::cpu, {dir / "broken"}, {}}).ok());
  const uint32_t out = guest_.out_u32();
  for (int i = 0; i < 2; ++i) ASSERT_TRUE(has_errno(nn::load_by_name(call(), guest_.put("digits"), 6, out), 0));
  EXPECT_TRUE(has_errno(nn::load_by_name(call(), guest_.put("broken"), 6, out), 5));
  std::filesystem::remove_all(dir);
  const auto named = series("fake", "digits");
  EXPECT_EQ(named.loads, 2u);
  EXPECT_EQ(named.live_graphs, 1) << "loaded once, shared";
  EXPECT_EQ(series("fake", "broken").load_errors[code(Errc::runtime_error)], 1u)
      << "a failed named load still names its backend, from the registered encoding";
}

TEST_F(MetricsTest, TimedOutComputesCountAsTimeouts) {
  start(Limits{.max_compute_ms = 20});
  const uint32_t ctx = context_on("fake:block");
  ASSERT_TRUE(has_errno(set_f32(ctx, {1, 4}, {1, 2, 3, 4}), 0));
  EXPECT_TRUE(has_errno(nn::compute(call(), ctx), 5)) << "timeout is runtime_error to a witx guest";
  const auto s = series("fake", bytes_label("fake:block"));
  EXPECT_EQ(s.compute_errors[code(Errc::timeout)], 1u);
  EXPECT_GE(s.compute_nanos, 20'000'000u) << "the histogram saw the time it took";
}

TEST_F(MetricsTest, SharedBytesCountEveryLoadButOneGraph) {
  const std::string model = "fake:add1";
  load_model(model);
  NnSession other(env_);
  FakeGuest other_guest;
  nn::Call other_call{other, other_guest.view()};
  const uint32_t out = other_guest.out_u32();
  ASSERT_TRUE(has_errno(nn::load(other_call, other_guest.builders({model}), 1, 1, 0, out), 0));
  const auto s = series("fake", bytes_label(model));
  EXPECT_EQ(s.loads, 2u);
  EXPECT_EQ(s.live_graphs, 1) << "the second guest shares the first one's graph";
}

TEST_F(MetricsTest, ConcurrentComputesLoseNoCount) {
  constexpr int kThreads = 4, kEach = 500;
  const uint32_t graph = load_model("fake:add1");
  std::vector<uint32_t> contexts;
  for (int t = 0; t < kThreads; ++t) contexts.push_back(new_context(graph));
  for (uint32_t ctx : contexts) ASSERT_TRUE(has_errno(set_f32(ctx, {1, 4}, {1, 2, 3, 4}), 0));
  std::vector<std::thread> threads;
  for (uint32_t ctx : contexts) {
    threads.emplace_back([&, ctx] {
      for (int i = 0; i < kEach; ++i) (void)session_->compute(ctx);
    });
  }
  for (auto& t : threads) t.join();
  const auto s = series("fake", bytes_label("fake:add1"));
  EXPECT_EQ(s.computes, uint64_t{kThreads} * kEach);
  EXPECT_EQ(histogram_count(s), uint64_t{kThreads} * kEach);
  EXPECT_EQ(s.live_contexts, kThreads);
}

TEST(NnMetrics, OneSeriesPerLabelsAndACap) {
  NnMetrics m;
  EXPECT_EQ(m.series("a", "g"), m.series("a", "g"));
  EXPECT_NE(m.series("a", "g"), m.series("b", "g"));
  for (size_t i = m.snapshot().size(); i < NnMetrics::kMaxSeries; ++i) m.series("a", "g" + std::to_string(i));
  auto past = m.series("a", "one too many");
  EXPECT_EQ(past->graph(), "other");
  EXPECT_EQ(m.series("a", "yet another"), past);
  EXPECT_EQ(m.series("a", "g")->graph(), "g") << "series made before the cap stay";
}

TEST(NnMetrics, GraphLabels) {
  const std::array<uint8_t, 32> digest{0xab, 0xcd, 0xef, 0x01, 0x23, 0x45, 0x67};
  EXPECT_EQ(graph_label("digits", Encoding::onnx, &digest, {}), "digits");
  EXPECT_EQ(graph_label({}, Encoding::onnx, &digest, {}), "onnx:abcdef012345");
  EXPECT_EQ(graph_label({}, Encoding::ggml, nullptr, {}), "ggml:bytes");
  const std::filesystem::path files[] = {"/models/mobilenet.xml", "/models/mobilenet.bin"};
  EXPECT_EQ(graph_label({}, Encoding::openvino, nullptr, files), "mobilenet.xml");
}

TEST(NnMetrics, HistogramBucketsAreInclusiveUpperBounds) {
  GraphMetrics g("b", "g");
  using std::chrono::microseconds;
  g.count_compute({}, microseconds(100));         // exactly the first bound: in it
  g.count_compute({}, microseconds(101));         // the second
  g.count_compute({}, std::chrono::seconds(61));  // past the last: +Inf
  const auto s = g.snapshot();
  EXPECT_EQ(s.compute_buckets[0], 1u);
  EXPECT_EQ(s.compute_buckets[1], 1u);
  EXPECT_EQ(s.compute_buckets.back(), 1u);
  EXPECT_EQ(s.compute_nanos, 61'000'201'000u);
}

TEST(PrometheusText, EscapesLabelValues) {
  EXPECT_EQ(escape_label_value("plain"), "plain");
  EXPECT_EQ(escape_label_value("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
}

TEST(PrometheusText, RendersEveryFamilyInTheTextFormat) {
  GraphMetrics g("onnxruntime", "my \"model\"");
  g.count_load({});
  g.count_load(Error{Errc::too_large, "x"});
  g.count_compute({}, std::chrono::microseconds(300));
  g.count_compute(Error{Errc::timeout, "x"}, std::chrono::milliseconds(2));
  g.add_input_bytes(256);
  g.add_output_bytes(40);
  g.graph_opened();
  g.context_opened();
  g.context_opened();
  const std::vector<GraphMetrics::Snapshot> series{g.snapshot()};
  const std::string text = render_prometheus_text(series);
  const std::string l = R"({backend="onnxruntime",graph="my \"model\"")";
  const std::string expected_lines[] = {
      "# HELP wasinn_nn_loads_total ",
      "# TYPE wasinn_nn_loads_total counter\nwasinn_nn_loads_total" + l + "} 1\n",
      "# TYPE wasinn_nn_load_errors_total counter\nwasinn_nn_load_errors_total" + l + R"(,code="too_large"} 1)" + "\n",
      "# TYPE wasinn_nn_computes_total counter\nwasinn_nn_computes_total" + l + "} 2\n",
      "# TYPE wasinn_nn_compute_errors_total counter\nwasinn_nn_compute_errors_total" + l + R"(,code="timeout"} 1)" +
          "\n",
      "wasinn_nn_input_bytes_total" + l + "} 256\n",
      "wasinn_nn_output_bytes_total" + l + "} 40\n",
      "# TYPE wasinn_nn_live_graphs gauge\nwasinn_nn_live_graphs" + l + "} 1\n",
      "# TYPE wasinn_nn_live_contexts gauge\nwasinn_nn_live_contexts" + l + "} 2\n",
      "# TYPE wasinn_nn_compute_seconds histogram\n",
      "wasinn_nn_compute_seconds_bucket" + l + R"(,le="0.00025"} 0)" + "\n",
      "wasinn_nn_compute_seconds_bucket" + l + R"(,le="0.0005"} 1)" + "\n",
      "wasinn_nn_compute_seconds_bucket" + l + R"(,le="0.001"} 1)" + "\n",
      "wasinn_nn_compute_seconds_bucket" + l + R"(,le="0.0025"} 2)" + "\n",
      "wasinn_nn_compute_seconds_bucket" + l + R"(,le="60"} 2)" + "\n",
      "wasinn_nn_compute_seconds_bucket" + l + R"(,le="+Inf"} 2)" + "\n",
      "wasinn_nn_compute_seconds_sum" + l + "} 0.002300000\n",
      "wasinn_nn_compute_seconds_count" + l + "} 2\n",
  };
  for (const auto& line : expected_lines) EXPECT_CONTAINS(text, line);
  EXPECT_EQ(text.find("code=\"busy\""), std::string::npos) << "codes that never happened are left out";
  EXPECT_EQ(text.back(), '\n');
  // Every family's lines together, after its one TYPE line (the format requires it).
  EXPECT_EQ(text.find("wasinn_nn_loads_total{"), text.rfind("wasinn_nn_loads_total{"));
}

TEST(PrometheusText, FailedLoadsOnlyListTheLoadFamilies) {
  GraphMetrics failed("none", "nobody");
  failed.count_load(Error{Errc::not_found, "x"});
  const std::vector<GraphMetrics::Snapshot> series{failed.snapshot()};
  const std::string text = render_prometheus_text(series);
  EXPECT_CONTAINS(text, "wasinn_nn_loads_total{backend=\"none\",graph=\"nobody\"} 0\n");
  EXPECT_CONTAINS(text, "wasinn_nn_load_errors_total{backend=\"none\",graph=\"nobody\",code=\"not_found\"} 1\n");
  EXPECT_EQ(text.find("wasinn_nn_computes_total{"), std::string::npos) << text;
  EXPECT_EQ(text.find("wasinn_nn_compute_seconds_bucket{"), std::string::npos) << text;
  EXPECT_EQ(text.find("wasinn_nn_live_contexts{"), std::string::npos) << text;
}

TEST(PrometheusText, ComputesAreLabelledByDevice) {
  GraphMetrics cpu("llamacpp", "chat", "cpu"), gpu("llamacpp", "chat", "gpu: Vulkan0");
  cpu.graph_opened();
  gpu.graph_opened();
  cpu.count_compute({}, std::chrono::milliseconds(1));
  gpu.count_compute({}, std::chrono::milliseconds(1));
  gpu.count_compute({}, std::chrono::milliseconds(1));
  const std::vector<GraphMetrics::Snapshot> series{cpu.snapshot(), gpu.snapshot()};
  const std::string text = render_prometheus_text(series);
  EXPECT_CONTAINS(text, "wasinn_nn_computes_total{backend=\"llamacpp\",graph=\"chat\",device=\"cpu\"} 1\n");
  EXPECT_CONTAINS(text, "wasinn_nn_computes_total{backend=\"llamacpp\",graph=\"chat\",device=\"gpu: Vulkan0\"} 2\n");
  EXPECT_CONTAINS(text,
                  "wasinn_nn_compute_seconds_count{backend=\"llamacpp\",graph=\"chat\",device=\"gpu: Vulkan0\"} 2\n");
  NnMetrics m;
  EXPECT_NE(m.series("llamacpp", "chat", "cpu"), m.series("llamacpp", "chat", "gpu: Vulkan0"));
}

TEST(PrometheusText, TokenFamiliesCountTokensAndTimeThem) {
  GraphMetrics llm("llamacpp", "chat", "cpu"), other("onnxruntime", "digits", "cpu");
  llm.graph_opened();
  other.graph_opened();
  // A whole generation (compute): 5 prompt tokens, 4 generated, the first after 30 ms, the 3
  // others 12 ms apiece; then a streamed token (one compute_single) of 2 ms.
  llm.count_tokens({5, 4, true, 30'000'000, 3, 36'000'000});
  llm.count_tokens({0, 1, false, 0, 1, 2'000'000});
  const std::vector<GraphMetrics::Snapshot> series{llm.snapshot(), other.snapshot()};
  const std::string text = render_prometheus_text(series);
  const std::string l = R"({backend="llamacpp",graph="chat",device="cpu")";
  EXPECT_CONTAINS(text, "# TYPE wasinn_nn_prompt_tokens_total counter\nwasinn_nn_prompt_tokens_total" + l + "} 5\n");
  EXPECT_CONTAINS(text, "wasinn_nn_generated_tokens_total" + l + "} 5\n");
  EXPECT_CONTAINS(text, "# TYPE wasinn_nn_time_to_first_token_seconds histogram\n");
  EXPECT_CONTAINS(text, "wasinn_nn_time_to_first_token_seconds_bucket" + l + R"(,le="0.02"} 0)" + "\n");
  EXPECT_CONTAINS(text, "wasinn_nn_time_to_first_token_seconds_bucket" + l + R"(,le="0.04"} 1)" + "\n");
  EXPECT_CONTAINS(text, "wasinn_nn_time_to_first_token_seconds_count" + l + "} 1\n");
  EXPECT_CONTAINS(text, "wasinn_nn_time_to_first_token_seconds_sum" + l + "} 0.030000000\n");
  // Three tokens at their mean, 12 ms (le 0.025), and one of 2 ms (le 0.0025).
  EXPECT_CONTAINS(text, "wasinn_nn_time_per_output_token_seconds_bucket" + l + R"(,le="0.0025"} 1)" + "\n");
  EXPECT_CONTAINS(text, "wasinn_nn_time_per_output_token_seconds_bucket" + l + R"(,le="0.01"} 1)" + "\n");
  EXPECT_CONTAINS(text, "wasinn_nn_time_per_output_token_seconds_bucket" + l + R"(,le="0.025"} 4)" + "\n");
  EXPECT_CONTAINS(text, "wasinn_nn_time_per_output_token_seconds_count" + l + "} 4\n");
  EXPECT_CONTAINS(text, "wasinn_nn_time_per_output_token_seconds_sum" + l + "} 0.038000000\n");
  // A graph whose backend counts no tokens is in none of the token families.
  EXPECT_EQ(text.find("tokens_total{backend=\"onnxruntime\""), std::string::npos) << text;
  EXPECT_EQ(text.find("token_seconds_count{backend=\"onnxruntime\""), std::string::npos) << text;
  // Marked by its load (its plugin counts tokens), a graph lists zeros before its first generation.
  GraphMetrics fresh("llamacpp", "idle", "cpu");
  fresh.graph_opened();
  fresh.mark_counts_tokens();
  const std::vector<GraphMetrics::Snapshot> idle{fresh.snapshot()};
  EXPECT_CONTAINS(render_prometheus_text(idle),
                  "wasinn_nn_generated_tokens_total{backend=\"llamacpp\",graph=\"idle\",device=\"cpu\"} 0\n");
}

TEST(PrometheusText, NoSeriesStillDeclaresTheFamilies) {
  const std::string text = render_prometheus_text({});
  EXPECT_CONTAINS(text, "# TYPE wasinn_nn_computes_total counter\n");
  EXPECT_EQ(text.find('{'), std::string::npos);
}

}  // namespace
}  // namespace wasinn::unit
