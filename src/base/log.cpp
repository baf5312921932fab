// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "base/log.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <thread>

#include <fmt/chrono.h>
#include <nlohmann/json.hpp>
#include <spdlog/details/console_globals.h>
#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/base_sink.h>
#include <spdlog/sinks/dist_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/sinks/stdout_sinks.h>

namespace wasinn {
namespace {

class CallbackSink final : public spdlog::sinks::base_sink<std::mutex> {
 public:
  explicit CallbackSink(AttachedLogCallback::Callback callback) : callback_(std::move(callback)) {}

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    callback_(msg.level, std::string_view(msg.payload.data(), msg.payload.size()));
  }
  void flush_() override {}

 private:
  AttachedLogCallback::Callback callback_;
};

// The fields of the line being logged on this thread (log_with_fields): spdlog's sinks format
// on the logging thread, and spdlog 1.10 has no structured fields of its own.
thread_local const nlohmann::json* t_fields = nullptr;

// One JSON object per line: time, level, message, then the line's fields.
class JsonLineFormatter final : public spdlog::formatter {
 public:
  void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override {
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(msg.time.time_since_epoch()).count() % 1000;
    nlohmann::ordered_json line = {
        {"time", fmt::format("{:%FT%T}.{:03}Z", fmt::gmtime(std::chrono::system_clock::to_time_t(msg.time)), ms)},
        {"level",
         std::string(spdlog::level::to_string_view(msg.level).data(), spdlog::level::to_string_view(msg.level).size())},
        {"message", std::string(msg.payload.data(), msg.payload.size())}};
    if (t_fields && t_fields->is_object()) {
      for (const auto& [key, value] : t_fields->items()) {
        if (!line.contains(key)) line[key] = value;
      }
    }
    // Frameworks' and guests' bytes need not be UTF-8: replaced, never a throw.
    const std::string text = line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    dest.append(text.data(), text.data() + text.size());
    dest.push_back('\n');
  }
  std::unique_ptr<spdlog::formatter> clone() const override { return std::make_unique<JsonLineFormatter>(); }
};

constexpr const char* kTextPattern = "wasinn: %^%l%$: %v";

// batch_log_lines' sink: lines below warn are held, and a thread of its own writes them one
// interval after the first of them came (or at once past kMaxHeldBytes, or with a warning).
class BatchingSink final : public spdlog::sinks::base_sink<std::mutex> {
 public:
  BatchingSink(FILE* out, std::chrono::microseconds interval)
      : out_(out), interval_(interval), flusher_([this] { write_when_due(); }) {}
  ~BatchingSink() override {
    {
      std::lock_guard lock(wake_mu_);
      stop_ = true;
    }
    wake_cv_.notify_one();
    flusher_.join();
    flush();
  }

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    const bool first = held_.size() == 0;
    formatter_->format(msg, held_);
    if (msg.level >= spdlog::level::warn || held_.size() >= kMaxHeldBytes) {
      write_held();
    } else if (first) {
      {
        std::lock_guard lock(wake_mu_);
        due_ = true;
      }
      wake_cv_.notify_one();
    }
  }
  void flush_() override { write_held(); }

 private:
  static constexpr size_t kMaxHeldBytes = 64 * 1024;

  void write_held() {  // under base_sink's mutex
    if (held_.size() == 0) return;
    std::fwrite(held_.data(), 1, held_.size(), out_);
    std::fflush(out_);
    held_.clear();
  }
  void write_when_due() {
    std::unique_lock lock(wake_mu_);
    for (;;) {
      wake_cv_.wait(lock, [&] { return due_ || stop_; });
      if (stop_) return;
      // The batch's first line waits one interval for the lines after it.
      wake_cv_.wait_for(lock, interval_, [&] { return stop_; });
      due_ = false;
      lock.unlock();
      flush();
      lock.lock();
    }
  }

  FILE* const out_;
  const std::chrono::microseconds interval_;
  spdlog::memory_buf_t held_;
  std::mutex wake_mu_;  // due_ and stop_; taken after base_sink's mutex, never before
  std::condition_variable wake_cv_;
  bool due_ = false, stop_ = false;
  std::thread flusher_;  // last: it starts on the members above
};

