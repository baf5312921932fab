// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "shared_context.h"

#include <algorithm>
#include <fstream>
#include <new>
#include <string>
#include <system_error>

#include <pthread.h>

#include "devices.h"
#include "ggml_common/log_router.h"

namespace wasinn::llamacpp {
namespace {

using Clock = std::chrono::steady_clock;

// How long the stepping thread waits for the sequences that are generating but have not asked for
// their next token yet (their callers are sampling, or streaming the last one out), so that one
// step takes them all rather than splitting into a step of one and a step of the rest. A share of
// the last step's time, so it stays small beside the step itself.
Clock::duration gather_time(Clock::duration last_step) {
  return std::clamp<Clock::duration>(last_step / 8, std::chrono::microseconds(200), std::chrono::milliseconds(3));
}

// How often a caller waiting for a step looks at its cancel flag when nothing wakes it: cancel()
// wakes it at once (wake()), so this is a safety net, long enough that 8 waiting callers do not
// wake every few milliseconds beside the decode.
constexpr auto kCancelPoll = std::chrono::milliseconds(250);

// A slot's KV shorter than this is dropped, not saved, when another prompt takes the slot.
constexpr size_t kSaveAtLeast = 16;

}  // namespace

Error decode_status(int32_t rc, std::string_view no_room_in, const std::string& errors) {
  if (rc == 0) return {};
  if (rc == 1) return {WASINN_CONTEXT_FULL, "llama_decode found no room in " + std::string(no_room_in)};
  if (rc == 2) return {WASINN_TIMEOUT, "generation was cancelled"};
  const std::string why = errors.empty() ? "" : ": " + errors;
  if (rc == -1) return sdk::invalid("llama_decode rejected the batch as invalid" + why);
  return sdk::runtime_error("llama_decode failed with code " + std::to_string(rc) + why);
}

namespace {

// /proc/meminfo's MemAvailable, or 0.
uint64_t memory_available() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  uint64_t kib = 0;
  std::string unit;
  while (in >> key >> kib >> unit)
    if (key == "MemAvailable:") return kib * 1024;
  return 0;
}

}  // namespace

uint32_t SharedContext::sequences_for_memory(const llama_model* model, uint32_t n_ctx_seq) {
  constexpr uint32_t kDefaultMax = 8;
  const uint64_t n_head = std::max<int32_t>(1, llama_model_n_head(model));
  const uint64_t n_embd_kv = static_cast<uint64_t>(llama_model_n_embd(model)) / n_head *
                             static_cast<uint64_t>(std::max<int32_t>(1, llama_model_n_head_kv(model)));
  const uint64_t per_seq = 2ull * 2 * static_cast<uint64_t>(llama_model_n_layer(model)) * n_embd_kv * n_ctx_seq;
  const uint64_t budget = memory_available() / 4;
  if (per_seq == 0 || budget == 0) return 1;
  return static_cast<uint32_t>(std::clamp<uint64_t>(budget / per_seq, 1, kDefaultMax));
}

uint64_t SharedContext::cache_ram_for_memory() {
  constexpr uint64_t kMax = uint64_t{8192} << 20;
  return std::min(kMax, memory_available() / 8);
}

Error SharedContext::create(llama_model* model, const Params& params, std::unique_ptr<SharedContext>& out) {
  std::unique_ptr<SharedContext> s(new SharedContext());
  s->params_ = params;
  s->params_.n_batch = std::max(params.n_batch, params.n_seq);  // a step holds every sequence's token
  s->saved_ = SavedPrompts(params.cache_ram);
  llama_context_params p = llama_context_default_params();
  p.n_ctx = params.n_seq * params.n_ctx_seq;
  p.n_batch = s->params_.n_batch;
  p.n_ubatch = std::min(params.n_ubatch, s->params_.n_batch);
  p.n_seq_max = params.n_seq;
  p.kv_unified = false;  // each sequence its own cells: no sequence's attention spans another's
  p.n_threads = p.n_threads_batch = static_cast<int32_t>(params.threads);
  p.abort_callback = all_cancelled;
  p.abort_callback_data = s.get();
  p.no_perf = !params.perf;
  params.rope.apply(p);
  llama_context* made = nullptr;
  {
    const auto reading = DeviceSet::get().registry_reader();  // it reads ggml's device registry
    made = llama_init_from_model(model, p);
  }
  if (!made) {
    return sdk::runtime_error("could not create a shared llama context of " + std::to_string(params.n_seq) +
                              " sequences of " + std::to_string(params.n_ctx_seq) +
                              " tokens (lower \"parallel\" or \"ctx-size\")");
  }
  s->ctx_.reset(made);
  s->n_ctx_seq_ = std::min(params.n_ctx_seq, llama_n_ctx_seq(made));
  s->n_vocab_ = llama_vocab_n_tokens(llama_model_get_vocab(model));
  s->batch_ = llama_batch_init(static_cast<int32_t>(s->params_.n_batch), 0, 1);
  s->slots_.resize(params.n_seq);
  s->in_step_.reserve(params.n_seq);
  s->order_.reserve(params.n_seq);
  s->threads_now_ = params.threads;
  s->stepper_ = std::thread([self = s.get()] { self->run_steps(); });
  out = std::move(s);
  return {};
}

