// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// bench_remote: per-inference latency of a wasm guest through wasinn's remote backend versus a
// plain client of the same server in the same run (libcurl POSTing a prebuilt request, a grpc++
// stub sending a prebuilt ModelInferRequest), interleaved so a shared machine's noise lands on
// both alike; the official Python tritonclient as a reference; and throughput with 1, 2 and 4
// contexts in flight (one guest instance, one context each, one host thread each).
// Starts Triton and MLServer with tests/backends/remote/servers/serve.py and stops them.
//   bench_remote [--seconds S] [--json FILE] [--servers triton,mlserver]
// Prints a Markdown section (docs/benchmarks.md, bench:remote) on stdout; exits non-zero if a
// side fails or the guest's output differs from its input (the model is the identity).
#include <curl/curl.h>
#include <fmt/format.h>
#include <grpcpp/grpcpp.h>
#include <nlohmann/json.hpp>

#include <CLI/CLI.hpp>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <thread>

#include <grpcpp/impl/codegen/client_unary_call.h>
#include <grpcpp/support/byte_buffer.h>

#include "oip/binary_codec.h"
#include "guest_bench.h"
#include "interleaved_timing.h"
#include "oip/json_codec.h"
#include "wasinn/host.h"

namespace fs = std::filesystem;
using namespace wasinn;
using namespace wasinn::bench;

namespace {

struct ServerAddress {
  std::string kind;
  int http = 0, grpc = 0;
};

struct Transport {
  std::string name;  // rest_json, rest_binary, grpc
  bool grpc() const { return name == "grpc"; }
};

std::string shell_quote(const std::string& s) { return "'" + s + "'"; }

size_t on_body(char* d, size_t, size_t n, void* u) {
  static_cast<std::string*>(u)->append(d, n);
  return n;
}

// The plain REST client: one easy handle (its connection kept alive), a request body built once.
class CurlClient {
 public:
  CurlClient(const ServerAddress& s, bool binary, const std::vector<float>& x) : easy_(curl_easy_init()) {
    const remote::InputTensor in{
        "INPUT0", "FP32", {static_cast<int64_t>(x.size())}, {reinterpret_cast<const uint8_t*>(x.data()), x.size() * 4}};
    const std::vector<std::string> outs = {"OUTPUT0"};
    if (binary) {
      size_t n = 0;
      body_ = remote::encode_infer_binary({&in, 1}, outs, &n);
      headers_ = curl_slist_append(headers_, ("Inference-Header-Content-Length: " + std::to_string(n)).c_str());
      headers_ = curl_slist_append(headers_, "Content-Type: application/octet-stream");
    } else {
      body_ = remote::encode_infer_json({&in, 1}, outs, false);
      headers_ = curl_slist_append(headers_, "Content-Type: application/json");
    }
    headers_ = curl_slist_append(headers_, "Expect:");
    url_ = fmt::format("http://127.0.0.1:{}/v2/models/identity_fp32/infer", s.http);
    curl_easy_setopt(easy_, CURLOPT_URL, url_.c_str());
    curl_easy_setopt(easy_, CURLOPT_HTTPHEADER, headers_);
    curl_easy_setopt(easy_, CURLOPT_POSTFIELDS, body_.data());
    curl_easy_setopt(easy_, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body_.size()));
    curl_easy_setopt(easy_, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(easy_, CURLOPT_WRITEDATA, &response_);
    curl_easy_setopt(easy_, CURLOPT_TCP_NODELAY, 1L);
  }
  ~CurlClient() {
    curl_easy_cleanup(easy_);
    curl_slist_free_all(headers_);
  }
  bool infer(std::string* error) {
    response_.clear();
    const CURLcode rc = curl_easy_perform(easy_);
    long status = 0;
    curl_easy_getinfo(easy_, CURLINFO_RESPONSE_CODE, &status);
    if (rc != CURLE_OK || status != 200) {
      *error = fmt::format("curl: {} HTTP {}: {}", curl_easy_strerror(rc), status, response_.substr(0, 200));
      return false;
    }
    return true;
  }

 private:
  CURL* easy_;
  curl_slist* headers_ = nullptr;
  std::string body_, url_, response_;
};

// Protobuf wire format, by hand: this process must not register inference.proto's messages, which
// the remote plugin it dlopens registers in the same libprotobuf (a second registration aborts).
void put_varint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out += static_cast<char>(v | 0x80);
    v >>= 7;
  }
  out += static_cast<char>(v);
}
void put_bytes(std::string& out, int field, const std::string& bytes) {
  put_varint(out, (static_cast<uint64_t>(field) << 3) | 2);
  put_varint(out, bytes.size());
  out += bytes;
}