std::shared_ptr<spdlog::sinks::sink> make_output_sink(LogFormat format, FILE* out, std::chrono::microseconds batch) {
  std::shared_ptr<spdlog::sinks::sink> sink;
  if (batch.count() > 0 && !::isatty(::fileno(out)))
    sink = std::make_shared<BatchingSink>(out, batch);
  else if (out == stderr)
    sink = std::make_shared<spdlog::sinks::stderr_color_sink_mt>();
  else
    sink = std::make_shared<spdlog::sinks::stdout_sink_base<spdlog::details::console_mutex>>(out);
  if (format == LogFormat::json)
    sink->set_formatter(std::make_unique<JsonLineFormatter>());
  else
    sink->set_formatter(std::make_unique<spdlog::pattern_formatter>(kTextPattern));
  return sink;
}

struct Outputs {
  std::shared_ptr<spdlog::sinks::dist_sink_mt> dist = std::make_shared<spdlog::sinks::dist_sink_mt>();
  std::shared_ptr<spdlog::sinks::sink> stderr_sink = make_output_sink(LogFormat::text, stderr, {});
  std::shared_ptr<spdlog::logger> logger;
  std::mutex mu;  // attached, the output's settings and the dist sink's set of sinks change together
  size_t attached = 0;
  std::atomic<LogFormat> format{LogFormat::text};
  FILE* out = stderr;
  std::chrono::microseconds batch{0};

  Outputs() {
    dist->add_sink(stderr_sink);
    logger = std::make_shared<spdlog::logger>("wasinn", dist);
  }

  // Under mu: stderr's lines go to a sink made for the settings now (what the old one held first).
  void remake_output() {
    auto sink = make_output_sink(format, out, batch);
    if (attached == 0) dist->set_sinks({sink});  // one step: no line falls between two sinks
    stderr_sink->flush();
    stderr_sink = std::move(sink);
  }
};

// Never destroyed: frameworks log from their own threads and from static destructors.
Outputs& outputs() {
  static auto* const o = new Outputs();
  return *o;
}

}  // namespace

spdlog::logger& logger() { return *outputs().logger; }

void set_log_format(LogFormat format, FILE* out) {
  Outputs& o = outputs();
  std::lock_guard lock(o.mu);
  o.format = format;
  o.out = out;
  o.remake_output();
}

LogFormat log_format() { return outputs().format.load(); }

void batch_log_lines(std::chrono::microseconds interval) {
  Outputs& o = outputs();
  {
    std::lock_guard lock(o.mu);
    o.batch = interval;
    o.remake_output();
  }
  static std::once_flag at_exit;
  std::call_once(at_exit, [] { std::atexit([] { flush_log(); }); });
}

void flush_log() {
  Outputs& o = outputs();
  std::lock_guard lock(o.mu);
  o.stderr_sink->flush();
}

void log_with_fields(spdlog::level::level_enum level, std::string_view message, const nlohmann::json& fields,
                     bool always) {
  spdlog::logger& l = logger();
  if (!always && !l.should_log(level)) return;
  t_fields = &fields;
  if (always) {
    // What logger::log does, less its level check: each sink still filters by its own level.
    const spdlog::details::log_msg msg(l.name(), level, spdlog::string_view_t(message.data(), message.size()));
    for (auto& sink : l.sinks()) sink->log(msg);
  } else {
    l.log(level, "{}", message);
  }
  t_fields = nullptr;
}
std::shared_ptr<spdlog::logger> shared_logger() { return outputs().logger; }

AttachedLogCallback::AttachedLogCallback(Callback callback)
    : sink_(std::make_shared<CallbackSink>(std::move(callback))) {
  Outputs& o = outputs();
  std::lock_guard lock(o.mu);
  if (o.attached++ == 0) o.dist->remove_sink(o.stderr_sink);
  o.dist->add_sink(sink_);
}

AttachedLogCallback::~AttachedLogCallback() {
  Outputs& o = outputs();
  std::lock_guard lock(o.mu);
  o.dist->remove_sink(sink_);
  if (--o.attached == 0) o.dist->add_sink(o.stderr_sink);
}

}  // namespace wasinn
