// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The C API (include/wasinn/wasinn.h) in libwasinn.so, as an embedder links it: a guest's stdin
// from memory and its stdout and stderr captured, a module from bytes, the log callback, serving
// HTTP, and the documented failures (a bad option, a module that is not WebAssembly, a missing file).
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <mutex>
#include <string>
#include <chrono>
#include <thread>
#include <vector>

#include "wasinn/wasinn.h"
#include "support/stream_bytes.h"

namespace {

std::string guest(const std::string& name) { return std::string(WASINN_GUEST_DIR) + "/" + name + ".wasm"; }
std::string fixtures() {
  const char* env = std::getenv("WASINN_FIXTURES");
  return env && *env ? env : WASINN_FIXTURES_DEFAULT;
}

struct HostDeleter {
  void operator()(wasinn_host_t* h) const { wasinn_host_destroy(h); }
};
struct ProgramDeleter {
  void operator()(wasinn_program_t* p) const { wasinn_program_destroy(p); }
};
struct ResultDeleter {
  void operator()(wasinn_result_t* r) const { wasinn_result_destroy(r); }
};
using HostPtr = std::unique_ptr<wasinn_host_t, HostDeleter>;
using ProgramPtr = std::unique_ptr<wasinn_program_t, ProgramDeleter>;
using ResultPtr = std::unique_ptr<wasinn_result_t, ResultDeleter>;

HostPtr make_host(wasinn_options_t* options = nullptr) {
  wasinn_options_t* own = options ? options : wasinn_options_create();
  wasinn_options_add_backend_dir(own, WASINN_BACKEND_DIR);
  char* error = nullptr;
  HostPtr host(wasinn_host_create(own, &error));
  wasinn_options_destroy(own);
  EXPECT_TRUE(host) << error;
  wasinn_free(error);
  return host;
}

std::string out_of(const wasinn_result_t* r, bool err = false) {
  size_t n = 0;
  const char* s = err ? wasinn_result_stderr(r, &n) : wasinn_result_stdout(r, &n);
  return std::string(s, n);
}

// The library implements the C API version of the header the caller was built with.
TEST(CApi, ApiVersionIsTheHeaders) { EXPECT_EQ(wasinn_c_api_version(), WASINN_C_API_VERSION); }

TEST(CApi, StdinFromMemoryAndCapturedOutput) {
  HostPtr host = make_host();
  ProgramPtr p(wasinn_program_create_path(guest("wasi_probe").c_str()));
  wasinn_program_add_arg(p.get(), "stdio");
  const std::string input("line one\nline two, with a \0 byte\n", 32);
  wasinn_program_set_stdin(p.get(), reinterpret_cast<const uint8_t*>(input.data()), input.size());
  wasinn_program_capture_output(p.get(), 1, 1);
  ResultPtr r(wasinn_host_run(host.get(), p.get()));
  ASSERT_TRUE(r);
  EXPECT_EQ(wasinn_result_exit_code(r.get()), 0) << wasinn_result_message(r.get());
  EXPECT_STREQ(wasinn_result_message(r.get()), "");
  EXPECT_EQ(out_of(r.get()), input);
  EXPECT_EQ(out_of(r.get(), true), "wasi_probe: this line goes to stderr\n");
}

TEST(CApi, ModuleFromBytesWithArgsAndEnv) {
  std::ifstream f(guest("wasi_probe"), std::ios::binary);
  const std::vector<uint8_t> bytes = wasinn_test::stream_bytes(f);
  ASSERT_FALSE(bytes.empty());
  HostPtr host = make_host();
  ProgramPtr p(wasinn_program_create_bytes(bytes.data(), bytes.size(), "probe"));
  wasinn_program_add_arg(p.get(), "env");
  wasinn_program_add_arg(p.get(), "GREETING");
  wasinn_program_add_env(p.get(), "GREETING", "hello");
  wasinn_program_capture_output(p.get(), 1, 0);
  ResultPtr r(wasinn_host_run(host.get(), p.get()));
  EXPECT_EQ(wasinn_result_exit_code(r.get()), 0) << wasinn_result_message(r.get());
  EXPECT_EQ(out_of(r.get()), "GREETING=hello\n");
}

TEST(CApi, ExitCodeAndFailuresAreResultsNotCrashes) {
  HostPtr host = make_host();
  ProgramPtr exits(wasinn_program_create_path(guest("wasi_probe").c_str()));
  wasinn_program_add_arg(exits.get(), "exit");
  wasinn_program_add_arg(exits.get(), "7");
  ResultPtr r(wasinn_host_run(host.get(), exits.get()));
  EXPECT_EQ(wasinn_result_exit_code(r.get()), 7);
  EXPECT_EQ(wasinn_result_trapped(r.get()), 0);

  const uint8_t junk[] = {'n', 'o', 't', ' ', 'w', 'a', 's', 'm'};
  ProgramPtr bad(wasinn_program_create_bytes(junk, sizeof junk, "junk"));
  r.reset(wasinn_host_run(host.get(), bad.get()));
  EXPECT_EQ(wasinn_result_exit_code(r.get()), 1);
  EXPECT_NE(std::string(wasinn_result_message(r.get())).find("junk"), std::string::npos)
      << wasinn_result_message(r.get());

  ProgramPtr missing(wasinn_program_create_path("/nonexistent/guest.wasm"));
  r.reset(wasinn_host_run(host.get(), missing.get()));
  EXPECT_EQ(wasinn_result_exit_code(r.get()), 1);
  EXPECT_NE(std::string(wasinn_result_message(r.get())).find("/nonexistent/guest.wasm"), std::string::npos);
}

// A run's message names the C function that set the limit or would call an export, never the
// command line's --timeout or --invoke.
TEST(CApi, RunMessagesNameTheCFunctions) {
  wasinn_options_t* o = wasinn_options_create();
  wasinn_options_set_timeout_ms(o, 300);
  HostPtr host = make_host(o);
  ProgramPtr spin(wasinn_program_create_path(guest("wasi_probe").c_str()));
  wasinn_program_add_arg(spin.get(), "spin");
  ResultPtr r(wasinn_host_run(host.get(), spin.get()));
  EXPECT_EQ(wasinn_result_exit_code(r.get()), 134);
  const std::string stopped = wasinn_result_message(r.get());
  EXPECT_EQ(stopped.rfind("the guest ran longer than wasinn_options_set_timeout_ms (300 ms) and was stopped", 0), 0u)
      << stopped;

  const std::string wat = "(module)";
  ProgramPtr library(wasinn_program_create_bytes(reinterpret_cast<const uint8_t*>(wat.data()), wat.size(), "lib"));
  r.reset(wasinn_host_run(host.get(), library.get()));
  EXPECT_EQ(wasinn_result_exit_code(r.get()), 1);
  EXPECT_EQ(std::string(wasinn_result_message(r.get())),
            "lib has no _start export: it is not a WASI command (use wasinn_program_set_invoke NAME to call one of "
            "its exported functions)");
  EXPECT_EQ(std::string(wasinn_result_message(r.get())).find("--"), std::string::npos);
}

// libwasinn finds wasinn-load-check in <libdir>/../bin, as in an installed prefix: with every
// load isolated, the digits still classify (the checker ran; without it the load is refused).
TEST(CApi, IsolatedLoadsFindTheCheckerBesideTheLibrary) {
  wasinn_options_t* o = wasinn_options_create();
  wasinn_options_set_isolate_loads(o, "always");
  HostPtr host = make_host(o);
  ASSERT_TRUE(host);
  const std::string digits = fixtures() + "/digits";
  ProgramPtr p(wasinn_program_create_path(guest("classify_digits").c_str()));
  wasinn_program_add_dir(p.get(), digits.c_str(), "/digits");
  for (const char* arg : {"/digits/model.onnx", "/digits/test_x.f32", "/digits/test_y.u8"}) {
    wasinn_program_add_arg(p.get(), arg);
  }
  wasinn_program_capture_output(p.get(), 1, 1);
  ResultPtr r(wasinn_host_run(host.get(), p.get()));
  EXPECT_EQ(wasinn_result_exit_code(r.get()), 0) << wasinn_result_message(r.get()) << out_of(r.get(), true);
  EXPECT_NE(out_of(r.get()).find("accuracy: 435/450"), std::string::npos) << out_of(r.get());
}

// A wasi-threads guest through the C API: its threads write captured output at once, the
// thread limit reaches thread-spawn, and the metrics count the threads' computes.
TEST(CApi, ThreadsGuestWithCapturedOutputThreadLimitAndMetrics) {
  wasinn_options_t* o = wasinn_options_create();
  wasinn_options_set_max_threads(o, 2);
  wasinn_options_set_nn_context_wait(o, 1);
  HostPtr host = make_host(o);
  ASSERT_TRUE(host);
  ProgramPtr spawn(wasinn_program_create_path(guest("threads_nn").c_str()));
  for (const char* arg : {"spawn", "5"}) wasinn_program_add_arg(spawn.get(), arg);
  wasinn_program_capture_output(spawn.get(), 1, 1);
  ResultPtr limited(wasinn_host_run(host.get(), spawn.get()));
  EXPECT_EQ(wasinn_result_exit_code(limited.get()), 0) << wasinn_result_message(limited.get());
  EXPECT_NE(out_of(limited.get()).find("spawn: 2 of 5 threads began; first failure -6"), std::string::npos)
      << out_of(limited.get());

  const std::string digits = fixtures() + "/digits";
  ProgramPtr shared(wasinn_program_create_path(guest("threads_nn").c_str()));
  wasinn_program_add_dir(shared.get(), digits.c_str(), "/d");
  for (const char* arg : {"shared", "2", "/d/model.onnx", "/d/test_x.f32", "/d/test_y.u8"}) {
    wasinn_program_add_arg(shared.get(), arg);
  }
  wasinn_program_capture_output(shared.get(), 1, 1);
  ResultPtr r(wasinn_host_run(host.get(), shared.get()));
  EXPECT_EQ(wasinn_result_exit_code(r.get()), 0) << wasinn_result_message(r.get()) << out_of(r.get(), true);
  EXPECT_NE(out_of(r.get()).find("shared: 2 threads x 200 computes on one context: 400 done, busy 0, wrong 0"),
            std::string::npos)
      << out_of(r.get());
  char* metrics = wasinn_host_metrics_text(host.get());
  ASSERT_NE(metrics, nullptr);
  // 450 single-threaded computes on the main thread, then 400 on the two threads.
  EXPECT_NE(std::string(metrics).find("wasinn_nn_computes_total{backend=\"onnxruntime\""), std::string::npos);
  EXPECT_NE(std::string(metrics).find("} 850\n"), std::string::npos) << metrics;
  wasinn_free(metrics);
}

TEST(CApi, BadOptionIsAnErrorString) {
  wasinn_options_t* o = wasinn_options_create();
  wasinn_options_add_preload(o, "no-colons-here");
  char* error = nullptr;
  wasinn_host_t* host = wasinn_host_create(o, &error);
  wasinn_options_destroy(o);
  EXPECT_EQ(host, nullptr);
  ASSERT_NE(error, nullptr);
  // A library user is pointed at the C function, never at the command line's flag.
  EXPECT_EQ(std::string(error),
            "wasinn_options_add_preload 'no-colons-here': expected NAME:ENCODING:TARGET:PATH[:PATH...]");
  wasinn_free(error);

  o = wasinn_options_create();
  wasinn_options_add_listen(o, "8080");
  host = wasinn_host_create(o, &error);
  wasinn_options_destroy(o);
  EXPECT_EQ(host, nullptr);
  ASSERT_NE(error, nullptr);
  EXPECT_EQ(std::string(error).rfind("wasinn_options_add_listen '8080': expected ADDR:PORT", 0), 0u) << error;
  wasinn_free(error);

  o = wasinn_options_create();
  wasinn_options_set_isolate_loads(o, "sometimes");
  error = nullptr;
  host = wasinn_host_create(o, &error);
  wasinn_options_destroy(o);
  EXPECT_EQ(host, nullptr);
  ASSERT_NE(error, nullptr);
  EXPECT_EQ(std::string(error), "wasinn_options_set_isolate_loads 'sometimes': expected auto, always or never");
  wasinn_free(error);

  o = wasinn_options_create();
  wasinn_options_set_backend_config(o, "nosuchbackend", "{}");
  error = nullptr;
  host = wasinn_host_create(o, &error);
  wasinn_options_destroy(o);
  EXPECT_EQ(host, nullptr);
  ASSERT_NE(error, nullptr);
  EXPECT_EQ(
      std::string(error).rfind("wasinn_options_set_backend_config nosuchbackend: no backend named nosuchbackend", 0),
      0u)
      << error;
  EXPECT_EQ(std::string(error).find("--"), std::string::npos) << error;
  wasinn_free(error);
}

TEST(CApi, LogCallbackGetsWasinnsLines) {
  std::vector<std::pair<wasinn_log_level_t, std::string>> lines;
  wasinn_options_t* o = wasinn_options_create();
  wasinn_options_set_log_callback(
      o,
      [](void* data, wasinn_log_level_t level, const char* message, size_t length) {
        static_cast<decltype(lines)*>(data)->emplace_back(level, std::string(message, length));
      },
      &lines);
  HostPtr host = make_host(o);
  // A guest's failed wasi-nn call is logged as a warning.
  ProgramPtr p(wasinn_program_create_path(guest("run_model").c_str()));
  wasinn_program_add_arg(p.get(), "--name");
  wasinn_program_add_arg(p.get(), "ghost");
  wasinn_program_capture_output(p.get(), 1, 1);
  ResultPtr r(wasinn_host_run(host.get(), p.get()));
  ASSERT_TRUE(r);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].first, WASINN_LEVEL_WARN);
  EXPECT_NE(lines[0].second.find("no model named 'ghost'"), std::string::npos) << lines[0].second;
}

