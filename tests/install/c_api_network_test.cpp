// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The C API's options for serving on a network (include/wasinn/wasinn.h): API keys given and
// from a file (reloaded), the header timeout, the connection cap, the whole request record with
// its outcome, HTTPS with a CA made at test time, errors that name files, not flags, and clients
// that leave mid-body in a process whose SIGPIPE keeps its default action, and the reuse of
// WASI 0.3 instances with serve's busy poll.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "wasinn/wasinn.h"
#include "support/stream_bytes.h"

// Named: the unity build compiles this file with c_api_test.cpp, whose helpers share these names.
namespace c_api_network {

namespace fs = std::filesystem;

struct HostDeleter {
  void operator()(wasinn_host_t* h) const { wasinn_host_destroy(h); }
};
struct ProgramDeleter {
  void operator()(wasinn_program_t* p) const { wasinn_program_destroy(p); }
};
struct OptionsDeleter {
  void operator()(wasinn_serve_options_t* o) const { wasinn_serve_options_destroy(o); }
};
using HostPtr = std::unique_ptr<wasinn_host_t, HostDeleter>;
using ProgramPtr = std::unique_ptr<wasinn_program_t, ProgramDeleter>;
using OptionsPtr = std::unique_ptr<wasinn_serve_options_t, OptionsDeleter>;

std::string faults_component() { return std::string(WASINN_GUEST_DIR) + "/http_faults.component.wasm"; }

HostPtr make_host() {
  wasinn_options_t* options = wasinn_options_create();
  char* error = nullptr;
  HostPtr host(wasinn_host_create(options, &error));
  wasinn_options_destroy(options);
  EXPECT_TRUE(host) << error;
  wasinn_free(error);
  return host;
}

int connect_to(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// GET path with these extra header lines; the whole answer, or "".
std::string http_get(int port, const std::string& path, const std::string& headers = "") {
  const int fd = connect_to(port);
  if (fd < 0) return "";
  const std::string request =
      "GET " + path + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n" + headers + "\r\n";
  std::string answer;
  if (::write(fd, request.data(), request.size()) == static_cast<ssize_t>(request.size())) {
    char buf[4096];
    for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) answer.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return answer;
}

// Seconds until the server closes fd (reads return 0 or fail), at most `limit`; -1 if still open.
double seconds_until_closed(int fd, double limit) {
  const auto start = std::chrono::steady_clock::now();
  char buf[256];
  for (;;) {
    const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (waited > limit) return -1;
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 100) > 0 && ::read(fd, buf, sizeof buf) <= 0) return waited;
  }
}

int server_port(const wasinn_server_t* server) {
  const std::string address = wasinn_server_address(server);
  return std::stoi(address.substr(address.rfind(':') + 1));
}

// The error of a wasinn_host_serve expected to refuse these options ("" if it served after all).
std::string serve_refusal(wasinn_host_t* host, const wasinn_program_t* program, const wasinn_serve_options_t* options) {
  char* error = nullptr;
  wasinn_server_t* server = wasinn_host_serve(host, program, options, &error);
  if (server) {
    wasinn_server_destroy(server);
    return "";
  }
  const std::string text = error ? error : "";
  wasinn_free(error);
  return text;
}

struct Records {
  std::mutex mu;
  std::vector<std::string> lines;  // "STATUS PATH OUTCOME CLIENT-HOST ID?"
  static void add(void* self, const wasinn_request_record_t* r) {
    auto* records = static_cast<Records*>(self);
    const std::string client = r->client;
    const std::string line = std::to_string(r->status) + " " + r->path + " " + r->outcome + " " +
                             client.substr(0, client.rfind(':')) + (*r->request_id ? " id" : " no-id") +
                             (r->struct_size == sizeof(wasinn_request_record_t) ? "" : " bad-size");
    std::lock_guard lock(records->mu);
    records->lines.push_back(line);
  }
};

bool has_metric(const wasinn_server_t* server, const std::string& line) {
  char* text = wasinn_server_metrics_text(server);
  const bool found = text && std::string(text).find(line) != std::string::npos;
  wasinn_free(text);
  return found;
}

fs::path temp_dir() {
  char pattern[] = "/tmp/wasinn-capi-net-XXXXXX";
  return fs::path(::mkdtemp(pattern));
}