// The plain gRPC client: one channel, a serialized ModelInferRequest built once, sent as bytes
// with the same blocking unary call generated stubs make.
class GrpcClient {
 public:
  GrpcClient(const ServerAddress& s, const std::vector<float>& x) {
    grpc::ChannelArguments args;
    args.SetMaxReceiveMessageSize(-1);
    channel_ = grpc::CreateCustomChannel(fmt::format("127.0.0.1:{}", s.grpc), grpc::InsecureChannelCredentials(), args);
    std::string input, shape, output, request;
    put_bytes(input, 1, "INPUT0");
    put_bytes(input, 2, "FP32");
    put_varint(shape, x.size());
    put_bytes(input, 3, shape);  // packed repeated int64
    put_bytes(output, 1, "OUTPUT0");
    put_bytes(request, 1, "identity_fp32");
    put_bytes(request, 5, input);
    put_bytes(request, 6, output);
    put_bytes(request, 7, std::string(reinterpret_cast<const char*>(x.data()), x.size() * 4));
    grpc::Slice slice(request);
    request_ = grpc::ByteBuffer(&slice, 1);
    bytes_ = x.size() * 4;
  }
  bool infer(std::string* error) {
    grpc::ClientContext ctx;
    grpc::ByteBuffer response;
    const grpc::Status s = grpc::internal::BlockingUnaryCall<grpc::ByteBuffer, grpc::ByteBuffer>(
        channel_.get(), method_, &ctx, request_, &response);
    if (!s.ok() || response.Length() < bytes_) {
      *error = "grpc: " + s.error_message();
      return false;
    }
    return true;
  }

 private:
  std::shared_ptr<grpc::Channel> channel_;
  const grpc::internal::RpcMethod method_{"/inference.GRPCInferenceService/ModelInfer",
                                          grpc::internal::RpcMethod::NORMAL_RPC};
  grpc::ByteBuffer request_;
  size_t bytes_ = 0;
};

struct Options {
  double seconds = 3;
  std::string json_out, servers = "triton,mlserver";
  std::string serve = WASINN_REMOTE_SERVE_DEFAULT;
  std::string backend_dir = WASINN_BACKEND_DIR_DEFAULT;
  std::string guest = WASINN_BENCH_GUEST_DEFAULT;
  std::string fixtures;  // taken for scripts/bench.sh; unused
};

std::string spec(const ServerAddress& s, const Transport& t) {
  nlohmann::json j{{"url", t.grpc() ? fmt::format("grpc://127.0.0.1:{}/models/identity_fp32", s.grpc)
                                    : fmt::format("http://127.0.0.1:{}/models/identity_fp32", s.http)}};
  if (t.name == "rest_json") j["binary_tensors"] = "never";
  return j.dump();
}

std::unique_ptr<Host> make_host(const Options& o, const ServerAddress& s, const Transport& t, std::string* error) {
  HostOptions h;
  h.backend_dirs = {o.backend_dir};
  h.preloads = {"m:remote:cpu:" + spec(s, t)};
  return Host::create(std::move(h), error);
}

GuestArgs guest_args(size_t floats, bool save) {
  GuestArgs a;
  a.name = "m";
  a.inputs = {{0, "f32", {static_cast<uint32_t>(floats)}, "/in/x"}};
  a.outputs = {{0, save ? "/in/y" : "", 64u << 20}};
  return a;
}

