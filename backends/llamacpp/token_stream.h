// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// One generated sequence: evaluates the prompt, then produces tokens one at a time, on a
// llama_context of its own (sequence 0, cleared at begin) or on a sequence of the graph's shared
// context (shared_context.h), decoded in one batch with the other generations and starting from
// the KV its prompt shares with the sequence's last one. compute() drives it to the end;
// compute_single() advances it by one token.
//
// A sampled token is fed back to the model lazily, at the start of the next step, so the last
// token of a sequence never costs a decode and compute's text holds every token sampled, even
// the one after which the context is full (the next step then answers CONTEXT_FULL).
#pragma once

#include <llama.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "config.h"
#include "plugin_common/c_handles.hpp"
#include "shared_context.h"
#include "wasinn/backend_plugin.h"

namespace wasinn::llamacpp {

using SamplerPtr = plugin_common::FunctionHandle<llama_sampler, llama_sampler_free>;

// How llama-server samples a chat's answer from llama.cpp's chat layer (chat_template.h): its
// grammar (lazy until a trigger when tool_choice is "auto"), the special tokens whose text it
// keeps, and the strings that end it.
struct ChatConstraints {
  std::string grammar;  // GBNF from the chat layer; "": the options' "grammar" applies
  bool grammar_lazy = false;
  std::vector<std::string> trigger_patterns;  // regexes over the text so far (words escaped)
  std::vector<llama_token> trigger_tokens;
  // The generation prompt's tokens, fed to a grammar that is not lazy before the first sample,
  // as llama-server's common_sampler does for tool-call and JSON-schema grammars.
  std::vector<llama_token> prefill;
  std::set<llama_token> preserved;  // special tokens rendered in chat_text()
  std::vector<std::string> stops;   // the chat layer's additional stops
};

// Feeds tokens to the context in chunks of its batch size, mapping llama_decode's codes to
// statuses (2, aborted by cancel(), is TIMEOUT).
Error decode_tokens(llama_context* ctx, std::span<llama_token> tokens);

class TokenStream {
 public:
  TokenStream() = default;
  // The sequence goes back (its KV freed) before the sampler its steps may be using.
  ~TokenStream() { release_sequence(false); }
  TokenStream(const TokenStream&) = delete;
  TokenStream& operator=(const TokenStream&) = delete;

  // Clears the context's memory, evaluates the prompt and builds the sampler from `options`.
  // PROMPT_TOO_LONG when the prompt leaves no room in a context of n_ctx tokens.
  // `chat` (may be null): the constraints of a prompt made from input 2.
  Error begin(llama_context* ctx, const llama_vocab* vocab, std::span<const llama_token> prompt, uint32_t n_ctx,
              const LlamaOptions& options, const ChatConstraints* chat = nullptr);

  // A prompt that is not only tokens (text with images, vision.h): its size in tokens (what the
  // metadata counts) and context positions, and how it reaches the context's memory (from
  // position 0, logits for its last token; n_pos: the next free position).
  struct Feed {
    size_t n_tokens = 0;
    size_t n_pos = 0;
    std::function<Error(llama_context* ctx, uint32_t& n_pos)> decode;
    // Its text tokens in order (the media's positions left out): what penalize-prompt shows the
    // penalties, as llama-server's skip its prompt's media.
    std::span<const llama_token> text_tokens;
  };
  Error begin(llama_context* ctx, const llama_vocab* vocab, const Feed& prompt, uint32_t n_ctx,
              const LlamaOptions& options, const ChatConstraints* chat = nullptr);
  // On a sequence of the shared context, held until the answer ends (then its KV stays for the
  // prompt cache) or is cut (then it is freed). The stop_grammar_on flag also stops its waits
  // for a step.
  Error begin(std::unique_ptr<SharedContext::Sequence> seq, const llama_vocab* vocab,
              std::span<const llama_token> prompt, uint32_t n_ctx, const LlamaOptions& options,
              const ChatConstraints* chat = nullptr);

  // One more token. END_OF_SEQUENCE at an end-of-generation token, after n-predict tokens or
  // once the text holds the reverse prompt; CONTEXT_FULL when the previous token cannot be fed
  // back. Either stays the answer until begin() or reset().
  Error next();

  // CONTEXT_FULL (and ended) when the token next() just sampled has no slot to be fed back in;
  // OK otherwise. compute_single asks at once, as WasmEdge, which feeds a token back in the
  // call that sampled it: its stream never carries that last token.
  Error end_if_no_slot();

  // Forgets the sequence and frees the sampler (the context's memory is left as it is; a shared
  // sequence is given back with its KV for the prompt cache).
  void reset();
  // Gives a shared sequence back before the stream ends: a generation cut short (cancelled, past
  // its deadline, failed) frees its KV; one that ended (END_OF_SEQUENCE, CONTEXT_FULL) keeps it.
  void release_sequence(bool keep_kv);

  // The flag whose setting stops this stream's grammar work (building the sampler, sampling) as
  // it stops llama_decode: TIMEOUT. Set once, by the context that owns both.
  void stop_grammar_on(const std::atomic<bool>& cancel) { cancel_ = &cancel; }

  // The tokens evaluated and generated since the last take, and their times (the host's token
  // metrics, context_take_token_stats); kept across reset(), so a sequence cut short still counts.
  void take_stats(wasinn_token_stats& out) noexcept {
    out = stats_;
    stats_ = {};
  }