SharedContext::~SharedContext() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (stepper_.joinable()) stepper_.join();
  if (batch_.token) llama_batch_free(batch_);
}

bool SharedContext::has_work() const {
  for (const Request* r : queue_)
    if (!r->cancel->load(std::memory_order_relaxed)) return true;
  return false;
}

void SharedContext::run_steps() {
  pthread_setname_np(pthread_self(), "wasinn-llama");
  std::unique_lock lock(mu_);
  while (true) {
    // A caller cancelled before a step took it ends its own wait (decode's loop), so cancelled
    // requests alone are no work.
    cv_.wait(lock, [&] { return stopping_ || has_work(); });
    if (stopping_) return;
    run_step(lock);
  }
}

void SharedContext::wake() noexcept {
  try {
    std::lock_guard lock(mu_);  // a waiter between its check and its wait gets the notify too
  } catch (const std::system_error&) {
  }
  cv_.notify_all();
}

void SharedContext::print_perf() {
  std::unique_lock lock(mu_);
  ++waiting_between_steps_;
  cv_.wait(lock, [&] { return !stepping_; });
  llama_perf_context_print(ctx_.get());
  if (--waiting_between_steps_ == 0) cv_.notify_all();  // the stepping thread, once the lock goes
}

bool SharedContext::acquire(std::span<const llama_token> prompt, const std::string& partition, Sequence& out) {
  std::unique_lock lock(mu_);
  int best = -1, chosen = -1;
  size_t best_len = 0;
  SavedPrompts::Match saved{};
  bool restores = false, saves = false;
  // Chosen again after waiting for a running decode, which the saved prompts' calls must not overlap.
  for (;;) {
    int oldest = -1;
    best = -1;
    best_len = 0;
    for (size_t i = 0; i < slots_.size(); ++i) {
      const Slot& s = slots_[i];
      if (s.busy) continue;
      if (s.partition == partition) {
        const size_t len = common_prefix(s.tokens, prompt);
        if (prefix_worth_taking(len, s.prompt_len, s.tokens.size(), prompt.size()) && len > best_len)
          best_len = len, best = static_cast<int>(i);
      }
      // The least recently used, an empty one first.
      if (oldest < 0 || (s.tokens.empty() && !slots_[oldest].tokens.empty()) ||
          (s.tokens.empty() == slots_[oldest].tokens.empty() && s.last_used < slots_[oldest].last_used))
        oldest = static_cast<int>(i);
    }
    if (oldest < 0) return false;
    // A saved prompt that goes further than any slot's goes back into the least recently used one.
    saved = saved_.best(partition, prompt);
    restores = saved.length > best_len &&
               prefix_worth_taking(saved.length, saved.at->prompt_len, saved.at->tokens.size(), prompt.size());
    chosen = best >= 0 && !restores ? best : oldest;
    // What the least recently used slot held is saved before it goes, unless it is little.
    saves = chosen == oldest && saved_.budget() > 0 && slots_[chosen].tokens.size() >= kSaveAtLeast;
    if (!(restores || saves) || !decoding_) break;
    // The stepping thread lets it in before its next step: steps that follow each other at once
    // (every sequence generating) would otherwise never leave the context between decodes.
    ++waiting_between_steps_;
    cv_.wait(lock, [&] { return !decoding_; });
    // The stepping thread goes on once the lock goes (after the saved prompts' calls below, or a
    // return for want of an idle sequence).
    if (--waiting_between_steps_ == 0) cv_.notify_all();
  }
  SavedPrompts::Entry restored;
  if (restores) restored = saved_.take(saved.at);  // before save_slot, whose put may drop it
  if (saves) save_slot(static_cast<size_t>(chosen));
  if (restores) restore_slot(static_cast<size_t>(chosen), std::move(restored));
  Slot& slot = slots_[chosen];
  // What the chosen slot holds now (a restored prompt, or nothing after a failed restore).
  const size_t held = slot.partition == partition ? common_prefix(slot.tokens, prompt) : 0;
  // The last prompt token is decoded again, whatever the cache holds: its logits are the first sample's.
  const size_t reuse = std::min(held, prompt.empty() ? 0 : prompt.size() - 1);
  slot.busy = true;
  slot.queued_once = false;
  slot.partition = partition;
  slot.last_used = ++use_clock_;
  slot.tokens.resize(reuse);
  slot.prompt_len = prompt.size();
  slot.trim_from = static_cast<llama_pos>(reuse);
  ++leased_;
  out.release(false);
  out.owner_ = this;
  out.seq_ = static_cast<llama_seq_id>(chosen);
  out.cached_ = reuse;
  out.kv_.assign(prompt.begin(), prompt.begin() + static_cast<std::ptrdiff_t>(reuse));
  out.kv_known_ = true;
  return true;
}

