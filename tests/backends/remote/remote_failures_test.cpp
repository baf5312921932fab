// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Failures no well-behaved server produces, from servers/fake_server.py (a ctest fixture;
// WASINN_REMOTE_FAKE_STATE), and a server killed mid-run and started again (an MLServer this
// test starts itself, so the other tests' servers stay up): each gets its errno, never a hang
// or a crash, and the same guest computes again once the server is back.
#include <gtest/gtest.h>

#include <sys/socket.h>
#include <netinet/in.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <future>
#include <thread>

#include "remote_test_support.h"

namespace {

using namespace wasinn_remote_test;
using wasinn_test::run_guest;
using wasinn_test::scratch_dir;

std::string fake_url(const Server& s, const std::string& model) {
  return "m=http://127.0.0.1:" + std::to_string(s.http) + "/models/" + model;
}

class FakeServer : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = server_from_env("WASINN_REMOTE_FAKE_STATE");
    if (!server_.skip.empty()) GTEST_SKIP() << server_.skip;
    dir_ = scratch_dir(std::string("fake_") + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    write_file(dir_ + "/a", std::vector<float>{1, 2, 3, 4});
  }
  wasinn_test::GuestRun compute(const std::string& model, std::vector<std::string> extra = {}) {
    std::vector<std::string> a = {"--nn-remote", fake_url(server_, model), "--dir", dir_ + "::/w"};
    a.insert(a.end(), extra.begin(), extra.end());
    return run_guest(a, "run_model", {"--name", "m", "--input", "0:f32:4:/w/a", "--output", "0:/w/o"});
  }
  Server server_;
  std::string dir_;
};

TEST_F(FakeServer, OutputShorterThanItsShapeIsRuntimeError) {
  auto run = compute("short");
  EXPECT_EQ(run.exit_code, 5) << run.output;
  EXPECT_NE(run.output.find("has 3 elements, its shape needs 4"), std::string::npos) << run.output;
}

TEST_F(FakeServer, NonJsonResponseIsRuntimeError) {
  auto run = compute("garbage");
  EXPECT_EQ(run.exit_code, 5) << run.output;
  EXPECT_NE(run.output.find("malformed"), std::string::npos) << run.output;
}

TEST_F(FakeServer, OversizedResponseIsTooLarge) {
  auto run = compute("huge", {"--nn-remote-max-message-bytes", "65536"});
  EXPECT_EQ(run.exit_code, 7) << run.output;  // witx too_large
  EXPECT_NE(run.output.find("exceeds max_message_bytes"), std::string::npos) << run.output;
}

TEST_F(FakeServer, ConnectionResetMidRequestIsRuntimeError) {
  auto run = compute("reset");
  EXPECT_EQ(run.exit_code, 5) << run.output;
  EXPECT_NE(run.output.find("errno 5 in compute"), std::string::npos) << run.output;
}

TEST_F(FakeServer, Http500CarriesTheServersErrorText) {
  auto run = compute("error500");
  EXPECT_EQ(run.exit_code, 5) << run.output;
  EXPECT_NE(run.output.find("HTTP 500: the fake model failed on purpose"), std::string::npos) << run.output;
}

TEST_F(FakeServer, HeaderValuesAreNeverShown) {
  auto run = compute("error500", {"--nn-remote-header", "Authorization: Bearer s3cr3t-token", "--log-level", "trace"});
  EXPECT_EQ(run.exit_code, 5) << run.output;
  EXPECT_EQ(run.output.find("s3cr3t-token"), std::string::npos) << run.output;
}

// The same limit reached three other ways than --nn-remote-max-message-bytes: a preload whose
// spec is JSON, the backend config's default, and a config file's nn-remote keys.
TEST_F(FakeServer, SpecBackendConfigAndConfigFileCarryTheOptions) {
  const std::string url = "http://127.0.0.1:" + std::to_string(server_.http) + "/models/huge";
  const std::vector<std::string> guest = {"--name", "m", "--input", "0:f32:4:/w/a", "--output", "0:/w/o"};
  auto preload = run_guest(
      {"--nn-preload", "m:remote:cpu:{\"url\": \"" + url + "\", \"max_message_bytes\": 65536}", "--dir", dir_ + "::/w"},
      "run_model", guest);
  EXPECT_EQ(preload.exit_code, 7) << preload.output;
  auto backend_config = run_guest(
      {"--nn-remote", "m=" + url, "--backend-config", "remote={\"max_message_bytes\": 65536}", "--dir", dir_ + "::/w"},
      "run_model", guest);
  EXPECT_EQ(backend_config.exit_code, 7) << backend_config.output;
  const std::string toml = dir_ + "/config.toml";
  std::ofstream(toml) << "nn-remote = [\"m=" << url << "\"]\nnn-remote-max-message-bytes = 65536\n";
  auto file = run_guest({"--config", toml, "--dir", dir_ + "::/w"}, "run_model", guest);
  EXPECT_EQ(file.exit_code, 7) << file.output;
  // Without the limit the same model answers (its 1 MiB padding is under the 64 MiB default).
  auto plain = run_guest({"--nn-remote", "m=" + url, "--dir", dir_ + "::/w"}, "run_model", guest);
  EXPECT_EQ(plain.exit_code, 0) << plain.output;
}

