// EpochTicker: advances a Wasmtime engine's epoch every tick, so that stores given a deadline
// (--timeout, -W timeout=) are interrupted once it passes.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "engine/wasmtime_ptr.h"

namespace wasinn {

class EpochTicker {
 public:
  static constexpr auto kTick = std::chrono::milliseconds(10);
  explicit EpochTicker(const wasm_engine_t* engine) : thread_([this, engine] {
    std::unique_lock lock(mu_);
    while (!cv_.wait_for(lock, kTick, [this] { return stop_; })) wasmtime_engine_increment_epoch(engine);
  }) {}
  ~EpochTicker() {
    {
      std::lock_guard lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  EpochTicker(const EpochTicker&) = delete;
  EpochTicker& operator=(const EpochTicker&) = delete;

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace wasinn
