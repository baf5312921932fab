// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The graph's shared llama_context: its sequences are the generations of concurrent execution
// contexts, decoded together, one batch per step (continuous batching, as llama-server's slots),
// and each keeps the KV of its last generation for the next prompt that starts the same way (the
// prompt cache).
//
// Threads: any number of callers, each holding one Sequence, hand their tokens to the context's
// one stepping thread and wait. It gathers every waiting caller's tokens into one llama_batch,
// decodes it and copies each caller's logits out. One thread, not whichever caller came first:
// ggml's OpenMP keeps a team of threads per calling thread, and the idle teams of changing leaders
// spun on the cores the running one needed (8 streams: a step 5-10% slower than llama-server's).
// Every llama_memory_* call happens inside a step or, for the saved prompts, in acquire while no
// step decodes, so nothing touches the KV while it decodes.
//
// Isolation: a sequence attends to its own KV cells only (llama.cpp's per-sequence masks; the
// cache is not unified), and a prompt reuses only KV left in its own partition (the host's
// wasinn.cache-partition, one per API key), so no client can read, or time, another's prompt.
#pragma once

#include <llama.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "llama_handles.h"
#include "rope_options.h"
#include "saved_prompts.h"
#include "wasinn/plugin_sdk/error.hpp"

namespace wasinn::llamacpp {

using sdk::Error;

// llama_decode's code as a status, for a shared step and a context's own decode alike. no_room_in:
// what had no room ("the context for 8 tokens"); errors: what llama.cpp logged as errors meanwhile.
Error decode_status(int32_t rc, std::string_view no_room_in, const std::string& errors = {});

class SharedContext {
 public:
  struct Params {
    uint32_t n_seq = 1;      // sequences decoded together
    uint32_t n_ctx_seq = 0;  // each one's context, in tokens
    uint32_t n_batch = 0;    // the most tokens one step decodes (generation tokens first)
    uint32_t n_ubatch = 0;
    uint32_t threads = 1;
    bool perf = false;       // llama.cpp's perf counters (for "enable-log")
    uint64_t cache_ram = 0;  // bytes of host memory for saved prompts (saved_prompts.h); 0: none
    RopeOptions rope;
  };
  static Error create(llama_model* model, const Params& params, std::unique_ptr<SharedContext>& out);
  // "parallel": 0: as many sequences of n_ctx_seq tokens as a quarter of the memory available
  // now holds the KV of (f16, as llama.cpp's default), from 1 to 8.
  static uint32_t sequences_for_memory(const llama_model* model, uint32_t n_ctx_seq);
  // "cache-ram" -1: an eighth of the memory available now, at most 8 GiB (llama-server's default).
  static uint64_t cache_ram_for_memory();
  ~SharedContext();

  // Sampling on the stepping thread (Sequence::generate): after the step that decodes a
  // sequence's token, its sampler picks the next one from that step's logits, so the next step
  // need not wait for the caller to wake, sample and queue it (as llama-server samples every slot
  // in its loop). Called on the stepping thread with no lock held, never while the holder uses it:
  // the holder hands it over in generate() and has it back once take() ends it or release() returns.
  class StepSampler {
   public:
    virtual ~StepSampler() = default;
    // The token after the one just decoded at `pos`, from its logits (the vocabulary's, valid
    // during the call). `more`: it is to be decoded too (not an end, within the limits).
    virtual Error sample(const float* logits, llama_pos pos, llama_token& token, bool& more) = 0;
  };
  // Tokens generate()'s steps sample before take() asks for them: past it, a sequence waits.
  static constexpr size_t kAhead = 2;