TEST(RemoteOptionsCli, MistakesAreUsageErrors) {
  for (const std::vector<std::string>& bad : {std::vector<std::string>{"--nn-remote", "noequals"},
                                              {"--nn-remote", "m=ftp://h/models/x"},
                                              {"--nn-remote", "m=http://h/models/x", "--nn-remote-header", "novalue"},
                                              {"--nn-remote", "m=http://h/models/x", "--nn-remote-cert", "c.pem"},
                                              {"--backend-config", "remote={\"retries\": 99}"}}) {
    auto run = run_guest(bad, "run_model", {"--name", "m"});
    EXPECT_NE(run.exit_code, 0) << bad[1] << ": " << run.output;
  }
}

TEST_F(FakeServer, HeadersReachTheServer) {
  const std::string url = "m=http://127.0.0.1:" + std::to_string(server_.http) + "/models/auth";
  const std::vector<std::string> guest = {"--name", "m", "--input", "0:f32:4:/w/a", "--output", "0:/w/o"};
  auto without = run_guest({"--nn-remote", url, "--dir", dir_ + "::/w"}, "run_model", guest);
  EXPECT_NE(without.exit_code, 0) << without.output;
  EXPECT_NE(without.output.find("HTTP 401: no valid Authorization header"), std::string::npos) << without.output;
  auto with =
      run_guest({"--nn-remote", url, "--nn-remote-header", "Authorization: Bearer t0k3n", "--dir", dir_ + "::/w"},
                "run_model", guest);
  ASSERT_EQ(with.exit_code, 0) << with.output;
  EXPECT_EQ(read_file<float>(dir_ + "/o"), (std::vector<float>{1, 2, 3, 4}));
  EXPECT_EQ(with.output.find("t0k3n"), std::string::npos) << with.output;
}

// HTTPS with a test CA (servers/serve.py fake_tls): the CA is needed to trust the server, and
// the "mtls" model answers only a request made with the client certificate the CA signed.
TEST(RemoteTls, CaAndClientCertificate) {
  const Server s = server_from_env("WASINN_REMOTE_FAKE_TLS_STATE");
  if (!s.skip.empty()) GTEST_SKIP() << s.skip;
  const std::string pki = std::string(std::getenv("WASINN_REMOTE_FAKE_TLS_STATE")) + ".pki";
  const std::string dir = scratch_dir("tls");
  write_file(dir + "/a", std::vector<float>{1, 2, 3, 4});
  const std::string url = "m=https://127.0.0.1:" + std::to_string(s.http) + "/models/mtls";
  const std::vector<std::string> guest = {"--name", "m", "--input", "0:f32:4:/w/a", "--output", "0:/w/o"};
  auto untrusted =
      run_guest({"--nn-remote", url, "--nn-remote-retries", "0", "--dir", dir + "::/w"}, "run_model", guest);
  EXPECT_EQ(untrusted.exit_code, 5) << untrusted.output;
  EXPECT_NE(untrusted.output.find("certificate"), std::string::npos) << untrusted.output;
  auto no_cert =
      run_guest({"--nn-remote", url, "--nn-remote-ca", pki + "/ca.pem", "--dir", dir + "::/w"}, "run_model", guest);
  EXPECT_NE(no_cert.exit_code, 0) << no_cert.output;
  EXPECT_NE(no_cert.output.find("HTTP 403: no client certificate"), std::string::npos) << no_cert.output;
  auto mtls = run_guest({"--nn-remote", url, "--nn-remote-ca", pki + "/ca.pem", "--nn-remote-cert", pki + "/client.pem",
                         "--nn-remote-key", pki + "/client.key", "--dir", dir + "::/w"},
                        "run_model", guest);
  ASSERT_EQ(mtls.exit_code, 0) << mtls.output;
  EXPECT_EQ(read_file<float>(dir + "/o"), (std::vector<float>{1, 2, 3, 4}));
}

int free_port() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  close(fd);
  return ntohs(a.sin_port);
}