TEST(CApi, AMissingPreloadFileFailsCreate) {
  wasinn_options_t* o = wasinn_options_create();
  wasinn_options_add_preload(o, "ghost:onnx:cpu:/nonexistent/model.onnx");
  char* error = nullptr;
  HostPtr host(wasinn_host_create(o, &error));
  wasinn_options_destroy(o);
  EXPECT_EQ(host, nullptr);
  ASSERT_NE(error, nullptr);
  EXPECT_EQ(std::string(error),
            "wasinn_options_add_preload 'ghost:onnx:cpu:/nonexistent/model.onnx': "
            "/nonexistent/model.onnx does not exist");
  wasinn_free(error);
}

TEST(CApi, ListsTheBuiltBackends) {
  HostPtr host = make_host();
  wasinn_backend_list_t* list = wasinn_host_list_backends(host.get());
  ASSERT_NE(list, nullptr);
  bool onnx = false;
  for (size_t i = 0; i < wasinn_backend_list_count(list); ++i) {
    if (std::string(wasinn_backend_list_name(list, i)) == "onnxruntime") {
      onnx = true;
      EXPECT_STREQ(wasinn_backend_list_encodings(list, i), "onnx");
      EXPECT_EQ(wasinn_backend_list_found(list, i), 1);
    }
  }
  EXPECT_TRUE(onnx);
  EXPECT_EQ(wasinn_backend_list_name(list, wasinn_backend_list_count(list)), nullptr);
  wasinn_backend_list_destroy(list);
}

}  // namespace

