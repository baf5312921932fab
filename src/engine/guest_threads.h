// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// GuestThreads: one running guest of a wasi-threads module (one that imports a shared memory):
// the memory, the one NnSession all its threads share, and every thread `wasi.thread-spawn`
// made. Each thread has its own store and instance over the same module and memory, so wasi-nn
// handles are valid in every thread of the guest and in no other guest.
//
// The guest ends at the first of: its main entry returning, proc_exit or a trap in any thread.
// That first outcome is the guest's; every other thread is then interrupted at its next epoch
// check (a compute in progress finishes first) and joined. A thread that does not stop within
// the grace period (parked in memory.atomic.wait, which nothing can interrupt, or in a long host
// call other than wasi-nn's) is left running on its own references and counted in
// RunOutcome::unstopped_threads.
//
// Thread-safe. Owned through shared_ptr: each guest thread holds one until it returns.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/error.h"
#include "core/nn_session.h"
#include "engine/guest_state.h"
#include "engine/wasmtime_ptr.h"
#include "wasinn/host.h"

namespace wasinn {

// The shared memory a module imports, if it imports one (nullopt for an ordinary module).
struct SharedMemoryImport {
  std::string module;
  std::string name;
  uint64_t min_pages = 0;
  uint64_t max_pages = 0;
};
std::optional<SharedMemoryImport> shared_memory_import(const wasmtime_module_t* module);

// How long a guest's end waits for its other threads to stop before leaving them running.
inline constexpr std::chrono::milliseconds kThreadGrace{200};

// One store and instance of the guest: the main thread's or a spawned thread's.
struct GuestThreadStore {
  std::unique_ptr<GuestState> state;  // the store's data pointer: outlives the store
  StorePtr store;
  wasmtime_instance_t instance{};
  ~GuestThreadStore() { store.reset(); }
};

class GuestThreads : public std::enable_shared_from_this<GuestThreads> {
 public:
  struct Settings {
    wasm_engine_t* engine = nullptr;  // has epoch interruption on; outlives this object
    ModulePtr module;
    SharedMemoryImport memory;
    std::function<Result<WasiConfigPtr>()> make_wasi;  // one WASI context per thread
    std::shared_ptr<NnSession> session;
    uint64_t timeout_ms = 0;
    std::string timeout_option;  // how the caller set each limit, for messages (OptionNames)
    uint64_t max_memory_bytes = 0;
    std::string max_memory_option;
    size_t max_threads = 0;
  };
  static Result<std::shared_ptr<GuestThreads>> create(Settings settings);
  ~GuestThreads();

  // A store and instance for the calling (main) thread; `name` names the module in errors.
  Result<std::unique_ptr<GuestThreadStore>> instantiate(const std::string& name);

  // Records how the guest ended; the first call wins. Returns whether this call was first.
  bool end(RunOutcome outcome);
  // Blocks until end() was called, and returns that outcome.
  RunOutcome wait_for_end();
  // Interrupts every thread and joins them, waiting at most `grace` for stragglers; returns
  // how many were left running. Safe to call more than once.
  size_t stop(std::chrono::milliseconds grace);

  // Runs `main` on a thread of its own, as the guest's main thread (it ends the guest with its
  // outcome when it returns), so that the caller can return when another thread ends the guest.
  void start_main(std::function<RunOutcome()> main);

  bool ending() const { return ending_.load(std::memory_order_acquire); }
  uint64_t timeout_ms() const { return settings_.timeout_ms; }
  const std::string& timeout_option() const { return settings_.timeout_option; }
  bool past_timeout() const {
    return settings_.timeout_ms > 0 &&
           std::chrono::steady_clock::now() - started_ >= std::chrono::milliseconds(settings_.timeout_ms);
  }

 private:
  explicit GuestThreads(Settings settings);
  Status link();
  int32_t spawn(int32_t start_arg);
  void run_thread(std::unique_ptr<GuestThreadStore> store, int32_t tid, int32_t start_arg);
  void thread_finished(bool spawned);
  void join_finished();  // with mu_ held
  static wasm_trap_t* thread_spawn_callback(void* env, wasmtime_caller_t* caller, const wasmtime_val_t* args,
                                            size_t nargs, wasmtime_val_t* results, size_t nresults);

  Settings settings_;
  wasmtime_sharedmemory_t* memory_ = nullptr;
  LinkerPtr linker_;  // this guest's own: it holds the shared memory
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();

  std::atomic<bool> ending_{false};
  std::atomic<int> nn_calls_{0};  // threads inside a wasi-nn call (GuestState::nn_calls)
  std::mutex mu_;
  std::condition_variable cv_;
  std::optional<RunOutcome> outcome_;
  std::vector<std::thread> threads_;
  std::vector<std::thread::id> finished_;  // threads that returned and may be joined at once
  size_t running_ = 0;                     // threads (spawned and main) that have not returned
  size_t spawned_running_ = 0;             // of those, the spawned ones: what --max-threads bounds
  int32_t next_tid_ = 1;
};

}  // namespace wasinn