  bool started() const { return started_; }
  // No token can follow (END_OF_SEQUENCE or CONTEXT_FULL was, or will be, the answer).
  bool has_ended() const { return ended_ != WASINN_OK; }
  // The answer ended itself: an end-of-generation token, the reverse prompt or a stop string
  // (llama-server's stop types eos and word), not a limit.
  bool stopped() const { return stopped_; }
  // It ended at an end-of-generation token (sampled, like any other, but not in tokens()).
  bool ended_at_eog() const { return eog_; }
  size_t prompt_tokens() const { return n_prompt_; }
  // Of those, the ones the prompt cache held (not evaluated again).
  size_t cached_tokens() const { return n_cached_; }
  const std::vector<llama_token>& tokens() const { return tokens_; }
  const std::string& text() const { return text_; }
  std::string_view last_piece() const { return std::string_view(text_).substr(last_piece_at_); }
  // With chat constraints: the text as llama-server's parser sees it (special tokens only when
  // preserved, cut before a stop string); what the chat's message is parsed from.
  const std::string& chat_text() const { return chat_text_; }

  // With options.n_probs > 0: the last token's log-probability and its n_probs likeliest
  // candidates' (each a token and its text), the log-softmax of the raw logits it was sampled from.
  struct Candidate {
    std::string piece;
    float logprob = 0;
  };
  struct Logprobs {
    Candidate chosen;
    std::vector<Candidate> top;
  };
  const Logprobs& last_logprobs() const { return last_logprobs_; }

 private:
  Error step();  // next() but for giving the shared sequence back
  // `seen`: the prompt's tokens the penalties and DRY count first (penalize-prompt), never the grammar.
  Error build_sampler(const LlamaOptions& options, const ChatConstraints* chat, std::span<const llama_token> seen);
  // The sampling chain after the grammar: LlamaOptions' samplers, each only when set.
  void add_samplers(const LlamaOptions& options, llama_sampler* chain) const;
  // Both begin()s: the checks of a prompt of n_tokens tokens at n_pos positions (`text`: its text
  // tokens), and the sampler.
  Error prepare(const llama_vocab* vocab, std::span<const llama_token> text, size_t n_tokens, size_t n_pos,
                uint32_t n_ctx, const LlamaOptions& options, const ChatConstraints* chat);
  // What begin() does once the prompt is in the KV (n_pos positions, n_tokens tokens).
  void mark_started(uint32_t n_pos, size_t n_tokens, const LlamaOptions& options);
  // The most tokens to generate after a prompt of n_pos positions (-1: no limit).
  int64_t predict_limit(uint32_t n_pos, const LlamaOptions& options) const;
  // The token after the last decoded one: its logits, from the context's or the sequence's.
  const float* last_logits() const;
  // llama_sampler_sample on those logits (the shared context's may be another step's by now).
  llama_token sample(const float* logits);
  Error feed_back(llama_token token, llama_pos pos);
  void note_logprobs(const std::vector<float>& logits, llama_token token);
  void count_token() noexcept;  // into stats_, for the token just generated
  // A shared sequence's token just sampled goes to the steps at once; the next call waits for it.
  // Without a grammar or logprobs, the steps then sample the tokens after it too (generating_).
  void decode_ahead();

  // The shared context's stepping thread sampling this stream (SharedContext::StepSampler): the
  // sampler chain and the limits of decode_ahead(), counted on that thread.
  struct StepSampling final : SharedContext::StepSampler {
    llama_sampler* sampler = nullptr;
    const llama_vocab* vocab = nullptr;
    std::vector<llama_token_data> candidates;
    size_t sampled = 0;  // tokens_.size() once each is taken
    int64_t n_predict = -1;
    uint32_t n_ctx = 0;
    Error sample(const float* logits, llama_pos pos, llama_token& token, bool& more) override;
  };

  // step_sampling_, set for the steps to sample from the token after `sampled` tokens on.
  StepSampling& step_sampling(size_t sampled, int64_t n_predict);

  // Grammar work that failed (cancelled, or past llama.cpp's patched stack cap) as a status.
  Error grammar_failure(const std::exception& e) const;

  const std::atomic<bool>* cancel_ = nullptr;
  llama_context* ctx_ = nullptr;                     // a context of its own, or
  std::unique_ptr<SharedContext::Sequence> shared_;  // a sequence of the shared one
  uint32_t threads_ = 1;
  bool started_ = false;
  std::vector<llama_token_data> candidates_;
  bool steps_may_sample_ = false;  // no grammar (whose work a hostile one stretches), no logprobs
  bool generating_ = false;        // the steps sample: tokens come from shared_->take()
  std::unique_ptr<StepSampling> step_sampling_;
  const llama_vocab* vocab_ = nullptr;
  SamplerPtr sampler_;
  uint32_t n_ctx_ = 0;
  uint32_t n_past_ = 0;              // tokens in the context's memory
  bool pending_ = false;             // tokens_.back() is sampled but not yet decoded
  wasinn_status ended_ = WASINN_OK;  // END_OF_SEQUENCE or CONTEXT_FULL once no token can follow
  int64_t n_predict_ = -1;
  std::string reverse_prompt_;
  size_t n_prompt_ = 0;
  size_t n_cached_ = 0;
  std::vector<llama_token> tokens_;
  std::string text_;
  size_t last_piece_at_ = 0;
  bool chat_ = false;
  bool stopped_ = false;
  bool eog_ = false;
  std::set<llama_token> preserved_;
  std::vector<std::string> stops_;
  std::string chat_text_;
  uint32_t n_probs_ = 0;
  Logprobs last_logprobs_;
  wasinn_token_stats stats_{};
  std::chrono::steady_clock::time_point began_at_, last_token_at_;  // for stats_' times
};

}  // namespace wasinn::llamacpp
