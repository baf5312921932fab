// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "token_stream.h"

#include <algorithm>
#include <cmath>
#include <exception>
#include <iterator>
#include <stdexcept>
#include <vector>

#include "llama_handles.h"

namespace wasinn::llamacpp {
namespace {

// Grammar work on this thread for one scope: llama.cpp, patched by
// scripts/deps/patches/llamacpp-grammar-bounds.patch, polls the cancel flag while it expands a
// grammar's stacks and throws once it is set (a hostile grammar would otherwise hold the worker for
// hours), or once one step holds more stacks than its cap.
class GrammarWork {
 public:
  explicit GrammarWork(const std::atomic<bool>* cancel) {
    if (cancel) llama_grammar_set_thread_abort_callback(abort_requested, const_cast<std::atomic<bool>*>(cancel));
  }
  ~GrammarWork() { llama_grammar_set_thread_abort_callback(nullptr, nullptr); }
  GrammarWork(const GrammarWork&) = delete;
  GrammarWork& operator=(const GrammarWork&) = delete;
};

// A token's text, with special tokens rendered as WasmEdge's plugin does (`special`), or left
// out as llama-server leaves out those its chat layer did not preserve.
std::string piece_of(const llama_vocab* vocab, llama_token token, bool special = true) {
  char small[64];
  int32_t n = llama_token_to_piece(vocab, token, small, sizeof small, 0, special);
  if (n >= 0) return std::string(small, static_cast<size_t>(n));
  std::string big(static_cast<size_t>(-n), '\0');
  n = llama_token_to_piece(vocab, token, big.data(), static_cast<int32_t>(big.size()), 0, special);
  big.resize(n > 0 ? static_cast<size_t>(n) : 0);
  return big;
}

// The sampler chain's token from a row of logits (and the chain told it was chosen).
llama_token sample_token(llama_sampler* sampler, const float* logits, size_t n_vocab,
                         std::vector<llama_token_data>& candidates) {
  candidates.resize(n_vocab);
  for (size_t i = 0; i < n_vocab; ++i) candidates[i] = {static_cast<llama_token>(i), logits[i], 0.0f};
  llama_token_data_array cur{candidates.data(), candidates.size(), -1, false};
  llama_sampler_apply(sampler, &cur);
  if (cur.selected < 0 || static_cast<size_t>(cur.selected) >= cur.size) {
    throw std::runtime_error("the sampler chain selected no token");
  }
  const llama_token token = cur.data[cur.selected].id;
  llama_sampler_accept(sampler, token);
  return token;
}

// llama_decode's code for a batch of n tokens as a status.
Error batch_status(int32_t rc, int32_t n) {
  return decode_status(rc, "the context for " + std::to_string(n) + " tokens");
}

// One token at an explicit position: after a prompt with images, the one libmtmd returned (an
// image may span more positions than tokens, or fewer: M-RoPE), as llama-mtmd-cli feeds it.
Error decode_at(llama_context* ctx, llama_token token, llama_pos pos) {
  llama_seq_id seq = 0;
  llama_seq_id* seqs = &seq;
  int32_t n_seq = 1;
  int8_t output = 1;
  const llama_batch batch{1, &token, nullptr, &pos, &n_seq, &seqs, &output};
  return batch_status(llama_decode(ctx, batch), 1);
}

}  // namespace

Error decode_tokens(llama_context* ctx, std::span<llama_token> tokens) {
  const size_t batch = std::max<uint32_t>(1, llama_n_batch(ctx));
  for (size_t at = 0; at < tokens.size(); at += batch) {
    const auto n = static_cast<int32_t>(std::min(batch, tokens.size() - at));
    if (Error e = batch_status(llama_decode(ctx, llama_batch_get_one(tokens.data() + at, n)), n)) return e;
  }
  return {};
}

void TokenStream::add_samplers(const LlamaOptions& o, llama_sampler* chain) const {
  const auto add = [chain](llama_sampler* s) { llama_sampler_chain_add(chain, s); };
  const auto window = [this](int64_t last_n) {  // -1: the whole context
    return last_n < 0 ? static_cast<int32_t>(n_ctx_) : static_cast<int32_t>(last_n);
  };
  const auto min_keep = static_cast<size_t>(o.min_keep);
  const auto seed = o.seed;
  // llama.cpp's common sampler in its default order (llama-server's, WasmEdge's): each filter only
  // when set, as an unset one passes every candidate on and draws nothing from its RNG.
  if (o.ignore_eos) {  // as llama-server's ignore_eos: every end-of-generation token at -inf
    std::vector<llama_logit_bias> never;
    for (llama_token t = 0; t < llama_vocab_n_tokens(vocab_); ++t)
      if (llama_vocab_is_eog(vocab_, t)) never.push_back({t, -INFINITY});
    add(llama_sampler_init_logit_bias(llama_vocab_n_tokens(vocab_), static_cast<int32_t>(never.size()), never.data()));
  }
  // Mirostat replaces the whole filter chain, the penalties and DRY included (as in llama.cpp).
  const bool penalties = o.repeat_penalty != 1.0 || o.presence_penalty != 0.0 || o.frequency_penalty != 0.0;
  if (penalties && o.mirostat == 0) {
    add(llama_sampler_init_penalties(llama_vocab_n_tokens(vocab_), window(o.repeat_last_n),
                                     static_cast<float>(o.repeat_penalty), static_cast<float>(o.frequency_penalty),
                                     static_cast<float>(o.presence_penalty)));
  }
  if (o.dry_multiplier > 0.0 && o.mirostat == 0) {
    static const char* kBreakers[] = {"\n", ":", "\"", "*"};  // common_params_sampling's
    add(llama_sampler_init_dry(vocab_, static_cast<float>(o.dry_multiplier), static_cast<float>(o.dry_base),
                               static_cast<int32_t>(o.dry_allowed_length), window(o.dry_penalty_last_n), kBreakers,
                               std::size(kBreakers)));
  }
  // Greedy (temperature 0 without a dynamic range above it): the filters keep the likeliest token,
  // so they matter only to XTC, which may take it away from among the candidates they leave.
  const bool greedy = o.temp <= 0.0 && o.dynatemp_range <= 0.0;
  const bool filters = !greedy || (o.xtc_probability > 0.0 && o.mirostat == 0);
  if (greedy && !filters) {
    add(llama_sampler_init_greedy());
    return;
  }
  if (o.mirostat == 1 && !greedy) {
    add(llama_sampler_init_temp(static_cast<float>(o.temp)));
    add(llama_sampler_init_mirostat(llama_vocab_n_tokens(vocab_), seed, static_cast<float>(o.mirostat_tau),
                                    static_cast<float>(o.mirostat_eta), 100));
    return;
  }
  if (o.mirostat == 2 && !greedy) {
    add(llama_sampler_init_temp(static_cast<float>(o.temp)));
    add(llama_sampler_init_mirostat_v2(seed, static_cast<float>(o.mirostat_tau), static_cast<float>(o.mirostat_eta)));
    return;
  }
  if (o.top_k > 0) add(llama_sampler_init_top_k(static_cast<int32_t>(o.top_k)));
  if (o.typ_p < 1.0) add(llama_sampler_init_typical(static_cast<float>(o.typ_p), min_keep));
  add(llama_sampler_init_top_p(static_cast<float>(o.top_p), std::max<size_t>(min_keep, 1)));
  if (o.min_p > 0.0) add(llama_sampler_init_min_p(static_cast<float>(o.min_p), std::max<size_t>(min_keep, 1)));
  if (o.xtc_probability > 0.0)
    add(llama_sampler_init_xtc(static_cast<float>(o.xtc_probability), static_cast<float>(o.xtc_threshold), min_keep,
                               seed));
  if (greedy) {
    add(llama_sampler_init_greedy());
    return;
  }
  add(llama_sampler_init_temp_ext(static_cast<float>(o.temp), static_cast<float>(o.dynatemp_range),
                                  static_cast<float>(o.dynatemp_exponent)));
  add(llama_sampler_init_dist(seed));
}

Error TokenStream::build_sampler(const LlamaOptions& o, const ChatConstraints* chat,
                                 std::span<const llama_token> seen) {
  llama_sampler_chain_params params = llama_sampler_chain_default_params();
  params.no_perf = true;
  SamplerPtr chain(llama_sampler_chain_init(params));
  if (!chain) return sdk::runtime_error("could not create a sampler chain");
  // The chat layer's grammar replaces the options' one, as in llama-server.
  const bool from_chat = chat && !chat->grammar.empty();
  const std::string& grammar = from_chat ? chat->grammar : o.grammar;
  if (!grammar.empty()) {
    SamplerPtr g;
    try {
      GrammarWork bounded(cancel_);
      if (from_chat && chat->grammar_lazy) {
        std::vector<const char*> patterns;
        for (const auto& p : chat->trigger_patterns) patterns.push_back(p.c_str());
        g.reset(llama_sampler_init_grammar_lazy_patterns(vocab_, grammar.c_str(), "root", patterns.data(),
                                                         patterns.size(), chat->trigger_tokens.data(),
                                                         chat->trigger_tokens.size()));
      } else {
        g.reset(llama_sampler_init_grammar(vocab_, grammar.c_str(), "root"));
      }
      // llama-server's common_sampler: the chat layer's grammar, unless lazy, first accepts the
      // generation prompt the template already wrote (the options' own grammar does not).
      if (g && from_chat && !chat->grammar_lazy) {
        try {
          for (llama_token t : chat->prefill) llama_sampler_accept(g.get(), t);
        } catch (const std::exception& e) {
          if (cancel_ && cancel_->load()) throw;
          // llama-server refuses such a request too ("Failed to initialize samplers").
          return sdk::invalid(
              "the grammar llama.cpp's chat layer made for this chat cannot accept the template's generation "
              "prompt as this model's vocabulary tokenizes it (its markers are not special tokens here): " +
              std::string(e.what()));
        }
      }
    } catch (const std::exception& e) {
      return grammar_failure(e);
    }
    if (!g && from_chat) {
      return sdk::invalid("the grammar llama.cpp's chat layer made for this chat's tools could not be parsed");
    }
    if (!g) {
      return sdk::invalid(
          "config key \"grammar\" is not a valid GBNF grammar with a 'root' rule, or exceeds llama.cpp's limits "
          "(at most 2000 repetitions of a rule, no left recursion)");
    }
    llama_sampler_chain_add(chain.get(), g.release());
  }
  const int32_t after_grammar = llama_sampler_chain_n(chain.get());
  add_samplers(o, chain.get());
  // llama-server's init_sampler: every prompt token accepted by the chain but not the grammar,
  // so the penalties' and DRY's windows begin with the prompt's last tokens.
  if (o.penalize_prompt) {
    for (int32_t i = after_grammar; i < llama_sampler_chain_n(chain.get()); ++i) {
      llama_sampler* s = llama_sampler_chain_get(chain.get(), i);
      for (llama_token t : seen) llama_sampler_accept(s, t);
    }
  }
  sampler_ = std::move(chain);
  return {};
}

Error TokenStream::begin(llama_context* ctx, const llama_vocab* vocab, std::span<const llama_token> prompt,
                         uint32_t n_ctx, const LlamaOptions& options, const ChatConstraints* chat) {
  Feed feed;
  feed.n_tokens = feed.n_pos = prompt.size();
  feed.text_tokens = prompt;
  feed.decode = [prompt](llama_context* c, uint32_t& n_pos) -> Error {
    std::vector<llama_token> tokens(prompt.begin(), prompt.end());  // llama_batch wants non-const
    if (Error e = decode_tokens(c, tokens)) return e;
    n_pos = static_cast<uint32_t>(tokens.size());
    return {};
  };
  return begin(ctx, vocab, feed, n_ctx, options, chat);
}

Error TokenStream::begin(llama_context* ctx, const llama_vocab* vocab, const Feed& prompt, uint32_t n_ctx,
                         const LlamaOptions& options, const ChatConstraints* chat) {
  if (Error e = prepare(vocab, prompt.text_tokens, prompt.n_tokens, prompt.n_pos, n_ctx, options, chat)) return e;
  llama_memory_clear(llama_get_memory(ctx), true);
  uint32_t n_pos = 0;
  if (Error e = prompt.decode(ctx, n_pos)) {
    reset();
    return e;
  }
  ctx_ = ctx;
  mark_started(n_pos, prompt.n_tokens, options);
  return {};
}

Error TokenStream::begin(std::unique_ptr<SharedContext::Sequence> seq, const llama_vocab* vocab,
                         std::span<const llama_token> prompt, uint32_t n_ctx, const LlamaOptions& options,
                         const ChatConstraints* chat) {
  if (Error e = prepare(vocab, prompt, prompt.size(), prompt.size(), n_ctx, options, chat)) return e;
  // The prompt cache's part of the prompt is in the sequence's KV already.
  const size_t cached = seq->cached();
  const auto rest = prompt.subspan(cached);
  const int64_t n_predict = predict_limit(static_cast<uint32_t>(prompt.size()), options);
  Error e;
  if (steps_may_sample_ && n_predict != 0) {
    // The steps sample the first token too and go on at once: the step after the prompt's does
    // not wait for this thread to wake, sample and queue it.
    generating_ = true;
    seq->generate(rest, static_cast<llama_pos>(cached), step_sampling(0, n_predict), *cancel_, threads_);
    e = seq->first_ready();
  } else {
    e = seq->decode(rest, static_cast<llama_pos>(cached), *cancel_, threads_);
  }
  if (e) {
    seq->release(false);
    reset();
    return e;
  }
  shared_ = std::move(seq);
  n_cached_ = cached;
  stats_.cached_prompt_tokens += cached;
  stats_.prompt_cache_hits += cached > 0 ? 1 : 0;
  mark_started(static_cast<uint32_t>(prompt.size()), prompt.size(), options);
  return {};
}

Error TokenStream::prepare(const llama_vocab* vocab, std::span<const llama_token> text, size_t n_tokens, size_t n_pos,
                           uint32_t n_ctx, const LlamaOptions& options, const ChatConstraints* chat) {
  reset();
  began_at_ = std::chrono::steady_clock::now();
  if (n_tokens == 0) return sdk::invalid("the prompt has no tokens");
  if (n_pos >= n_ctx) {
    return {WASINN_PROMPT_TOO_LONG, "the prompt has " + std::to_string(n_pos) + " tokens; the context holds " +
                                        std::to_string(n_ctx) + " (raise ctx-size or shorten the prompt)"};
  }
  if (options.max_tokens > n_ctx) {
    return sdk::invalid("max-tokens is " + std::to_string(options.max_tokens) + ", over the context's " +
                        std::to_string(n_ctx) + " tokens (raise ctx-size or ask fewer)");
  }
  vocab_ = vocab;
  n_ctx_ = n_ctx;
  threads_ = options.effective_threads();
  if (Error e = build_sampler(options, chat, text)) return e;
  chat_ = chat != nullptr;
  steps_may_sample_ = options.grammar.empty() && (!chat || chat->grammar.empty()) && options.n_probs == 0;
  if (chat) {
    preserved_ = chat->preserved;
    stops_ = chat->stops;
  }
  return {};
}

void TokenStream::mark_started(uint32_t n_pos, size_t n_tokens, const LlamaOptions& options) {
  started_ = true;
  n_past_ = n_pos;
  n_prompt_ = n_tokens;
  stats_.prompt_tokens += n_tokens;
  n_predict_ = predict_limit(n_pos, options);
  n_probs_ = options.n_probs;
  reverse_prompt_ = options.reverse_prompt;
}

int64_t TokenStream::predict_limit(uint32_t n_pos, const LlamaOptions& options) const {
  // max-tokens: within the room the prompt leaves (-1: all of it), so a full context ends no answer
  // past what its usage can hold.
  const int64_t room = static_cast<int64_t>(n_ctx_) - static_cast<int64_t>(n_pos);
  return options.max_tokens == 0  ? options.n_predict
         : options.max_tokens < 0 ? room
                                  : std::min(options.max_tokens, room);
}

const float* TokenStream::last_logits() const { return shared_ ? shared_->logits() : llama_get_logits_ith(ctx_, -1); }

Error TokenStream::feed_back(llama_token token, llama_pos pos) {
  if (!shared_) return decode_at(ctx_, token, pos);
  return shared_->decode(std::span<const llama_token>(&token, 1), pos, *cancel_, threads_);
}

llama_token TokenStream::sample(const float* logits) {
  return sample_token(sampler_.get(), logits, static_cast<size_t>(llama_vocab_n_tokens(vocab_)), candidates_);
}

Error TokenStream::StepSampling::sample(const float* logits, llama_pos pos, llama_token& token, bool& more) {
  try {
    token = sample_token(sampler, logits, static_cast<size_t>(llama_vocab_n_tokens(vocab)), candidates);
  } catch (const std::exception& e) {
    return sdk::runtime_error(std::string("sampling failed: ") + e.what());
  }
  ++sampled;
  // decode_ahead()'s conditions for the token after: not an end, within n-predict and the context.
  more = !llama_vocab_is_eog(vocab, token) && (n_predict < 0 || sampled < static_cast<size_t>(n_predict)) &&
         pos + 1 < static_cast<llama_pos>(n_ctx);
  return {};
}

void TokenStream::release_sequence(bool keep_kv) {
  if (shared_) shared_->release(keep_kv);  // after it, the steps no longer touch sampler_
  shared_.reset();
  generating_ = false;
}

Error TokenStream::next() {
  Error e = step();
  // The shared sequence goes back as soon as no token can follow, or the answer is cut.
  if (shared_ && (ended_ != WASINN_OK || (e && e.status != WASINN_END_OF_SEQUENCE && e.status != WASINN_CONTEXT_FULL)))
    release_sequence(ended_ != WASINN_OK);
  return e;
}

Error TokenStream::step() {
  if (!started_) return sdk::invalid("no sequence has begun");
  if (ended_ == WASINN_END_OF_SEQUENCE) return {ended_, "the sequence has ended"};
  if (ended_ == WASINN_CONTEXT_FULL) return {ended_, "the context is full (" + std::to_string(n_ctx_) + " tokens)"};
  if (n_predict_ >= 0 && tokens_.size() >= static_cast<size_t>(n_predict_)) {
    ended_ = WASINN_END_OF_SEQUENCE;
    return {ended_, "n-predict tokens were generated"};
  }
  llama_token token = LLAMA_TOKEN_NULL;
  if (pending_) {
    if (n_past_ >= n_ctx_) {
      ended_ = WASINN_CONTEXT_FULL;
      return {ended_, "the context is full (" + std::to_string(n_ctx_) + " tokens)"};
    }
    if (generating_) {
      if (Error e = shared_->take(token)) return e;  // decoded and sampled by the steps
    } else if (shared_ && shared_->in_flight()) {
      if (Error e = shared_->wait()) return e;  // decoded ahead, at the end of the last call
    } else if (Error e = feed_back(tokens_.back(), static_cast<llama_pos>(n_past_))) {
      return e;
    }
    ++n_past_;
    pending_ = false;
  } else if (generating_ && tokens_.empty()) {
    if (Error e = shared_->take(token)) return e;  // the prompt's first, sampled by its step
  }
  // The raw logits, before the sampler's own changes: what OpenAI's logprobs report.
  std::vector<float> logits;
  if (token == LLAMA_TOKEN_NULL) {
    // None when the last decode asked for none (a prompt ending in an image): the sampler would abort.
    const float* raw = last_logits();
    if (!raw) return sdk::runtime_error("the model gave no logits to sample the next token from");
    if (n_probs_ > 0) logits.assign(raw, raw + llama_vocab_n_tokens(vocab_));
    try {
      GrammarWork bounded(cancel_);
      token = sample(raw);
    } catch (const std::exception& e) {
      return grammar_failure(e);  // the grammar's state is unknown now: the caller starts over
    }
  }
  if (llama_vocab_is_eog(vocab_, token)) {
    ended_ = WASINN_END_OF_SEQUENCE;
    stopped_ = true;
    eog_ = true;
    return {ended_, "the model ended the sequence"};
  }
  if (n_probs_ > 0) note_logprobs(logits, token);
  tokens_.push_back(token);
  pending_ = true;
  count_token();
  last_piece_at_ = text_.size();
  text_ += piece_of(vocab_, token);
  if (chat_) {
    // As llama-server: a special token's text only when the chat layer preserved it, and the
    // text ends before a stop string (which ends the answer).
    const size_t at = chat_text_.size();
    chat_text_ += piece_of(vocab_, token, preserved_.count(token) > 0);
    for (const auto& stop : stops_) {
      if (stop.empty()) continue;
      const size_t from = at >= stop.size() ? at - stop.size() + 1 : 0;
      const size_t found = chat_text_.find(stop, from);
      if (found != std::string::npos) {
        chat_text_.resize(found);
        ended_ = WASINN_END_OF_SEQUENCE;
        stopped_ = true;
      }
    }
  }
  if (!reverse_prompt_.empty()) {
    // Only the tail can hold a new match: the new piece plus what could straddle into it.
    const size_t from = last_piece_at_ >= reverse_prompt_.size() ? last_piece_at_ - reverse_prompt_.size() + 1 : 0;
    if (text_.find(reverse_prompt_, from) != std::string::npos) {
      ended_ = WASINN_END_OF_SEQUENCE;
      stopped_ = true;
    }
  }
  decode_ahead();
  return {};
}

void TokenStream::decode_ahead() {
  // Only where a token will surely be asked for next: not past the end, n-predict or the context.
  if (!shared_ || !pending_ || ended_ != WASINN_OK || n_past_ >= n_ctx_) return;
  if (n_predict_ >= 0 && tokens_.size() >= static_cast<size_t>(n_predict_)) return;
  if (generating_) return;  // the steps went on with it already
  if (!steps_may_sample_) {
    shared_->submit(tokens_.back(), static_cast<llama_pos>(n_past_), *cancel_, threads_);
    return;
  }
  shared_->generate(std::span<const llama_token>(&tokens_.back(), 1), static_cast<llama_pos>(n_past_),
                    step_sampling(tokens_.size(), n_predict_), *cancel_, threads_);
  generating_ = true;
}

TokenStream::StepSampling& TokenStream::step_sampling(size_t sampled, int64_t n_predict) {
  if (!step_sampling_) step_sampling_ = std::make_unique<StepSampling>();
  StepSampling& s = *step_sampling_;
  s.sampler = sampler_.get();
  s.vocab = vocab_;
  s.sampled = sampled;
  s.n_predict = n_predict;
  s.n_ctx = n_ctx_;
  return s;
}

Error TokenStream::grammar_failure(const std::exception& e) const {
  if (cancel_ && cancel_->load()) return {WASINN_TIMEOUT, "generation was cancelled"};
  return sdk::invalid(std::string("\"grammar\" (or \"json-schema\") is too complex to sample with: ") + e.what());
}

Error TokenStream::end_if_no_slot() {
  if (ended_ != WASINN_OK || !pending_ || n_past_ < n_ctx_) return {};
  ended_ = WASINN_CONTEXT_FULL;
  release_sequence(true);
  return {ended_, "the context is full (" + std::to_string(n_ctx_) + " tokens)"};
}

void TokenStream::note_logprobs(const std::vector<float>& logits, llama_token token) {
  const float top = *std::max_element(logits.begin(), logits.end());
  double sum = 0;
  for (float l : logits) sum += std::exp(static_cast<double>(l - top));
  const auto log_norm = static_cast<float>(top + std::log(sum));
  std::vector<llama_token> order(logits.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<llama_token>(i);
  const size_t k = std::min<size_t>(n_probs_, order.size());
  // The likeliest first; equal logits in token order, as the greedy sampler picks.
  std::partial_sort(
      order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k), order.end(),
      [&](llama_token a, llama_token b) { return logits[a] > logits[b] || (logits[a] == logits[b] && a < b); });
  last_logprobs_.chosen = {piece_of(vocab_, token), logits[token] - log_norm};
  last_logprobs_.top.clear();
  for (size_t i = 0; i < k; ++i)
    last_logprobs_.top.push_back({piece_of(vocab_, order[i]), logits[order[i]] - log_norm});
}

void TokenStream::count_token() noexcept {
  const auto now = std::chrono::steady_clock::now();
  const auto nanos = [](auto d) {
    return static_cast<uint64_t>(std::max<int64_t>(0, std::chrono::nanoseconds(d).count()));
  };
  ++stats_.generated_tokens;
  if (tokens_.size() == 1) {
    stats_.first_tokens = 1;
    stats_.first_token_nanos = nanos(now - began_at_);
  } else {
    ++stats_.decode_tokens;
    stats_.decode_nanos += nanos(now - last_token_at_);
  }
  last_token_at_ = now;
}

void TokenStream::reset() {
  release_sequence(true);
  ctx_ = nullptr;
  started_ = false;
  n_cached_ = 0;
  sampler_.reset();
  n_past_ = 0;
  pending_ = false;
  ended_ = WASINN_OK;
  n_prompt_ = 0;
  tokens_.clear();
  text_.clear();
  last_piece_at_ = 0;
  chat_ = false;
  stopped_ = false;
  eog_ = false;
  preserved_.clear();
  stops_.clear();
  chat_text_.clear();
  last_logprobs_ = {};
}

}  // namespace wasinn::llamacpp