void SharedContext::save_slot(size_t i) {
  Slot& slot = slots_[i];
  llama_context* ctx = ctx_.get();
  const auto seq = static_cast<llama_seq_id>(i);
  if (slot.trim_from >= 0) {  // the KV then holds exactly slot.tokens
    llama_memory_seq_rm(llama_get_memory(ctx), seq, slot.trim_from, -1);
    slot.trim_from = -1;
  }
  SavedPrompts::Entry e;
  e.partition = slot.partition;
  e.tokens = slot.tokens;
  e.prompt_len = slot.prompt_len;
  try {
    e.state.resize(llama_state_seq_get_size(ctx, seq));
  } catch (const std::bad_alloc&) {
    return;  // not saved: the slot's prompt is recomputed if it comes back
  }
  if (e.state.empty() || llama_state_seq_get_data(ctx, e.state.data(), e.state.size(), seq) != e.state.size()) return;
  saved_.put(std::move(e));
}

void SharedContext::restore_slot(size_t i, SavedPrompts::Entry entry) {
  Slot& slot = slots_[i];
  llama_context* ctx = ctx_.get();
  const auto seq = static_cast<llama_seq_id>(i);
  llama_memory_seq_rm(llama_get_memory(ctx), seq, 0, -1);
  slot.trim_from = -1;
  slot.tokens.clear();
  if (llama_state_seq_set_data(ctx, entry.state.data(), entry.state.size(), seq) != entry.state.size()) {
    llama_memory_seq_rm(llama_get_memory(ctx), seq, 0, -1);  // whatever part of it went in
    return;                                                  // the slot is empty: its prompt is evaluated whole
  }
  slot.tokens = std::move(entry.tokens);
  slot.prompt_len = entry.prompt_len;
  slot.partition = std::move(entry.partition);
}

void SharedContext::Sequence::release(bool keep) {
  if (!owner_) return;
  SharedContext& s = *owner_;
  {
    std::unique_lock lock(s.mu_);
    if (in_flight_ && request_.sampler) {
      // The steps keep kv_ themselves; a step running with it finishes first.
      Request& r = request_;
      while (!r.finished && r.taken > 0) s.cv_.wait(lock);
      if (!r.finished) s.finish(r, {WASINN_TIMEOUT, "the sequence was released"});
      in_flight_ = false;
      --s.generating_;
      if (r.failed) kv_known_ = false;
    } else if (in_flight_) {
      Request& r = request_;
      // Not in a step yet: dropped. In the running one: its end is waited for, as the step
      // writes into it; what it decoded is then in the KV.
      const bool dropped = !r.finished && r.taken == 0;
      if (dropped) s.finish(r, {WASINN_TIMEOUT, "the sequence was released"});
      while (!r.finished) s.cv_.wait(lock);
      in_flight_ = false;
      if (r.result) {
        if (!dropped) kv_known_ = false;
      } else {
        kv_.resize(static_cast<size_t>(r.pos));
        kv_.insert(kv_.end(), r.tokens.begin(), r.tokens.end());
      }
    }
    Slot& slot = s.slots_[static_cast<size_t>(seq_)];
    slot.busy = false;
    slot.last_used = ++s.use_clock_;
    if (keep && kv_known_) {
      slot.tokens = std::move(kv_);
    } else {
      slot.tokens.clear();
      slot.trim_from = 0;  // its cells are freed at the next step
    }
    --s.leased_;
  }
  s.cv_.notify_all();
  owner_ = nullptr;
  kv_.clear();
  cached_ = 0;
}