TEST(CApiNetwork, KeysTimeoutsConnectionCapAndTheRecord) {
  if (!fs::exists(faults_component())) GTEST_SKIP() << faults_component() << " was not built";
  HostPtr host = make_host();
  ProgramPtr program(wasinn_program_create_path(faults_component().c_str()));
  const fs::path dir = temp_dir();
  const std::string key_file = (dir / "keys").string();
  std::ofstream(key_file) << "# the operator's keys\nsk-from-file\n";
  OptionsPtr options(wasinn_serve_options_create());
  wasinn_serve_options_set_address(options.get(), "127.0.0.1:0");
  wasinn_serve_options_add_api_key(options.get(), "sk-given");
  wasinn_serve_options_add_api_key_file(options.get(), key_file.c_str());
  wasinn_serve_options_set_header_timeout_ms(options.get(), 700);
  wasinn_serve_options_set_max_connections(options.get(), 2);
  Records records;
  wasinn_serve_options_set_request_callback(options.get(), &Records::add, &records);
  char* error = nullptr;
  wasinn_server_t* server = wasinn_host_serve(host.get(), program.get(), options.get(), &error);
  ASSERT_TRUE(server) << error;
  const int port = server_port(server);

  EXPECT_NE(http_get(port, "/ok").find("401"), std::string::npos);
  std::string challenge = http_get(port, "/ok");
  for (char& ch : challenge) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  EXPECT_NE(challenge.find("www-authenticate: bearer"), std::string::npos) << challenge;
  EXPECT_NE(http_get(port, "/ok", "Authorization: Bearer sk-wrong\r\n").find("401"), std::string::npos);
  EXPECT_NE(http_get(port, "/ok", "Authorization: Bearer sk-given\r\n").find("200 OK"), std::string::npos);
  EXPECT_NE(http_get(port, "/ok", "Authorization: Bearer sk-from-file\r\n").find("200 OK"), std::string::npos);
  EXPECT_NE(http_get(port, "/healthz").find("200 OK"), std::string::npos) << "health needs no key";

  // The file changes; a reload takes the new key and drops the old one (the given key stays).
  std::ofstream(key_file) << "sk-rotated\n";
  EXPECT_EQ(wasinn_server_reload_api_keys(server, &error), 2u) << error;
  EXPECT_NE(http_get(port, "/ok", "Authorization: Bearer sk-from-file\r\n").find("401"), std::string::npos);
  EXPECT_NE(http_get(port, "/ok", "Authorization: Bearer sk-rotated\r\n").find("200 OK"), std::string::npos);
  // A reload that fails keeps the keys in use and says why, naming the file and no flag.
  fs::remove(key_file);
  EXPECT_EQ(wasinn_server_reload_api_keys(server, &error), 0u);
  ASSERT_NE(error, nullptr);
  const std::string reload_error = error;
  wasinn_free(error);
  error = nullptr;
  EXPECT_NE(reload_error.find("API key file " + key_file), std::string::npos) << reload_error;
  EXPECT_EQ(reload_error.find("--"), std::string::npos) << reload_error;
  EXPECT_NE(http_get(port, "/ok", "Authorization: Bearer sk-rotated\r\n").find("200 OK"), std::string::npos);

  // Two idle connections fill the cap: a third is closed at once. (First the server closes its
  // side of the requests above: a connection counts until then.)
  for (int i = 0; i < 100 && !has_metric(server, "wasinn_http_connections_open 0\n"); ++i) ::usleep(20 * 1000);
  ASSERT_TRUE(has_metric(server, "wasinn_http_connections_open 0\n"));
  const int a = connect_to(port), b = connect_to(port);
  ASSERT_GE(a, 0);
  ASSERT_GE(b, 0);
  ::usleep(100 * 1000);
  const int c = connect_to(port);
  const double refused_in = c < 0 ? 0 : seconds_until_closed(c, 0.5);
  EXPECT_GE(refused_in, 0) << "the third connection stayed open";
  // The two that never sent their headers are closed by the header timeout (700 ms).
  const double a_closed = seconds_until_closed(a, 5);
  EXPECT_GE(a_closed, 0.3);
  EXPECT_LE(a_closed, 3.0) << "an idle connection outlived the header timeout";
  EXPECT_GE(seconds_until_closed(b, 5), 0);
  for (int fd : {a, b, c})
    if (fd >= 0) ::close(fd);

  char* metrics = wasinn_server_metrics_text(server);
  ASSERT_TRUE(metrics);
  EXPECT_NE(std::string(metrics).find("wasinn_http_connections_refused_total 1\n"), std::string::npos) << metrics;
  wasinn_free(metrics);
  wasinn_server_stop(server);
  EXPECT_EQ(wasinn_server_wait(server, 5000), 0u);
  wasinn_server_destroy(server);
  fs::remove_all(dir);

  std::lock_guard lock(records.mu);
  ASSERT_GE(records.lines.size(), 4u);
  EXPECT_EQ(records.lines[0], "401 /ok completed 127.0.0.1 id");
  EXPECT_EQ(records.lines[3], "200 /ok completed 127.0.0.1 id");
}