namespace {

// One HTTP/1.1 request on a new connection to 127.0.0.1:port; the whole answer (status line,
// headers, body), or "" when the connection fails.
std::string http_get(int port, const std::string& path) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string answer;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) {
    const std::string request = "GET " + path + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n";
    if (::write(fd, request.data(), request.size()) == static_cast<ssize_t>(request.size())) {
      char buf[4096];
      for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) answer.append(buf, static_cast<size_t>(n));
    }
  }
  ::close(fd);
  return answer;
}

struct Seen {
  std::mutex mu;
  std::vector<std::string> lines;
};

}  // namespace

// `program` served on a free port of 127.0.0.1 by `workers`, with `on_request` when given; NULL
// and *error when it cannot start.
wasinn_server_t* serve_on_free_port(wasinn_host_t* host, const wasinn_program_t* program, size_t workers, char** error,
                                    wasinn_request_fn on_request = nullptr, void* user = nullptr) {
  wasinn_serve_options_t* options = wasinn_serve_options_create();
  wasinn_serve_options_set_address(options, "127.0.0.1:0");
  wasinn_serve_options_set_workers(options, workers);
  if (on_request) wasinn_serve_options_set_request_callback(options, on_request, user);
  wasinn_server_t* server = wasinn_host_serve(host, program, options, error);
  wasinn_serve_options_destroy(options);
  return server;
}

