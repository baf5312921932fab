// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "core/log.h"

#include <mutex>

#include <spdlog/sinks/base_sink.h>
#include <spdlog/sinks/dist_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>

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

struct Outputs {
  std::shared_ptr<spdlog::sinks::dist_sink_mt> dist = std::make_shared<spdlog::sinks::dist_sink_mt>();
  std::shared_ptr<spdlog::sinks::sink> stderr_sink = std::make_shared<spdlog::sinks::stderr_color_sink_mt>();
  std::shared_ptr<spdlog::logger> logger;
  std::mutex mu;      // attached and the dist sink's set of sinks change together
  size_t attached = 0;

  Outputs() {
    dist->add_sink(stderr_sink);
    logger = std::make_shared<spdlog::logger>("wasinn", dist);
    logger->set_pattern("wasinn: %^%l%$: %v");
  }
};

// Never destroyed: frameworks log from their own threads and from static destructors.
Outputs& outputs() {
  static auto* const o = new Outputs();
  return *o;
}

}  // namespace

spdlog::logger& logger() { return *outputs().logger; }
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
