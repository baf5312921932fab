// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// REST transport: libcurl easy handles, each in a multi handle of its own so that a cancel from
// the host's watchdog wakes the wait at once (curl_multi_wakeup). Handle pairs are pooled per
// graph: a compute borrows one and returns it, so connections are reused across computes and
// contexts, and contexts in flight at once each use their own connection.
#include <curl/curl.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <mutex>
#include <thread>

#include "oip/binary_codec.h"
#include "oip/json_codec.h"
#include "transport.h"

namespace wasinn::remote {

void backoff_sleep(unsigned attempt) {
  const unsigned ms = std::min(2000u, 100u << std::min(attempt - 1, 5u));
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
}

namespace {

void curl_init_once() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

struct Handles {
  CURLM* multi = nullptr;
  CURL* easy = nullptr;
  Handles() : multi(curl_multi_init()), easy(curl_easy_init()) {}
  ~Handles() {
    if (easy) curl_easy_cleanup(easy);
    if (multi) curl_multi_cleanup(multi);
  }
  Handles(const Handles&) = delete;
  Handles& operator=(const Handles&) = delete;
};

struct Response {
  CURLcode code = CURLE_OK;  // the transfer's outcome
  long status = 0;
  std::vector<uint8_t> body;
  std::optional<size_t> header_length;
  size_t max_bytes = 0;
  bool too_large = false;
};

size_t on_body(char* data, size_t, size_t n, void* user) {
  auto* r = static_cast<Response*>(user);
  if (r->body.size() + n > r->max_bytes) {
    r->too_large = true;
    return 0;  // aborts the transfer with CURLE_WRITE_ERROR
  }
  r->body.insert(r->body.end(), data, data + n);
  return n;
}

size_t on_header(char* data, size_t, size_t n, void* user) {
  auto* r = static_cast<Response*>(user);
  std::string_view line(data, n);
  const std::string_view field = kHeaderLengthField;
  if (line.size() > field.size() + 1 && line[field.size()] == ':' &&
      strncasecmp(line.data(), field.data(), field.size()) == 0) {
    std::string value(line.substr(field.size() + 1));
    char* end = nullptr;
    const unsigned long long v = std::strtoull(value.c_str(), &end, 10);
    if (end != value.c_str()) r->header_length = static_cast<size_t>(v);
  }
  // The body's size, announced: reserved at once rather than grown by copies (600 KB outputs).
  constexpr std::string_view kLength = "Content-Length:";
  if (line.size() > kLength.size() && strncasecmp(line.data(), kLength.data(), kLength.size()) == 0) {
    const unsigned long long v = std::strtoull(std::string(line.substr(kLength.size())).c_str(), nullptr, 10);
    if (v <= r->max_bytes) r->body.reserve(static_cast<size_t>(v));
  }
  // A new response (after a 100 Continue or a redirect) starts over.
  if (line.starts_with("HTTP/")) r->header_length.reset();
  return n;
}

// Whether a failure may be retried by an idempotent call: the server was not reached, or said
// it is not ready.
bool transient(CURLcode code, long status) {
  switch (code) {
    case CURLE_COULDNT_CONNECT:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_COULDNT_RESOLVE_HOST: return true;
    case CURLE_OK: return status == 502 || status == 503 || status == 504;
    default: return false;
  }
}

class RestTransport;

class RestCall final : public Call {
 public:
  explicit RestCall(RestTransport& t) : transport_(t) {}
  sdk::Error infer(std::span<const InputTensor> inputs, std::span<const std::string> output_names,
                   std::vector<OutputTensor>& outputs) override;
  void cancel() noexcept override {
    slot_.cancel([](CURLM* m) { curl_multi_wakeup(m); });
  }
  void reset_cancel() noexcept override { slot_.reset(); }
  // The multi handle a running request waits in, which cancel() wakes.
  CancelSlot<CURLM>& slot() { return slot_; }

 private:
  RestTransport& transport_;
  CancelSlot<CURLM> slot_;
};

class RestTransport final : public Transport {
 public:
  explicit RestTransport(const ModelTarget& t) : target_(t) {
    curl_init_once();
    for (const auto& [k, v] : target_.headers) header_lines_.push_back(k + ": " + v);
  }