Error SharedContext::Sequence::decode(std::span<const llama_token> tokens, llama_pos pos,
                                      const std::atomic<bool>& cancel, uint32_t threads) {
  if (!owner_) return sdk::invalid("no sequence is held");
  if (in_flight_) return sdk::invalid("a submitted token is still in flight");
  if (tokens.empty()) return {};
  enqueue(tokens, pos, cancel, threads);
  return wait();
}

void SharedContext::Sequence::submit(llama_token token, llama_pos pos, const std::atomic<bool>& cancel,
                                     uint32_t threads) {
  ahead_ = token;
  enqueue(std::span<const llama_token>(&ahead_, 1), pos, cancel, threads);
}

void SharedContext::Sequence::generate(std::span<const llama_token> tokens, llama_pos pos, StepSampler& sampler,
                                       const std::atomic<bool>& cancel, uint32_t threads) {
  enqueue(tokens, pos, cancel, threads, &sampler);
}

Error SharedContext::Sequence::first_ready() {
  if (!owner_ || !in_flight_ || !request_.sampler) return sdk::invalid("no generation is in the steps' hands");
  SharedContext& s = *owner_;
  Request& r = request_;
  std::unique_lock lock(s.mu_);
  s.await_step(lock, r);
  if (r.n_ready > 0) return {};
  if (r.result) return r.result;
  return sdk::runtime_error("the generation ended before its first token");
}

void SharedContext::Sequence::enqueue(std::span<const llama_token> tokens, llama_pos pos,
                                      const std::atomic<bool>& cancel, uint32_t threads, StepSampler* sampler) {
  SharedContext& s = *owner_;
  request_ = Request{};
  request_.seq = seq_;
  request_.tokens = tokens;
  if (sampler) {  // after these, one token at a time, each the last step's sample
    if (tokens.size() == 1) {
      request_.next = tokens.front();
      request_.tokens = std::span<const llama_token>(&request_.next, 1);
    }
    request_.sampler = sampler;
    request_.kv = &kv_;
  }
  request_.pos = pos;
  request_.cancel = &cancel;
  request_.threads = threads;
  request_.logits = &logits_;
  in_flight_ = true;
  {
    std::lock_guard lock(s.mu_);
    Slot& slot = s.slots_[static_cast<size_t>(seq_)];
    if (static_cast<size_t>(pos) < kv_.size() || !kv_known_) {
      slot.trim_from = slot.trim_from < 0 ? pos : std::min(slot.trim_from, pos);
    }
    slot.queued_once = true;
    if (sampler) ++s.generating_;
    s.queue_.push_back(&request_);
  }
  s.cv_.notify_all();  // the stepping thread: a step to run, or one more for the step it gathers
}

void SharedContext::await_step(std::unique_lock<std::mutex>& lock, Request& r) {
  while (!r.finished && r.n_ready == 0) {
    // Cancelled between steps: no step takes it (run_step skips it), so it ends here.
    if (r.taken == 0 && r.cancel->load(std::memory_order_relaxed)) {
      finish(r, {WASINN_TIMEOUT, "generation was cancelled"});
      return;
    }
    cv_.wait_for(lock, kCancelPoll);
  }
}

Error SharedContext::Sequence::wait() {
  if (!owner_ || !in_flight_ || request_.sampler) return sdk::invalid("no token is in flight");
  SharedContext& s = *owner_;
  Request& r = request_;
  {
    std::unique_lock lock(s.mu_);
    s.await_step(lock, r);
  }
  in_flight_ = false;
  if (r.result) {
    kv_known_ = false;  // part of it may be in the KV, or a trim of it pending
    return std::move(r.result);
  }
  kv_.resize(static_cast<size_t>(r.pos));
  kv_.insert(kv_.end(), r.tokens.begin(), r.tokens.end());
  return {};
}

