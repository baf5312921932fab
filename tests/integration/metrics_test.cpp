// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// `wasinn run --metrics-addr`: the real guest metrics_guest.wasm makes a known set of calls on
// the digits model through ONNX Runtime and then waits; the test scrapes /metrics with curl
// while it waits and checks every count, and the guest's answers against native ONNX Runtime.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <sstream>

#include "native_ort.h"
#include "test_env.h"

namespace wasinn_it {
namespace {

constexpr const char* kCurl = "/usr/bin/curl";  // scripts/deps/core.apt

// `curl` the URL: headers and body, or the failure.
ChildResult curl(const std::string& url) {
  return run_child({kCurl, "--silent", "--show-error", "--include", "--max-time", "20", url});
}

// Every sample line of a Prometheus text body: "name{labels}" -> value.
std::map<std::string, double> samples(const std::string& body) {
  std::map<std::string, double> out;
  std::istringstream lines(body);
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line[0] == '#') continue;
    const auto space = line.rfind(' ');
    out[line.substr(0, space)] = std::stod(line.substr(space + 1));
  }
  return out;
}

// The value of `name{labels}`, failing the test when the sample is missing.
double sample(const std::map<std::string, double>& all, const std::string& key) {
  const auto it = all.find(key);
  if (it == all.end()) {
    ADD_FAILURE() << "no sample " << key;
    return -1;
  }
  return it->second;
}

std::vector<std::string> metrics_run(const std::vector<std::string>& guest_and_args) {
  std::vector<std::string> argv{wasinn_binary(), "run",   "--metrics-addr",
                                "127.0.0.1:0",   "--dir", fixture("digits").string() + "::/d"};
  const auto ort = single_thread_ort();
  argv.insert(argv.end(), ort.begin(), ort.end());
  argv.insert(argv.end(), guest_and_args.begin(), guest_and_args.end());
  return argv;
}