  sdk::Error start() {
    // GET /v2: is the server there, and does it take binary tensors?
    Response r;
    if (sdk::Error e = get_retried("/v2", r)) return e;
    const auto ext =
        decode_server_extensions_json(std::string_view(reinterpret_cast<const char*>(r.body.data()), r.body.size()));
    binary_ = target_.binary_tensors && std::find(ext.begin(), ext.end(), kBinaryExtension) != ext.end();
    return {};
  }

  sdk::Error model_metadata(ModelMeta& out) override {
    Response r;
    if (sdk::Error e = get_retried(target_.url.rest_model_path(), r)) return e;
    return decode_model_metadata_json(std::string_view(reinterpret_cast<const char*>(r.body.data()), r.body.size()),
                                      out);
  }

  std::unique_ptr<Call> open_call() override { return std::make_unique<RestCall>(*this); }
  std::string describe() const override {
    return std::string(binary_ ? "REST binary tensors" : "REST JSON") + " at " + target_.url.text();
  }

  bool binary() const { return binary_; }
  const ModelTarget& target() const { return target_; }

  // One HTTP exchange on a pooled handle pair. A transport failure or an HTTP error status is
  // an Error whose status says which; `call` (may be null) can cancel it.
  sdk::Error perform(const std::string& path, const std::string* post_body, std::optional<size_t> json_length,
                     Response& resp, RestCall* call) {
    std::unique_ptr<Handles> h = borrow();
    if (!h->multi || !h->easy) return sdk::runtime_error("remote: libcurl could not make a handle");
    CURL* e = h->easy;
    curl_easy_reset(e);  // keeps the connection cache, which lives in the multi handle
    const std::string url = target_.url.base() + path;
    char errbuf[CURL_ERROR_SIZE] = {0};
    curl_easy_setopt(e, CURLOPT_URL, url.c_str());
    curl_easy_setopt(e, CURLOPT_ERRORBUFFER, errbuf);
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, static_cast<long>(target_.timeout_ms));
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(target_.connect_timeout_ms));
    curl_easy_setopt(e, CURLOPT_TCP_NODELAY, 1L);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, &resp);
    curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(e, CURLOPT_HEADERDATA, &resp);
    curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
    if (!target_.ca_file.empty()) curl_easy_setopt(e, CURLOPT_CAINFO, target_.ca_file.c_str());
    if (!target_.cert_file.empty()) {
      curl_easy_setopt(e, CURLOPT_SSLCERT, target_.cert_file.c_str());
      curl_easy_setopt(e, CURLOPT_SSLKEY, target_.key_file.c_str());
    }
    resp = {};
    resp.max_bytes = target_.max_message_bytes;
    curl_slist* headers = nullptr;
    for (const auto& line : header_lines_) headers = curl_slist_append(headers, line.c_str());
    headers = curl_slist_append(headers, "Expect:");  // no 100-continue round trip
    std::string length_line;
    if (post_body) {
      headers = curl_slist_append(
          headers, json_length ? "Content-Type: application/octet-stream" : "Content-Type: application/json");
      if (json_length) {
        length_line = std::string(kHeaderLengthField) + ": " + std::to_string(*json_length);
        headers = curl_slist_append(headers, length_line.c_str());
      }
      curl_easy_setopt(e, CURLOPT_POSTFIELDS, post_body->data());
      curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(post_body->size()));
    }
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, headers);

    CURLcode code = CURLE_OK;
    bool cancelled = false;
    curl_multi_add_handle(h->multi, e);
    if (call) call->slot().set_active(h->multi);
    for (;;) {
      int running = 0;
      if (curl_multi_perform(h->multi, &running) != CURLM_OK) {
        code = CURLE_RECV_ERROR;
        break;
      }
      if (call && call->slot().cancelled()) {
        cancelled = true;
        break;
      }
      if (!running) {
        int left = 0;
        while (CURLMsg* m = curl_multi_info_read(h->multi, &left))
          if (m->msg == CURLMSG_DONE) code = m->data.result;
        break;
      }
      curl_multi_poll(h->multi, nullptr, 0, 1000, nullptr);
    }
    if (call) call->slot().set_active(nullptr);
    resp.code = code;
    curl_multi_remove_handle(h->multi, e);
    curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &resp.status);
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, nullptr);
    curl_slist_free_all(headers);
    // A pair whose transfer failed or was cancelled is dropped, not pooled: its multi handle
    // kept answering "couldn't connect" after the server came back.
    if (code == CURLE_OK && !cancelled) give_back(std::move(h));

    const std::string where = target_.url.base() + path;
    if (cancelled) return {WASINN_TIMEOUT, "remote: the request to " + where + " was cancelled"};
    if (resp.too_large)
      return {WASINN_TOO_LARGE, "remote: the response from " + where + " exceeds max_message_bytes (" +
                                    std::to_string(target_.max_message_bytes) + ")"};
    if (code == CURLE_OPERATION_TIMEDOUT)
      return {WASINN_TIMEOUT,
              "remote: no answer from " + where + " within " + std::to_string(target_.timeout_ms) + " ms"};
    if (code != CURLE_OK)
      return sdk::runtime_error("remote: " + where + ": " + curl_easy_strerror(code) +
                                (errbuf[0] ? std::string(" (") + sdk::one_line(errbuf) + ")" : ""));
    if (resp.status >= 400) {
      const std::string text =
          error_text_json(std::string_view(reinterpret_cast<const char*>(resp.body.data()), resp.body.size()));
      const std::string detail = "remote: " + where + " answered HTTP " + std::to_string(resp.status) + ": " + text;
      // A request the server understood but cannot serve (Triton: "receiving FP16 data via JSON
      // is not supported") is the server's unsupported operation, not the guest's mistake.
      if ((resp.status == 400 || resp.status == 422) && text.find("not supported") != std::string::npos)
        return sdk::unsupported(detail);
      switch (resp.status) {
        case 400:
        case 422: return sdk::invalid(detail);
        case 401:
        case 403: return {WASINN_SECURITY, detail};
        case 404: return {WASINN_NOT_FOUND, detail};
        case 413: return {WASINN_TOO_LARGE, detail};
        case 501: return sdk::unsupported(detail);
        default: return sdk::runtime_error(detail);
      }
    }
    return {};
  }

 private:
  sdk::Error get_retried(const std::string& path, Response& r) {
    for (unsigned attempt = 0;; ++attempt) {
      if (attempt) backoff_sleep(attempt);
      sdk::Error e = perform(path, nullptr, std::nullopt, r, nullptr);
      // Retry only what a retry can fix.
      if (!e || attempt >= target_.retries || !transient(r.code, r.status)) return e;
    }
  }

  std::unique_ptr<Handles> borrow() {
    {
      std::lock_guard lock(pool_mu_);
      if (!pool_.empty()) {
        auto h = std::move(pool_.back());
        pool_.pop_back();
        return h;
      }
    }
    return std::make_unique<Handles>();
  }
  void give_back(std::unique_ptr<Handles> h) {
    std::lock_guard lock(pool_mu_);
    if (pool_.size() < 64) pool_.push_back(std::move(h));
  }

  const ModelTarget target_;
  std::vector<std::string> header_lines_;  // never logged
  bool binary_ = false;
  std::mutex pool_mu_;
  std::vector<std::unique_ptr<Handles>> pool_;
};

sdk::Error RestCall::infer(std::span<const InputTensor> inputs, std::span<const std::string> output_names,
                           std::vector<OutputTensor>& outputs) {
  std::string body;
  std::optional<size_t> json_length;
  if (transport_.binary()) {
    size_t n = 0;
    body = encode_infer_binary(inputs, output_names, &n);
    json_length = n;
  } else {
    body = encode_infer_json(inputs, output_names, false);
  }
  Response r;
  if (sdk::Error e =
          transport_.perform(transport_.target().url.rest_model_path() + "/infer", &body, json_length, r, this))
    return e;
  return decode_infer_response(r.body, r.header_length, outputs);
}

}  // namespace

sdk::Error make_rest_transport(const ModelTarget& target, std::unique_ptr<Transport>& out) {
  return start_transport<RestTransport>(target, out);
}

}  // namespace wasinn::remote
