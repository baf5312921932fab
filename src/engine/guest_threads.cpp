// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "engine/guest_threads.h"

#include <algorithm>
#include <exception>
#include <system_error>

#include <fmt/format.h>

#include "base/log.h"
#include "engine/call_outcome.h"
#include "engine/epoch_ticker.h"
#include "engine/logging_imports.h"
#include "engine/nn_imports.h"

namespace wasinn {

namespace {

constexpr uint64_t kPageBytes = 64 * 1024;
// wasi-libc's pthread_create turns any negative result into EAGAIN; -6 is WASI's EAGAIN.
constexpr int32_t kSpawnFailed = -6;
// Thread ids are positive and below 2^29 (the wasi-threads proposal).
constexpr int32_t kMaxTid = 0x1FFFFFFF;
constexpr char kThreadStart[] = "wasi_thread_start";

// Called whenever an epoch passes a thread's deadline (the engine's epoch moves only under a
// --timeout ticker, or once when the guest ends): stop the thread, or let it run one more tick.
wasmtime_error_t* on_epoch(wasmtime_context_t*, void* data, uint64_t* delta, wasmtime_update_deadline_kind_t* kind) {
  auto* guest = static_cast<GuestThreads*>(data);
  if (guest->ending()) return wasmtime_error_new("the guest ended in another thread");
  if (guest->past_timeout()) {
    guest->end(RunOutcome{kTrapExit, true, timeout_words(guest->timeout_ms(), guest->timeout_option()), {}});
    return wasmtime_error_new(timeout_words(guest->timeout_ms(), guest->timeout_option()).c_str());
  }
  *delta = 1;
  *kind = WASMTIME_UPDATE_DEADLINE_CONTINUE;
  return nullptr;
}

}  // namespace

std::optional<SharedMemoryImport> shared_memory_import(const wasmtime_module_t* module) {
  wasm_importtype_vec_t imports;
  wasmtime_module_imports(module, &imports);
  std::optional<SharedMemoryImport> found;
  for (size_t i = 0; i < imports.size && !found; ++i) {
    const wasm_externtype_t* type = wasm_importtype_type(imports.data[i]);
    if (wasm_externtype_kind(type) != WASM_EXTERN_MEMORY) continue;
    const wasm_memorytype_t* mem = wasm_externtype_as_memorytype_const(type);
    if (!wasmtime_memorytype_isshared(mem)) continue;
    const wasm_name_t* m = wasm_importtype_module(imports.data[i]);
    const wasm_name_t* n = wasm_importtype_name(imports.data[i]);
    SharedMemoryImport out{std::string(m->data, m->size), std::string(n->data, n->size),
                           wasmtime_memorytype_minimum(mem), 0};
    wasmtime_memorytype_maximum(mem, &out.max_pages);  // a shared memory always declares one
    found = std::move(out);
  }
  wasm_importtype_vec_delete(&imports);
  return found;
}

GuestThreads::GuestThreads(Settings settings) : settings_(std::move(settings)) {}

GuestThreads::~GuestThreads() {
  stop(std::chrono::milliseconds(0));
  linker_.reset();
  if (memory_) wasmtime_sharedmemory_delete(memory_);
}

Result<std::shared_ptr<GuestThreads>> GuestThreads::create(Settings settings) {
  std::shared_ptr<GuestThreads> guest(new GuestThreads(std::move(settings)));
  if (auto linked = guest->link(); !linked.ok()) return linked.take_error();
  return guest;
}

Status GuestThreads::link() {
  const auto& m = settings_.memory;
  uint64_t max_pages = m.max_pages;
  if (settings_.max_memory_bytes > 0) {
    max_pages = std::min(max_pages, settings_.max_memory_bytes / kPageBytes);
    if (max_pages < m.min_pages) {
      return make_error(Errc::too_large,
                        fmt::format("the module's shared memory starts at {} bytes, more than the memory limit of {} "
                                    "bytes ({})",
                                    m.min_pages * kPageBytes, settings_.max_memory_bytes, settings_.max_memory_option));
    }
  }
  wasm_memorytype_t* type = nullptr;
  if (ErrorPtr err(wasmtime_memorytype_new(m.min_pages, true, max_pages, false, true, 16, &type)); err) {
    return make_error(Errc::runtime_error, "shared memory type: " + message_of(err.get()));
  }
  ErrorPtr made(wasmtime_sharedmemory_new(settings_.engine, type, &memory_));
  wasm_memorytype_delete(type);
  if (made) return make_error(Errc::too_large, "cannot create the shared memory: " + message_of(made.get()));

  linker_.reset(wasmtime_linker_new(settings_.engine));
  if (ErrorPtr err(wasmtime_linker_define_wasi(linker_.get())); err) {
    return make_error(Errc::runtime_error, "defining WASI: " + message_of(err.get()));
  }
  Status nn = define_ephemeral_nn(linker_.get());
  if (nn.ok()) nn = define_legacy_nn(linker_.get());
  if (nn.ok()) nn = define_wasi_logging(linker_.get());
  if (!nn.ok()) return nn;
  wasm_valtype_vec_t params, results;
  wasm_valtype_vec_new_uninitialized(&params, 1);
  params.data[0] = wasm_valtype_new(WASM_I32);
  wasm_valtype_vec_new_uninitialized(&results, 1);
  results.data[0] = wasm_valtype_new(WASM_I32);
  wasm_functype_t* spawn_type = wasm_functype_new(&params, &results);
  ErrorPtr spawn_err(wasmtime_linker_define_func(linker_.get(), "wasi", 4, "thread-spawn", 12, spawn_type,
                                                 thread_spawn_callback, this, nullptr));
  wasm_functype_delete(spawn_type);
  if (spawn_err) return make_error(Errc::runtime_error, "defining wasi::thread-spawn: " + message_of(spawn_err.get()));
  // A shared memory belongs to no store; the linker still asks for one to define it.
  StorePtr scratch(wasmtime_store_new(settings_.engine, nullptr, nullptr));
  wasmtime_extern_t item;
  item.kind = WASMTIME_EXTERN_SHAREDMEMORY;
  item.of.sharedmemory = memory_;
  if (ErrorPtr err(wasmtime_linker_define(linker_.get(), wasmtime_store_context(scratch.get()), m.module.data(),
                                          m.module.size(), m.name.data(), m.name.size(), &item));
      err) {
    return make_error(Errc::runtime_error, "defining the shared memory: " + message_of(err.get()));
  }
  return {};
}

Result<std::unique_ptr<GuestThreadStore>> GuestThreads::instantiate(const std::string& name) {
  auto out = std::make_unique<GuestThreadStore>();
  out->state = std::make_unique<GuestState>();
  out->state->session = settings_.session;
  out->state->shared_memory = memory_;
  out->state->nn_calls = &nn_calls_;
  out->store.reset(wasmtime_store_new(settings_.engine, out->state.get(), nullptr));
  EpochTicker::limit_memory(out->store.get(), settings_.max_memory_bytes);
  wasmtime_context_t* cx = wasmtime_store_context(out->store.get());
  // Every thread stops at its next check once the guest ends (or its --timeout passes).
  wasmtime_context_set_epoch_deadline(cx, 1);
  wasmtime_store_epoch_deadline_callback(out->store.get(), on_epoch, this, nullptr);
  auto wasi = settings_.make_wasi();
  if (!wasi) return wasi.take_error();
  if (ErrorPtr err(wasmtime_context_set_wasi(cx, wasi->release())); err) {
    return make_error(Errc::runtime_error, message_of(err.get()));
  }
  wasm_trap_t* trap = nullptr;
  if (ErrorPtr err(wasmtime_linker_instantiate(linker_.get(), cx, settings_.module.get(), &out->instance, &trap));
      err) {
    return make_error(Errc::runtime_error, fmt::format("cannot instantiate {}: {}", name, message_of(err.get())));
  }
  if (trap) {
    TrapPtr t(trap);
    return make_error(Errc::runtime_error, fmt::format("{} trapped while starting: {}", name, message_of(t.get())));
  }
  return out;
}

wasm_trap_t* GuestThreads::thread_spawn_callback(void* env, wasmtime_caller_t*, const wasmtime_val_t* args, size_t,
                                                 wasmtime_val_t* results, size_t) {
  results[0].kind = WASMTIME_I32;
  try {
    results[0].of.i32 = static_cast<GuestThreads*>(env)->spawn(args[0].of.i32);
  } catch (const std::exception& e) {  // nothing may unwind into Wasmtime's frames
    logger().warn("wasi::thread-spawn: {}", e.what());
    results[0].of.i32 = kSpawnFailed;
  }
  return nullptr;
}

int32_t GuestThreads::spawn(int32_t start_arg) {
  int32_t tid = 0;
  {
    std::lock_guard lock(mu_);
    if (ending()) return kSpawnFailed;
    join_finished();
    if (spawned_running_ >= settings_.max_threads) {
      logger().warn("wasi::thread-spawn: the guest already runs {} threads, the most --max-threads allows",
                    spawned_running_);
      return kSpawnFailed;
    }
    if (next_tid_ > kMaxTid) return kSpawnFailed;
    tid = next_tid_++;
  }
  auto store = instantiate(fmt::format("thread {}", tid));
  if (!store) {
    logger().warn("wasi::thread-spawn: {}", store.error().detail);
    return kSpawnFailed;
  }
  std::lock_guard lock(mu_);
  // Checked again: another thread of the guest may have spawned while this one instantiated.
  if (ending() || spawned_running_ >= settings_.max_threads) return kSpawnFailed;
  try {
    threads_.emplace_back([self = shared_from_this(), s = std::move(*store), tid, start_arg]() mutable {
      self->run_thread(std::move(s), tid, start_arg);
    });
  } catch (const std::system_error& e) {
    logger().warn("wasi::thread-spawn: cannot start a host thread: {}", e.what());
    return kSpawnFailed;
  }
  ++running_;
  ++spawned_running_;
  return tid;
}

void GuestThreads::run_thread(std::unique_ptr<GuestThreadStore> s, int32_t tid, int32_t start_arg) {
  wasmtime_context_t* cx = wasmtime_store_context(s->store.get());
  wasmtime_extern_t entry;
  std::optional<RunOutcome> outcome;
  if (!wasmtime_instance_export_get(cx, &s->instance, kThreadStart, sizeof kThreadStart - 1, &entry) ||
      entry.kind != WASMTIME_EXTERN_FUNC) {
    outcome = RunOutcome{
        kHostFailureExit, false, "the module imports wasi::thread-spawn but exports no wasi_thread_start function", {}};
  } else {
    wasmtime_val_t args[2];
    args[0].kind = WASMTIME_I32;
    args[0].of.i32 = tid;
    args[1].kind = WASMTIME_I32;
    args[1].of.i32 = start_arg;
    wasm_trap_t* trap = nullptr;
    ErrorPtr err(wasmtime_func_call(cx, &entry.of.func, args, 2, nullptr, 0, &trap));
    outcome = call_outcome(std::move(err), trap, settings_.timeout_ms, settings_.timeout_option);
    if (outcome && outcome->trapped) outcome->message = fmt::format("thread {}: {}", tid, outcome->message);
  }
  // A thread that returns ends only itself; an exit or a trap ends the guest, unless it ended
  // first (then this thread's outcome is only its interruption).
  if (outcome && !ending()) end(std::move(*outcome));
  s.reset();
  thread_finished(true);
}

void GuestThreads::thread_finished(bool spawned) {
  std::lock_guard lock(mu_);
  --running_;
  if (spawned) --spawned_running_;
  finished_.push_back(std::this_thread::get_id());
  cv_.notify_all();
}

// Threads that have returned are joined as new ones start, so a guest that spawns many short
// threads does not accumulate them. A finished thread no longer takes mu_, so joining here is safe.
void GuestThreads::join_finished() {
  for (const auto id : finished_) {
    const auto t =
        std::find_if(threads_.begin(), threads_.end(), [&](const std::thread& x) { return x.get_id() == id; });
    if (t == threads_.end()) continue;
    t->join();
    threads_.erase(t);
  }
  finished_.clear();
}

void GuestThreads::start_main(std::function<RunOutcome()> main) {
  std::lock_guard lock(mu_);
  ++running_;
  threads_.emplace_back([self = shared_from_this(), main = std::move(main)] {
    RunOutcome outcome;
    try {
      outcome = main();
    } catch (const std::exception& e) {
      outcome = RunOutcome{kHostFailureExit, false, e.what(), {}};
    }
    self->end(std::move(outcome));
    self->thread_finished(false);
  });
}

bool GuestThreads::end(RunOutcome outcome) {
  {
    std::lock_guard lock(mu_);
    if (outcome_) return false;
    outcome_ = std::move(outcome);
    ending_.store(true, std::memory_order_release);
  }
  // Running threads reach their deadline at once and stop at their next check.
  wasmtime_engine_increment_epoch(settings_.engine);
  cv_.notify_all();
  return true;
}

RunOutcome GuestThreads::wait_for_end() {
  std::unique_lock lock(mu_);
  cv_.wait(lock, [&] { return outcome_.has_value(); });
  return *outcome_;
}

size_t GuestThreads::stop(std::chrono::milliseconds grace) {
  if (!ending_.exchange(true, std::memory_order_acq_rel)) wasmtime_engine_increment_epoch(settings_.engine);
  // Threads inside a wasi-nn call are waited for (a compute is bounded by --max-compute-ms);
  // the others get `grace` to reach their next epoch check.
  std::unique_lock lock(mu_);
  const auto give_up = std::chrono::steady_clock::now() + grace;
  while (running_ > 0) {
    const bool in_nn = nn_calls_.load(std::memory_order_acquire) > 0;
    if (!in_nn && std::chrono::steady_clock::now() >= give_up) break;
    cv_.wait_for(lock, std::chrono::milliseconds(10));
  }
  const size_t left = running_;
  auto threads = std::move(threads_);
  threads_.clear();
  lock.unlock();
  for (auto& t : threads) {
    if (!t.joinable()) continue;
    if (t.get_id() == std::this_thread::get_id() || left > 0) {
      // Still running on its own references (or this is that thread): it ends by itself.
      t.detach();
    } else {
      t.join();
    }
  }
  return left;
}

}  // namespace wasinn