Error SharedContext::Sequence::take(llama_token& token) {
  if (!owner_ || !in_flight_ || !request_.sampler) return sdk::invalid("no generation is in the steps' hands");
  SharedContext& s = *owner_;
  Request& r = request_;
  std::unique_lock lock(s.mu_);
  s.await_step(lock, r);
  if (r.n_ready > 0) {
    token = r.ready[0];
    std::copy(r.ready + 1, r.ready + r.n_ready, r.ready);
    --r.n_ready;
    if (r.parked) {  // room again: its next token goes to the steps
      r.parked = false;
      s.queue_.push_back(&r);
      lock.unlock();
      s.cv_.notify_all();
    }
    return {};
  }
  in_flight_ = false;
  --s.generating_;
  if (r.failed) kv_known_ = false;
  if (r.result) return std::move(r.result);
  return sdk::runtime_error("the generation has no token left to take");
}

void SharedContext::continue_generation(Request& r) {
  r.kv->resize(static_cast<size_t>(r.pos));  // the steps decoded r.tokens from r.pos
  r.kv->insert(r.kv->end(), r.tokens.begin(), r.tokens.end());
  if (r.sample_error) {
    finish(r, std::move(r.sample_error));
    return;
  }
  r.ready[r.n_ready++] = r.sampled;  // room: it was queued with fewer than kAhead waiting
  if (!r.sampled_more) {
    finish(r, {});  // take() still hands out what is ready
    return;
  }
  r.pos += static_cast<llama_pos>(r.tokens.size());
  r.next = r.sampled;
  r.tokens = std::span<const llama_token>(&r.next, 1);
  r.done = 0;
  if (r.n_ready == kAhead) {
    r.parked = true;
    queue_.erase(std::remove(queue_.begin(), queue_.end(), &r), queue_.end());
  }
}

void SharedContext::finish(Request& r, Error e) {
  r.parked = false;
  r.finished = true;
  r.result = std::move(e);
  queue_.erase(std::remove(queue_.begin(), queue_.end(), &r), queue_.end());
}

bool SharedContext::all_cancelled(void* self) {
  auto* s = static_cast<SharedContext*>(self);
  if (s->in_step_.empty()) return false;
  for (const Request* r : s->in_step_)
    if (!r->cancel->load(std::memory_order_relaxed)) return false;
  s->step_aborted_.store(true, std::memory_order_relaxed);  // llama.cpp's complaints about it: debug
  return true;
}