int port_of(const wasinn_server_t* server) {
  const std::string address = wasinn_server_address(server);
  return std::stoi(address.substr(address.rfind(':') + 1));
}

// A serve that cannot start says why without naming the command line's flags (--dir, --addr).
TEST(CApi, ServeErrorsNameNoCommandLineFlags) {
  const std::string faults = std::string(WASINN_GUEST_DIR) + "/http_faults.component.wasm";
  if (!std::ifstream(faults)) GTEST_SKIP() << faults << " was not built (component guests off)";
  HostPtr host = make_host();
  struct Case {
    std::string dir, address, want;
  };
  for (const Case& c : {Case{"/no/such/dir", "127.0.0.1:0", "preopened directory /no/such/dir: no such directory"},
                        Case{"", "192.0.2.1:8080", "listening address 192.0.2.1:8080: cannot listen there"}}) {
    ProgramPtr p(wasinn_program_create_path(faults.c_str()));
    if (!c.dir.empty()) wasinn_program_add_dir(p.get(), c.dir.c_str(), "/d");
    wasinn_serve_options_t* options = wasinn_serve_options_create();
    wasinn_serve_options_set_address(options, c.address.c_str());
    char* error = nullptr;
    wasinn_server_t* server = wasinn_host_serve(host.get(), p.get(), options, &error);
    wasinn_serve_options_destroy(options);
    ASSERT_EQ(server, nullptr);
    ASSERT_NE(error, nullptr);
    const std::string text = error;
    wasinn_free(error);
    EXPECT_NE(text.find(c.want), std::string::npos) << text;
    EXPECT_EQ(text.find("--"), std::string::npos) << text;
  }
}