TEST(Metrics, ScrapedWhileTheGuestRuns) {
  constexpr int kComputes = 7;
  constexpr double kInputBytes = 64 * 4, kOutputBytes = 10 * 4;
  RunningChild child(
      metrics_run({guest("metrics_guest"), "/d/model.onnx", "/d/test_x.f32", std::to_string(kComputes)}),
      ChildOptions{.stdin_text = {}, .unset_env = {"WASINN_BACKEND_PATH"}, .timeout_seconds = 60, .cwd = {}});
  std::smatch url;
  const std::regex url_line(R"(wasinn: metrics at (http://127\.0\.0\.1:([0-9]+)/metrics)\n)");
  ASSERT_TRUE(child.wait_until([&](const std::string& out, const std::string& err) {
    return std::regex_search(err, url, url_line) && out.find("ready\n") != std::string::npos;
  })) << child.finish().describe();
  const std::string endpoint = url[1];
  EXPECT_NE(url[2], "0") << "the port chosen is printed, not the 0 asked for";

  const ChildResult scrape = curl(endpoint);
  ASSERT_EQ(scrape.exit_code, 0) << scrape.describe();
  EXPECT_NE(scrape.out.find("HTTP/1.1 200 OK"), std::string::npos) << scrape.out;
  EXPECT_NE(scrape.out.find("Content-Type: text/plain; version=0.0.4; charset=utf-8"), std::string::npos) << scrape.out;
  const std::string body = scrape.out.substr(scrape.out.find("\r\n\r\n") + 4);
  EXPECT_NE(body.find("# TYPE wasinn_nn_compute_seconds histogram\n"), std::string::npos) << body;

  // The guest's bytes are labelled by their digest: find it from the one loads line.
  std::smatch label;
  ASSERT_TRUE(std::regex_search(
      body, label,
      std::regex(R"re(wasinn_nn_loads_total\{backend="onnxruntime",graph="(onnx:[0-9a-f]{12})",device="cpu"\})re")))
      << body;
  const std::string graph = R"(backend="onnxruntime",graph=")" + label[1].str() + R"(",device="cpu")";
  const auto all = samples(body);
  EXPECT_EQ(sample(all, "wasinn_nn_loads_total{" + graph + "}"), 1);
  EXPECT_EQ(sample(all, "wasinn_nn_computes_total{" + graph + "}"), kComputes + 1) << "the N good ones and the bad one";
  EXPECT_EQ(sample(all, "wasinn_nn_compute_errors_total{" + graph + ",code=\"invalid_argument\"}"), 1);
  EXPECT_EQ(sample(all, "wasinn_nn_compute_seconds_count{" + graph + "}"), kComputes + 1);
  EXPECT_EQ(sample(all, "wasinn_nn_compute_seconds_bucket{" + graph + ",le=\"+Inf\"}"), kComputes + 1);
  EXPECT_GT(sample(all, "wasinn_nn_compute_seconds_sum{" + graph + "}"), 0);
  EXPECT_EQ(sample(all, "wasinn_nn_input_bytes_total{" + graph + "}"), kComputes * kInputBytes);
  EXPECT_EQ(sample(all, "wasinn_nn_output_bytes_total{" + graph + "}"), kComputes * kOutputBytes);
  EXPECT_EQ(sample(all, "wasinn_nn_live_graphs{" + graph + "}"), 1);
  EXPECT_EQ(sample(all, "wasinn_nn_live_contexts{" + graph + "}"), 2);
  EXPECT_EQ(sample(all, R"(wasinn_nn_load_errors_total{backend="none",graph="no_such_model",code="not_found"})"), 1);

  // Only GET and HEAD.
  const ChildResult post = run_child({kCurl, "--silent", "--include", "--max-time", "20", "--data", "x", endpoint});
  EXPECT_NE(post.out.find("HTTP/1.1 405"), std::string::npos) << post.describe();

  const ChildResult done = child.finish("go\n");
  ASSERT_EQ(done.exit_code, 0) << done.describe();
  // The guest's answers are native ONNX Runtime's.
  NativeOrtModel model(read_bytes(fixture("digits/model.onnx")), 1);
  const auto x = read_array<float>(fixture("digits/test_x.f32"));
  std::string expected;
  for (int row = 0; row < kComputes; ++row) {
    const auto y = model.run(std::vector<float>(x.begin() + row * 64, x.begin() + (row + 1) * 64), {1, 64});
    expected +=
        "row " + std::to_string(row) + ": " + std::to_string(std::max_element(y.begin(), y.end()) - y.begin()) + "\n";
  }
  EXPECT_EQ(done.out, expected + "ready\n");
  EXPECT_NE(curl(endpoint).exit_code, 0) << "the endpoint stops with the run";
}

TEST(Metrics, BadAddressesStopBeforeTheGuestRuns) {
  for (const std::string addr :
       {"9464", "127.0.0.1", "example.com:80", "[::1]:9464", "127.0.0.1:65536", "127.0.0.1:x"}) {
    const ChildResult r = run_wasinn({"run", "--metrics-addr", addr, guest("echo_args"), "ran"});
    EXPECT_EQ(r.exit_code, 2) << addr << ": " << r.describe();
    EXPECT_NE(r.err.find("--metrics-addr '" + addr + "'"), std::string::npos) << r.describe();
    EXPECT_EQ(r.out.find("ran"), std::string::npos) << "the guest never started";
  }
}

TEST(Metrics, ATakenPortIsAnErrorBeforeTheGuestRuns) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  ASSERT_EQ(listen(fd, 1), 0);
  ASSERT_EQ(getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len), 0);
  const std::string addr = "127.0.0.1:" + std::to_string(ntohs(a.sin_port));
  const ChildResult r = run_wasinn({"run", "--metrics-addr", addr, guest("echo_args"), "ran"});
  close(fd);
  EXPECT_EQ(r.exit_code, 1) << r.describe();
  EXPECT_NE(r.err.find("--metrics-addr " + addr + ": cannot listen there"), std::string::npos) << r.describe();
  EXPECT_EQ(r.out.find("ran"), std::string::npos) << "the guest never started";
}

}  // namespace
}  // namespace wasinn_it