double fmt_ms(double us) { return us / 1000.0; }

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app{"wasinn remote backend versus a plain client of the same server"};
  app.add_option("--seconds", o.seconds, "timed seconds per side and row");
  app.add_option("--json", o.json_out, "also write the results as JSON here");
  app.add_option("--servers", o.servers, "triton, mlserver or both (comma-separated)");
  app.add_option("--fixtures", o.fixtures, "unused (scripts/bench.sh passes it to every bench)");
  app.add_option("--serve", o.serve, "tests/backends/remote/servers/serve.py");
  CLI11_PARSE(app, argc, argv);
  curl_global_init(CURL_GLOBAL_DEFAULT);

  const fs::path work = fs::temp_directory_path() / fmt::format("wasinn-bench-remote-{}", getpid());
  fs::create_directories(work);
  nlohmann::json results = nlohmann::json::array();
  std::string table, scaling, reference;
  bool failed = false;
  const std::vector<size_t> sizes = {16, 153600};  // 64 B and 600 KB of f32

  for (const std::string kind : {"triton", "mlserver"}) {
    if (o.servers.find(kind) == std::string::npos) continue;
    const std::string state = (work / (kind + ".json")).string();
    if (std::system(
            ("python3 " + shell_quote(o.serve) + " start " + kind + " " + shell_quote(state) + " >&2").c_str()) != 0) {
      std::cerr << "bench_remote: " << kind << " did not start\n";
      failed = true;
      continue;
    }
    nlohmann::json st = nlohmann::json::parse(std::ifstream(state));
    if (st.contains("skip")) {
      std::cerr << "bench_remote: skipping " << kind << ": " << st["skip"].get<std::string>() << "\n";
      continue;
    }
    const ServerAddress s{kind, st["http"], st["grpc"]};
    std::vector<Transport> transports = {{"rest_json"}, {"grpc"}};
    if (kind == "triton") transports.insert(transports.begin() + 1, Transport{"rest_binary"});

    for (const Transport& t : transports) {
      for (size_t floats : sizes) {
        std::vector<float> x(floats);
        for (size_t i = 0; i < floats; ++i) x[i] = static_cast<float>(i % 1000) * 0.5f;
        const fs::path in_dir = work / "in";
        fs::create_directories(in_dir);
        std::ofstream(in_dir / "x", std::ios::binary).write(reinterpret_cast<const char*>(x.data()), floats * 4);
        std::string error;
        auto host = make_host(o, s, t, &error);
        Program p;
        p.wasm_path = o.guest;
        p.dirs = {{in_dir.string(), "/in"}};
        auto guest = host ? GuestBench::start(*host, p, guest_args(floats, true), &error) : nullptr;
        if (!guest) {
          std::cerr << "bench_remote: " << kind << " " << t.name << ": " << error << "\n";
          failed = true;
          continue;
        }
        std::unique_ptr<CurlClient> curl;
        std::unique_ptr<GrpcClient> grpc;
        if (t.grpc())
          grpc = std::make_unique<GrpcClient>(s, x);
        else
          curl = std::make_unique<CurlClient>(s, t.name == "rest_binary", x);
        Step direct = [&](std::string* e) { return grpc ? grpc->infer(e) : curl->infer(e); };
        Step in_guest = [&](std::string* e) { return guest->infer(e); };
        TimingPlan plan;
        plan.seconds_per_side = o.seconds;
        plan.min_samples = 30;
        Comparison c;
        if (!compare_interleaved(plan, direct, in_guest, &c, &error)) {
          std::cerr << "bench_remote: " << kind << " " << t.name << " " << floats << ": " << error << "\n";
          failed = true;
          continue;
        }
        // The model is the identity: the guest's last output must be its input.
        std::string save_error;
        fs::remove(in_dir / "y");
        if (!guest->save_outputs(&save_error) || fs::file_size(in_dir / "y") != floats * 4) {
          std::cerr << "bench_remote: the guest's output was not saved: " << save_error << "\n";
          failed = true;
        } else {
          std::vector<float> y(floats);
          std::ifstream(in_dir / "y", std::ios::binary).read(reinterpret_cast<char*>(y.data()), floats * 4);
          if (y != x) {
            std::cerr << "bench_remote: " << kind << " " << t.name << ": wrong output\n";
            failed = true;
          }
        }
        const std::string size = floats == 16 ? "64 B" : "600 KB";
        table += fmt::format(
            "| {} | {} | {} | {:.3f} ms | {:.3f} ms | {:.3f} ({:.3f}–{:.3f}) | {:+.1f} µs | {:.3f} ms | {:.3f} ms | {} "
            "|\n",
            kind, t.name, size, fmt_ms(c.native.median_us), fmt_ms(c.guest.median_us), c.ratio(), c.ratio_95.low,
            c.ratio_95.high, c.overhead_us(), fmt_ms(c.native.p90_us), fmt_ms(c.guest.p90_us), c.guest.samples);
        results.push_back({{"server", kind},
                           {"transport", t.name},
                           {"bytes", floats * 4},
                           {"direct_median_us", c.native.median_us},
                           {"guest_median_us", c.guest.median_us},
                           {"ratio", c.ratio()},
                           {"ratio_low", c.ratio_95.low},
                           {"ratio_high", c.ratio_95.high}});
        // The official Python client, for reference (Triton's venv has it).
        if (kind == "triton") {
          const std::string py = std::string(std::getenv("HOME")) + "/.cache/wasinn/deps/venv-triton-" +
                                 WASINN_PYTRITON_VERSION + "/bin/python";
          const std::string cmd = fmt::format("{} {} {} 127.0.0.1:{} {} {} {}", py,
                                              shell_quote(fs::path(WASINN_BENCH_REMOTE_DIR) / "tritonclient_direct.py"),
                                              t.grpc() ? "grpc" : "http", t.grpc() ? s.grpc : s.http,
                                              t.name == "rest_binary" ? 1 : 0, floats, std::max(1.0, o.seconds / 2));
          if (FILE* f = popen(cmd.c_str(), "r")) {
            char buf[512] = {0};
            const size_t n = fread(buf, 1, sizeof buf - 1, f);
            pclose(f);
            auto j = nlohmann::json::parse(std::string(buf, n), nullptr, false);
            if (j.is_object())
              reference += fmt::format("| {} | {} | {:.3f} ms | {:.3f} ms | {:.2f} |\n", t.name, size,
                                       fmt_ms(j["median_us"].get<double>()), fmt_ms(c.guest.median_us),
                                       c.guest.median_us / j["median_us"].get<double>());
          }
        }
      }
      // Throughput: 1, 2, 4 guest instances on one host, one context and one thread each; and
      // the plain client with as many threads (a client each), to tell the client's limit from
      // the server's.
      const size_t floats = 16;
      const std::vector<float> x(floats, 1.0f);
      const fs::path in_dir = work / "in";
      std::ofstream(in_dir / "x", std::ios::binary).write(reinterpret_cast<const char*>(x.data()), floats * 4);
      std::string error;
      auto host = make_host(o, s, t, &error);
      std::vector<double> rates, direct_rates;
      // n threads each running `step(i)` for o.seconds; inferences per second, or -1 on failure.
      auto run_threads = [&](int n, const std::function<bool(int, std::string*)>& step) {
        std::atomic<long> done{0};
        std::atomic<bool> bad{false};
        const auto t0 = std::chrono::steady_clock::now();
        const auto end = t0 + std::chrono::duration<double>(o.seconds);
        std::vector<std::thread> threads;
        for (int i = 0; i < n; ++i)
          threads.emplace_back([&, i] {
            std::string e;
            while (std::chrono::steady_clock::now() < end) {
              if (!step(i, &e)) {
                bad = true;
                return;
              }
              ++done;
            }
          });
        for (auto& th : threads) th.join();
        const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        return bad ? -1.0 : done / secs;
      };
      for (int n : {1, 2, 4}) {
        std::vector<std::unique_ptr<GuestBench>> guests;
        std::vector<std::unique_ptr<CurlClient>> curls;
        std::vector<std::unique_ptr<GrpcClient>> grpcs;
        for (int i = 0; i < n && host; ++i) {
          Program p;
          p.wasm_path = o.guest;
          p.dirs = {{in_dir.string(), "/in"}};
          auto g = GuestBench::start(*host, p, guest_args(floats, false), &error);
          if (!g) break;
          guests.push_back(std::move(g));
          if (t.grpc())
            grpcs.push_back(std::make_unique<GrpcClient>(s, x));
          else
            curls.push_back(std::make_unique<CurlClient>(s, t.name == "rest_binary", x));
        }
        if (static_cast<int>(guests.size()) != n) {
          std::cerr << "bench_remote: throughput: " << error << "\n";
          failed = true;
          break;
        }
        const double guest_rate = run_threads(n, [&](int i, std::string* e) { return guests[i]->infer(e); });
        const double direct_rate =
            run_threads(n, [&](int i, std::string* e) { return t.grpc() ? grpcs[i]->infer(e) : curls[i]->infer(e); });
        if (guest_rate < 0 || direct_rate < 0) failed = true;
        rates.push_back(guest_rate);
        direct_rates.push_back(direct_rate);
      }
      if (rates.size() == 3)
        scaling += fmt::format("| {} | {} | {:.0f} ({:.0f}) | {:.0f} ({:.0f}), {:.2f}x | {:.0f} ({:.0f}), {:.2f}x |\n",
                               kind, t.name, rates[0], direct_rates[0], rates[1], direct_rates[1], rates[1] / rates[0],
                               rates[2], direct_rates[2], rates[2] / rates[0]);
    }
    std::system(("python3 " + shell_quote(o.serve) + " stop " + shell_quote(state) + " >&2").c_str());
  }
  fs::remove_all(work);

  fmt::print(
      "Remote backend (`bench_remote`, identity_fp32 on loopback; direct = a plain libcurl or grpc++ client "
      "sending a prebuilt request, interleaved with the guest; {:.0f} s of samples per side and row):\n\n",
      o.seconds);
  fmt::print(
      "| server | transport | input | direct median | guest median | guest / direct (95% CI) | overhead | "
      "direct p90 | guest p90 | samples |\n|---|---|---|---:|---:|---:|---:|---:|---:|---:|\n{}\n",
      table);
  if (!reference.empty())
    fmt::print(
        "The official Python `tritonclient` on the same Triton, run alone:\n\n| transport | input | tritonclient "
        "median | guest median | guest / tritonclient |\n|---|---|---:|---:|---:|\n{}\n",
        reference);
  fmt::print(
      "Throughput with 1, 2 and 4 contexts in flight, inferences/s (64 B input; one guest instance, context "
      "and host thread each, one wasinn host; in parentheses the plain client with as many threads; the ratio "
      "is the guest's against its 1-context rate):\n\n| server | transport | 1 | 2 | 4 |\n|---|---|---:|---:|---:|\n{}",
      scaling);
  if (!o.json_out.empty()) std::ofstream(o.json_out) << results.dump(2);
  return failed ? 1 : 0;
}