// Serving through the C API: a wasi:http component on a free port, its answers, the health
// path, the per-request callback and metrics, a stop from another thread and a clean drain.
TEST(CApi, ServesAProxyComponentAndStopsCleanly) {
  const std::string faults = std::string(WASINN_GUEST_DIR) + "/http_faults.component.wasm";
  if (!std::ifstream(faults)) GTEST_SKIP() << faults << " was not built (component guests off)";
  HostPtr host = make_host();
  ProgramPtr p(wasinn_program_create_path(faults.c_str()));
  Seen seen;
  char* error = nullptr;
  wasinn_server_t* server = serve_on_free_port(
      host.get(), p.get(), 2, &error,
      [](void* user, const wasinn_request_record_t* r) {
        auto* s = static_cast<Seen*>(user);
        std::lock_guard lock(s->mu);
        s->lines.push_back(std::string(r->method) + " " + r->path + " " + std::to_string(r->status));
      },
      &seen);
  ASSERT_TRUE(server) << error;
  const int port = port_of(server);
  EXPECT_NE(http_get(port, "/ok").find("200 OK"), std::string::npos);
  EXPECT_NE(http_get(port, "/healthz").find("200 OK"), std::string::npos);
  EXPECT_NE(http_get(port, "/nowhere").find("404"), std::string::npos);
  std::thread stopper([server] { wasinn_server_stop(server); });
  EXPECT_EQ(wasinn_server_wait(server, 5000), 0u);
  stopper.join();
  char* metrics = wasinn_server_metrics_text(server);
  ASSERT_TRUE(metrics);
  EXPECT_NE(std::string(metrics).find("wasinn_http_requests_total{code=\"200\"} 2"), std::string::npos) << metrics;
  wasinn_free(metrics);
  wasinn_server_destroy(server);
  std::lock_guard lock(seen.mu);
  EXPECT_EQ(seen.lines, (std::vector<std::string>{"GET /ok 200", "GET /healthz 200", "GET /nowhere 404"}));
}

// A guest still running at the drain's end is cut, and may finish after its server and host are
// destroyed: what it calls back then (its guest state's release, its worker given back to the
// admission) must still be there (serve_host.h's release; ASan sees a use after free otherwise).
TEST(CApi, AGuestCutAtTheDrainsEndMayOutliveItsServer) {
  const std::string faults = std::string(WASINN_GUEST_DIR) + "/http_faults.component.wasm";
  if (!std::ifstream(faults)) GTEST_SKIP() << faults << " was not built (component guests off)";
  HostPtr host = make_host();
  ProgramPtr p(wasinn_program_create_path(faults.c_str()));
  char* error = nullptr;
  wasinn_server_t* server = serve_on_free_port(host.get(), p.get(), 1, &error);
  ASSERT_TRUE(server) << error;
  const int port = port_of(server);
  // Busy for 1.5 s without yielding to the host: nothing can stop it before it ends.
  std::thread client([port] { http_get(port, "/sleep?ms=1500"); });
  std::this_thread::sleep_for(std::chrono::milliseconds(400));
  wasinn_server_stop(server);
  EXPECT_EQ(wasinn_server_wait(server, 0), 1u);
  wasinn_server_destroy(server);
  host.reset();
  client.join();
  // The guest ends about now and gives back its state and its worker.
  std::this_thread::sleep_for(std::chrono::milliseconds(1800));
}

TEST(CApi, ServingACoreModuleIsAnErrorString) {
  HostPtr host = make_host();
  ProgramPtr p(wasinn_program_create_path(guest("wasi_probe").c_str()));
  char* error = nullptr;
  EXPECT_EQ(wasinn_host_serve(host.get(), p.get(), nullptr, &error), nullptr);
  ASSERT_TRUE(error);
  EXPECT_NE(std::string(error).find("wasi:http/incoming-handler"), std::string::npos) << error;
  wasinn_free(error);
}