 private:
  // One caller's tokens waiting for (or in) steps.
  struct Request {
    llama_seq_id seq = 0;
    std::span<const llama_token> tokens;
    llama_pos pos = 0;
    size_t done = 0;       // tokens decoded so far
    size_t taken = 0;      // tokens of them in the running step
    int32_t last_at = -1;  // the batch index of the last token, when the running step has it
    bool finished = false;
    Error result;
    const std::atomic<bool>* cancel = nullptr;
    uint32_t threads = 1;
    std::vector<float>* logits = nullptr;
    bool failed = false;  // a step that held it failed: the KV may hold part of it
    // generate(): the steps sample with `sampler` and decode `next` too, while it has more.
    StepSampler* sampler = nullptr;
    std::vector<llama_token>* kv = nullptr;  // the holder's record of the KV, kept by the steps
    llama_token next = 0;                    // the sampled token `tokens` shows (not a prompt's)
    llama_token ready[kAhead] = {};          // sampled, not yet taken
    size_t n_ready = 0;
    bool parked = false;  // kAhead tokens wait: out of the queue until take() makes room
    // The running step's sample (written with no lock held, read by the stepping thread only).
    llama_token sampled = 0;
    bool sampled_more = false;
    Error sample_error;
  };

 public:
  SharedContext(const SharedContext&) = delete;
  SharedContext& operator=(const SharedContext&) = delete;

  const Params& params() const { return params_; }
  // Tokens one sequence may hold: the context asked for, or less if llama.cpp gave less.
  uint32_t n_ctx_seq() const { return n_ctx_seq_; }

  // One generation's hold on a sequence. Released (its slot idle again, its KV kept for the
  // prompt cache or cleared) by release() or the destructor.
  class Sequence {
   public:
    Sequence() = default;
    ~Sequence() { release(false); }
    Sequence(const Sequence&) = delete;
    Sequence& operator=(const Sequence&) = delete;
    explicit operator bool() const { return owner_ != nullptr; }

    // The prompt tokens already in this sequence's KV (the prompt cache's hit), at most
    // prompt.size() - 1: the last prompt token is always decoded, for its logits.
    size_t cached() const { return cached_; }
    // Decodes `tokens` at positions pos, pos+1, ... (the KV from pos on is dropped first) and
    // copies the last one's logits to logits(). Waits for the steps that take them: TIMEOUT once
    // `cancel` is set (a step already running finishes for the others).
    Error decode(std::span<const llama_token> tokens, llama_pos pos, const std::atomic<bool>& cancel, uint32_t threads);
    // decode() of one token in two halves: queued now, waited for by wait() (its result). The
    // sampled token's decode then runs while its caller takes the token out through the guest,
    // as llama-server decodes the next step while its HTTP threads send the last one. One at a time.
    void submit(llama_token token, llama_pos pos, const std::atomic<bool>& cancel, uint32_t threads);
    Error wait();
    // Hands the generation to the steps: `tokens` (a sampled token, or the rest of a prompt, in
    // steps of what n_batch leaves) are decoded from `pos`, then after each step `sampler` picks
    // the next token, which the following step decodes while it has more, at most kAhead tokens
    // ahead of take(). A prompt's first token is sampled on the stepping thread too, so the step
    // after the prompt's does not wait for its caller. More than one token: the caller keeps them
    // until first_ready() returns. Ends with release(). Not with decode() or submit().
    void generate(std::span<const llama_token> tokens, llama_pos pos, StepSampler& sampler,
                  const std::atomic<bool>& cancel, uint32_t threads);
    // Waits until generate()'s tokens are decoded and the first sample is ready (not taken): a
    // prompt's errors, as decode() gives them.
    Error first_ready();
    // generate()'s next token (its predecessor is in the KV now), waited for; TIMEOUT once
    // `cancel` is set, or a failed step's error.
    Error take(llama_token& token);
    bool in_flight() const { return in_flight_; }
    const float* logits() const { return logits_.data(); }
    // The slot is idle again. keep: its KV (every token decode() took, unless a step failed)
    // stays for the prompt cache; otherwise (a cancel, an unknown end) it is cleared. A submitted
    // token not yet in a step is dropped; one in the running step is waited for.
    void release(bool keep);