// An embedding process keeps SIGPIPE's default action (wasinn's CLI ignores it; a library must not
// decide for its host). A client that sends half its body and closes leaves the answer's second
// write to fail with EPIPE, and hyper writes with writev(), which cannot ask for no signal: the
// server's threads block SIGPIPE, so only that connection ends, never the embedding process.
TEST(CApiNetwork, ClientsLeavingMidBodyEndOnlyTheirConnections) {
  // A WASI 0.3 service: its answer's head and body go out in writes of their own.
  const std::string component = std::string(WASINN_GUEST_DIR) + "/p3_http.wasm";
  if (!fs::exists(component)) GTEST_SKIP() << component << " was not built";
  struct sigaction before {};
  struct sigaction by_default {};
  by_default.sa_handler = SIG_DFL;
  ::sigaction(SIGPIPE, &by_default, &before);
  HostPtr host = make_host();
  ProgramPtr program(wasinn_program_create_path(component.c_str()));
  OptionsPtr options(wasinn_serve_options_create());
  wasinn_serve_options_set_address(options.get(), "127.0.0.1:0");
  char* error = nullptr;
  wasinn_server_t* server = wasinn_host_serve(host.get(), program.get(), options.get(), &error);
  ASSERT_TRUE(server) << error;
  const int port = server_port(server);
  const std::string half =
      "POST /hello HTTP/1.1\r\nHost: localhost\r\nContent-Length: 256\r\n\r\n" + std::string(128, 'x');
  for (int i = 0; i < 40; ++i) {
    const int fd = connect_to(port);
    ASSERT_GE(fd, 0);
    EXPECT_EQ(::write(fd, half.data(), half.size()), static_cast<ssize_t>(half.size()));
    ::close(fd);
    ::usleep(50 * 1000);
  }
  EXPECT_NE(http_get(port, "/hello").find("200 OK"), std::string::npos) << "the server still answers";
  wasinn_server_stop(server);
  EXPECT_EQ(wasinn_server_wait(server, 5000), 0u);
  wasinn_server_destroy(server);
  ::sigaction(SIGPIPE, &before, nullptr);
}

TEST(CApiNetwork, HttpsWithACaMadeAtTestTime) {
  if (!fs::exists(faults_component())) GTEST_SKIP() << faults_component() << " was not built";
  if (std::system("command -v openssl >/dev/null && command -v curl >/dev/null") != 0)
    GTEST_SKIP() << "needs the openssl and curl commands";
  const fs::path dir = temp_dir();
  const std::string d = dir.string();
  const std::string make =
      "cd " + d +
      " && openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj '/CN=test CA' "
      "-keyout ca.key -out ca.pem -addext basicConstraints=critical,CA:TRUE 2>/dev/null"
      " && openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj /CN=server -keyout server.key "
      "-out server.csr 2>/dev/null"
      " && printf 'subjectAltName=IP:127.0.0.1\\n' > server.ext"
      " && openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 -extfile server.ext "
      "-out server.pem 2>/dev/null";
  ASSERT_EQ(std::system(make.c_str()), 0) << make;
  HostPtr host = make_host();
  ProgramPtr program(wasinn_program_create_path(faults_component().c_str()));
  OptionsPtr options(wasinn_serve_options_create());
  wasinn_serve_options_set_address(options.get(), "127.0.0.1:0");
  // A certificate with another's key is refused, naming both files.
  wasinn_serve_options_set_tls(options.get(), (d + "/server.pem").c_str(), (d + "/ca.key").c_str(), nullptr);
  const std::string mismatch = serve_refusal(host.get(), program.get(), options.get());
  ASSERT_FALSE(mismatch.empty()) << "a certificate with another's key was served";
  EXPECT_NE(mismatch.find(d + "/ca.key"), std::string::npos) << mismatch;
  EXPECT_EQ(mismatch.find("--"), std::string::npos) << mismatch;

  wasinn_serve_options_set_tls(options.get(), (d + "/server.pem").c_str(), (d + "/server.key").c_str(), "");
  char* error = nullptr;
  wasinn_server_t* server = wasinn_host_serve(host.get(), program.get(), options.get(), &error);
  ASSERT_TRUE(server) << error;
  const std::string url = "https://" + std::string(wasinn_server_address(server)) + "/ok";
  const std::string out = (dir / "answer").string();
  const std::string curl = "curl -s --max-time 10 --cacert " + d + "/ca.pem -o " + out + " " + url;
  EXPECT_EQ(std::system(curl.c_str()), 0) << curl;
  std::ifstream answer(out);
  const std::string body = wasinn_test::stream_bytes<std::string>(answer);
  EXPECT_EQ(body.substr(0, 2), "ok");
  // Plain HTTP to the TLS port gets no answer.
  EXPECT_EQ(http_get(server_port(server), "/ok").find("200 OK"), std::string::npos);
  wasinn_server_stop(server);
  EXPECT_EQ(wasinn_server_wait(server, 5000), 0u);
  wasinn_server_destroy(server);
  fs::remove_all(dir);
}