void SharedContext::run_step(std::unique_lock<std::mutex>& lock) {
  // Callers that need the context between steps (acquire's saved prompts, print_perf) first.
  cv_.wait(lock, [&] { return waiting_between_steps_ == 0 || stopping_; });
  if (stopping_) return;
  stepping_ = true;
  // A sequence just acquired is a caller about to queue its prompt (its sampler is being made):
  // waiting up to kArrivalWait for it beats a step without it (8 requests at once would otherwise
  // start with a step of the first alone, ~50 ms on bench-large).
  constexpr auto kArrivalWait = std::chrono::milliseconds(10);
  const auto now = Clock::now();
  const auto gather_until = now + gather_time(last_step_);
  const auto arrival_until = now + kArrivalWait;
  const auto arriving = [&] {
    return std::any_of(slots_.begin(), slots_.end(), [](const Slot& s) { return s.busy && !s.queued_once; });
  };
  // The callers that sample on their own thread are waited for; generate()'s sequences, whose
  // tokens the steps sample, are in the queue already or waiting for their callers.
  const auto sampled_by_callers = [&] {
    return static_cast<size_t>(
        std::count_if(queue_.begin(), queue_.end(), [](const Request* r) { return !r->sampler; }));
  };
  while (sampled_by_callers() < leased_ - generating_) {
    const auto until = arriving() ? std::max(gather_until, arrival_until) : gather_until;
    if (Clock::now() >= until) break;
    cv_.wait_until(lock, until);
  }

  llama_memory_t mem = llama_get_memory(ctx_.get());
  for (size_t i = 0; i < slots_.size(); ++i) {
    if (slots_[i].trim_from < 0) continue;
    llama_memory_seq_rm(mem, static_cast<llama_seq_id>(i), slots_[i].trim_from, -1);
    slots_[i].trim_from = -1;
  }

  // Each generation's one token first, then prompts in arrival order, chunked to what is left of
  // n_batch: a long prompt never holds the other sequences' next tokens back by more than a step.
  batch_.n_tokens = 0;
  size_t budget = params_.n_batch;
  uint32_t threads = 1;
  in_step_.clear();
  // In sequence order: llama.cpp splits a batch of a cache that is not unified into physical
  // batches of consecutive sequence ids, so sequences out of order cost a llama.cpp pass each.
  order_.assign(queue_.begin(), queue_.end());
  std::sort(order_.begin(), order_.end(), [](const Request* a, const Request* b) { return a->seq < b->seq; });
  for (int pass = 0; pass < 2 && budget > 0; ++pass) {
    for (Request* r : order_) {
      const size_t left = r->tokens.size() - r->done;
      if ((pass == 0) != (left == 1) || r->taken > 0 || r->cancel->load(std::memory_order_relaxed)) continue;
      const size_t take = std::min(left, budget);
      if (take == 0) break;
      for (size_t k = 0; k < take; ++k) {
        const size_t at = r->done + k;
        const int32_t i = batch_.n_tokens++;
        batch_.token[i] = r->tokens[at];
        batch_.pos[i] = r->pos + static_cast<llama_pos>(at);
        batch_.n_seq_id[i] = 1;
        batch_.seq_id[i][0] = r->seq;
        batch_.logits[i] = at + 1 == r->tokens.size();
        if (batch_.logits[i]) r->last_at = i;
      }
      r->taken = take;
      budget -= take;
      threads = std::max(threads, r->threads);
      in_step_.push_back(r);
    }
  }
  // Every waiting caller was cancelled: each ends its own wait (decode's first check).
  if (in_step_.empty()) {
    stepping_ = false;
    cv_.notify_all();
    return;
  }

  decoding_ = true;
  lock.unlock();
  if (threads != threads_now_) {
    llama_set_n_threads(ctx_.get(), static_cast<int32_t>(threads), static_cast<int32_t>(threads));
    threads_now_ = threads;
  }
  const auto began = Clock::now();
  // On this thread, not the callers': llama.cpp's lines about a step every caller cancelled go
  // to debug (as a context's own decode's do), and its errors are a failed step's detail.
  step_aborted_.store(false, std::memory_order_relaxed);
  ggml_common::LogScope log_scope(params_.perf, &step_aborted_);
  int32_t rc = llama_decode(ctx_.get(), batch_);
  try {
    for (Request* r : in_step_) {
      if (rc != 0 || r->last_at < 0) continue;
      const float* row = llama_get_logits_ith(ctx_.get(), r->last_at);
      if (r->sampler) {
        r->sample_error =
            r->sampler->sample(row, r->pos + static_cast<llama_pos>(r->tokens.size()) - 1, r->sampled, r->sampled_more);
      } else {
        r->logits->assign(row, row + n_vocab_);
      }
    }
  } catch (const std::bad_alloc&) {
    rc = -3;  // every caller of the step fails, rather than one step thread ending the process
  }
  const auto took = Clock::now() - began;
  lock.lock();
  decoding_ = false;
  last_step_ = took;
  const Error failed = decode_status(rc, "the shared context for this step", log_scope.errors());
  for (Request* r : in_step_) {
    const size_t taken = r->taken;
    r->taken = 0;
    r->last_at = -1;
    if (failed) {
      Slot& slot = slots_[static_cast<size_t>(r->seq)];
      const llama_pos from = r->pos + static_cast<llama_pos>(r->done);
      slot.trim_from = slot.trim_from < 0 ? from : std::min(slot.trim_from, from);
      r->failed = true;
      finish(*r, failed);
      continue;
    }
    r->done += taken;
    if (r->done < r->tokens.size()) continue;
    if (r->sampler) {
      continue_generation(*r);
    } else {
      finish(*r, {});
    }
  }
  in_step_.clear();
  stepping_ = false;
  cv_.notify_all();
}

}  // namespace wasinn::llamacpp