   private:
    friend class SharedContext;
    void enqueue(std::span<const llama_token> tokens, llama_pos pos, const std::atomic<bool>& cancel, uint32_t threads,
                 StepSampler* sampler = nullptr);
    SharedContext* owner_ = nullptr;
    llama_seq_id seq_ = 0;
    size_t cached_ = 0;
    std::vector<llama_token> kv_;
    bool kv_known_ = true;  // false after a failed step: the KV may hold part of it
    std::vector<float> logits_;
    Request request_;  // the tokens in the steps' hands, while in_flight_
    bool in_flight_ = false;
    llama_token ahead_ = 0;  // submit()'s token
  };

  // llama.cpp's perf counters of the shared context (every sequence's), to its log; between steps.
  void print_perf();
  // Callers waiting for steps look at their cancel flags now (a cancel() just set one), rather than
  // at their next poll. Any thread.
  void wake() noexcept;

  // An idle sequence for `prompt` in `partition`: the one whose KV holds the longest prefix of the
  // prompt when that prefix covers the last prompt it was given or half of this one, else the least
  // recently used one (an empty one first). False when every sequence is busy.
  bool acquire(std::span<const llama_token> prompt, const std::string& partition, Sequence& out);

 private:
  SharedContext() = default;

  struct Slot {
    bool busy = false;
    bool queued_once = false;  // its holder has asked for a step (not just acquired it)
    std::string partition;
    std::vector<llama_token> tokens;  // in its KV, positions 0..n-1
    size_t prompt_len = 0;            // how many of them were its last holder's prompt

    uint64_t last_used = 0;
    llama_pos trim_from = -1;  // the KV from here on is dropped before the next step (-1: nothing)
  };

  // The stepping thread: a step whenever a caller waits, until the destructor.
  void run_steps();
  // Runs one step; `lock` (on mu_) is released while llama_decode runs.
  void run_step(std::unique_lock<std::mutex>& lock);
  bool has_work() const;
  // acquire's use of the host memory's saved prompts: `slot`'s KV saved there before another
  // prompt takes it, or an entry's KV put back into it. Only between llama_decode calls.
  void save_slot(size_t slot);
  void restore_slot(size_t slot, SavedPrompts::Entry entry);
  void finish(Request& r, Error e);
  // Waits (on `lock`, over mu_) until `r` is finished or has a token ready for take(); one cancelled
  // between steps is finished here with TIMEOUT.
  void await_step(std::unique_lock<std::mutex>& lock, Request& r);
  // After the step that decoded a generate() request's token: its sample is ready, and the
  // request decodes it next (or waits for take(), or ends).
  void continue_generation(Request& r);
  static bool all_cancelled(void* self);

  Params params_;
  uint32_t n_ctx_seq_ = 0;
  int32_t n_vocab_ = 0;
  ContextPtr ctx_;
  llama_batch batch_{};

  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Slot> slots_;
  uint64_t use_clock_ = 0;
  size_t leased_ = 0;      // sequences held
  size_t generating_ = 0;  // of them, in generate()'s hands: never waited for by a step's gathering
  std::deque<Request*> queue_;
  bool stepping_ = false;
  bool decoding_ = false;  // llama_decode runs (without mu_): no other llama call may touch the KV
  // Callers waiting for a step to end (acquire's saved prompts, print_perf): no step starts before
  // them, or steps that follow each other at once (every sequence generating) would keep them out.
  size_t waiting_between_steps_ = 0;
  SavedPrompts saved_{0};
  std::vector<Request*> in_step_;  // read by all_cancelled while llama_decode runs
  std::vector<Request*> order_;    // the step's requests by sequence (reserved: a step allocates nothing)
  bool stopping_ = false;
  std::atomic<bool> step_aborted_{false};  // the running step was aborted: every caller in it cancelled
  std::thread stepper_;
  std::chrono::steady_clock::duration last_step_{};
  uint32_t threads_now_ = 0;
};

}  // namespace wasinn::llamacpp