// The body of GET path's chunked answer ("" when there is none).
std::string chunked_body_of(int port, const std::string& path) {
  const std::string answer = http_get(port, path);
  size_t at = answer.find("\r\n\r\n");
  if (at == std::string::npos) return "";
  at += 4;  // at a chunk's size line
  std::string body;
  for (;;) {
    const size_t line_end = answer.find("\r\n", at);
    if (line_end == std::string::npos) break;
    const size_t size = std::stoul(answer.substr(at, line_end - at), nullptr, 16);
    if (size == 0) break;
    body += answer.substr(line_end + 2, size);
    at = line_end + 2 + size + 2;  // past the chunk's data and its CRLF
  }
  return body;
}

// /count answers how many requests its instance has handled: reuse counts up, isolation stays 1.
TEST(CApiNetwork, InstanceReuseAndBusyPollAsServesFlags) {
  const std::string component = std::string(WASINN_GUEST_DIR) + "/p3_http.wasm";
  if (!fs::exists(component)) GTEST_SKIP() << component << " was not built";
  HostPtr host = make_host();
  ProgramPtr program(wasinn_program_create_path(component.c_str()));
  for (const size_t reuse : {size_t{3}, size_t{1}}) {
    OptionsPtr options(wasinn_serve_options_create());
    wasinn_serve_options_set_address(options.get(), "127.0.0.1:0");
    wasinn_serve_options_set_workers(options.get(), 1);  // one lane: one instance at a time
    wasinn_serve_options_set_instance_reuse(options.get(), reuse, 1, 60000);
    wasinn_serve_options_set_busy_poll_us(options.get(), 0);
    char* error = nullptr;
    wasinn_server_t* server = wasinn_host_serve(host.get(), program.get(), options.get(), &error);
    ASSERT_TRUE(server) << error;
    const int port = server_port(server);
    std::vector<std::string> counts;
    for (int i = 0; i < 4; ++i) counts.push_back(chunked_body_of(port, "/count"));
    // One request at a time: 3 per instance, then a new one; or one each.
    const std::vector<std::string> want = reuse == 3 ? std::vector<std::string>{"1\n", "2\n", "3\n", "1\n"}
                                                     : std::vector<std::string>{"1\n", "1\n", "1\n", "1\n"};
    EXPECT_EQ(counts, want) << "max requests per instance " << reuse;
    wasinn_server_stop(server);
    EXPECT_EQ(wasinn_server_wait(server, 5000), 0u);
    wasinn_server_destroy(server);
  }
  OptionsPtr options(wasinn_serve_options_create());
  wasinn_serve_options_set_address(options.get(), "127.0.0.1:0");
  wasinn_serve_options_set_busy_poll_us(options.get(), 10001);
  const std::string text = serve_refusal(host.get(), program.get(), options.get());
  ASSERT_FALSE(text.empty()) << "a busy poll past 10 ms was served";
  EXPECT_NE(text.find("a busy poll of 10001 us is past the most, 10000 us"), std::string::npos) << text;
}

TEST(CApiNetwork, AnUnreadableKeyFileIsServesErrorNamingTheFile) {
  if (!fs::exists(faults_component())) GTEST_SKIP() << faults_component() << " was not built";
  HostPtr host = make_host();
  ProgramPtr program(wasinn_program_create_path(faults_component().c_str()));
  OptionsPtr options(wasinn_serve_options_create());
  wasinn_serve_options_set_address(options.get(), "127.0.0.1:0");
  wasinn_serve_options_add_api_key_file(options.get(), "/no/such/keys");
  const std::string text = serve_refusal(host.get(), program.get(), options.get());
  ASSERT_FALSE(text.empty()) << "an unreadable key file was served";
  EXPECT_NE(text.find("API key file /no/such/keys: cannot read it"), std::string::npos) << text;
  EXPECT_EQ(text.find("--"), std::string::npos) << text;
}

}  // namespace c_api_network