TEST(RemoteDown, ConnectionRefusedIsRuntimeErrorWithoutHanging) {
  const int port = free_port();
  const auto t0 = std::chrono::steady_clock::now();
  for (const std::string scheme : {"http", "grpc"}) {
    auto run = run_guest({"--nn-remote", "m=" + scheme + "://127.0.0.1:" + std::to_string(port) + "/models/x",
                          "--nn-remote-retries", "1"},
                         "run_model", {"--name", "m"});
    EXPECT_EQ(run.exit_code, 5) << scheme << ": " << run.output;
    EXPECT_NE(run.output.find("errno 5 in load_by_name"), std::string::npos) << run.output;
  }
  // The load's line says it in remote terms: which model and server, and why it failed; not the
  // "guest bytes" of its spec's size.
  const std::string url = "http://127.0.0.1:" + std::to_string(port) + "/models/x";
  auto run = run_guest({"--nn-remote", "m=" + url, "--nn-remote-retries", "0", "--log-level", "info"}, "run_model",
                       {"--name", "m"});
  EXPECT_EQ(run.exit_code, 5) << run.output;
  EXPECT_NE(run.output.find("wasinn: info: loading remote model 'm' at " + url + " with remote failed after "),
            std::string::npos)
      << run.output;
  EXPECT_NE(
      run.output.find(" ms: remote: http://127.0.0.1:" + std::to_string(port) + "/v2: Couldn't connect to server"),
      std::string::npos)
      << run.output;
  EXPECT_EQ(run.output.find("guest bytes"), std::string::npos) << run.output;
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 15.0);
}

// Kills an MLServer while a guest computes through it in a loop, starts it again on the same
// ports, and checks the guest's later computes succeed in the same wasinn process.
class Restart : public ::testing::TestWithParam<std::string> {};

TEST_P(Restart, GuestRecoversWhenTheServerComesBack) {
  const std::string dir = scratch_dir("restart_" + GetParam());
  const std::string state = dir + "/mlserver.json";
  const std::string serve = std::string("python3 ") + WASINN_REMOTE_SERVE + " ";
  ASSERT_EQ(std::system((serve + "start mlserver " + state + " > " + dir + "/start.log 2>&1").c_str()), 0)
      << "see " << dir << "/start.log";
  Server s;
  {
    setenv("WASINN_REMOTE_RESTART_STATE", state.c_str(), 1);
    s = server_from_env("WASINN_REMOTE_RESTART_STATE");
  }
  if (!s.skip.empty()) GTEST_SKIP() << s.skip;
  const Transport t{GetParam()};
  // Computes 50 ms apart until 3 in a row succeed after a failure (at most 400: 20 s); the
  // server is down from 1.2 s for 2-3 s.
  auto guest = std::async(std::launch::async, [&] {
    std::vector<std::string> a = {"run", "--backend-dir", WASINN_BACKEND_DIR};
    for (auto& h : t.host_args(s, "m", "identity_fp32")) a.push_back(h);
    a.insert(a.end(), {std::string(WASINN_GUEST_DIR) + "/remote_loop.wasm", "m", "400", "50", "16", "3"});
    return wasinn_test::run_wasinn(a, "remote_loop_" + GetParam());
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(1200));
  std::system((serve + "stop " + state + " --kill > /dev/null 2>&1").c_str());  // a crash mid-run
  std::this_thread::sleep_for(std::chrono::milliseconds(800));
  const std::string restart = serve + "start mlserver " + state + " --http " + std::to_string(s.http) + " --grpc " +
                              std::to_string(s.grpc) + " > " + dir + "/restart.log 2>&1";
  const int restarted = std::system(restart.c_str());
  auto run = guest.get();
  std::system((serve + "stop " + state + " > /dev/null 2>&1").c_str());
  ASSERT_EQ(restarted, 0) << "see " << dir << "/restart.log";
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find("iter 0 ok"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("errno"), std::string::npos) << "no compute failed while the server was down:\n"
                                                         << run.output;
  const size_t last = run.output.rfind("iter ");
  ASSERT_NE(last, std::string::npos) << run.output;
  EXPECT_NE(run.output.find(" ok", last), std::string::npos) << "the guest did not recover:\n" << run.output;
  EXPECT_EQ(run.output.find("iter 399"), std::string::npos) << "the guest did not recover:\n" << run.output;
  EXPECT_EQ(run.output.find("wrong output"), std::string::npos) << run.output;
}

INSTANTIATE_TEST_SUITE_P(Transports, Restart, ::testing::Values("rest_json", "grpc"),
                         [](const auto& info) { return info.param; });

}  // namespace
