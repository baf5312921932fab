// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// set_input / compute / get_output, the streaming trio and cancel for one context.
#include "context.h"

#include <mtmd-helper.h>

#include <algorithm>
#include <cstring>
#include <climits>
#include <cstdio>
#include <iterator>

#include <nlohmann/json.hpp>

#include "backend.h"
#include "chat_template.h"
#include "devices.h"
#include "embedding.h"
#include "graph.h"
#include "audio_common/audio_encode.h"
#include "ggml_common/log_router.h"

namespace wasinn::llamacpp {

using ggml_common::debug_note;
using ggml_common::LogScope;
using ggml_common::note;
namespace {

constexpr size_t kMetadata = 1;  // input 1 and output 1; slot 0 is the prompt, or the text
constexpr size_t kMessages = 2;  // input 2: a chat, which the model's template makes the prompt
constexpr size_t kImage = 3;     // input 3: an image file's bytes, for a graph with a projector

Error no_projector(std::string_view what) {
  return sdk::invalid(std::string(what) +
                      ": the model was loaded without a multimodal projector; give its path as \"mmproj\" in the "
                      "load config, or as the preload's last file (NAME:GGML:AUTO:model.gguf:mmproj.gguf)");
}

}  // namespace

Error LlamaGraph::create_context(std::unique_ptr<LlamaContext>& out) {
  out = std::make_unique<LlamaContext>(*this);  // the llama_context is made at first compute
  return {};
}

LlamaContext::LlamaContext(LlamaGraph& graph) : graph_(&graph), options_(graph.options()) {}

ContextShape LlamaContext::wanted_shape() const {
  const LlamaOptions& o = options_;
  ContextShape s;
  s.n_ctx = o.ctx_size > 0 ? o.ctx_size : (graph_->n_ctx_train() > 0 ? graph_->n_ctx_train() : 512);
  s.n_batch = std::min(o.batch_size, s.n_ctx);
  // Pooled embeddings need the whole prompt in one physical batch.
  s.embedding = o.embedding || o.reranking;
  s.n_ubatch = s.embedding ? s.n_batch : std::min(o.ubatch_size, s.n_batch);
  s.rope = RopeOptions::of(o);
  if (s.embedding) {
    s.pooling = static_cast<int32_t>(o.pooling_type);
    s.attention = static_cast<int32_t>(o.attention_type);
  }
  return s;
}

// Makes the llama_context match the options; only this context's KV cache is remade.
Error LlamaContext::prepare_llama_context(const LogScope& scope) {
  const ContextShape want = wanted_shape();
  const auto threads = static_cast<int32_t>(options_.effective_threads());
  if (llama_ && shape_ == want) {
    if (llama_n_threads(llama_.get()) != threads) llama_set_n_threads(llama_.get(), threads, threads);
    return {};
  }
  stream_.reset();  // it points at the llama_context about to go
  llama_.reset();
  llama_context_params p = llama_context_default_params();
  p.n_ctx = want.n_ctx;
  p.n_batch = want.n_batch;
  p.n_ubatch = want.n_ubatch;
  p.n_seq_max = 1;
  p.n_threads = threads;
  p.n_threads_batch = threads;
  p.embeddings = want.embedding;
  p.abort_callback = abort_requested;
  p.abort_callback_data = &cancel_requested_;
  p.no_perf = !options_.enable_log;
  want.rope.apply(p);
  p.pooling_type = static_cast<enum llama_pooling_type>(want.pooling);
  p.attention_type = static_cast<llama_attention_type>(want.attention);
  llama_context* made = nullptr;
  {
    const auto reading = DeviceSet::get().registry_reader();  // it reads ggml's device registry
    made = llama_init_from_model(graph_->model(), p);
  }
  if (!made) {
    return sdk::runtime_error("could not create a llama context of " + std::to_string(want.n_ctx) + " tokens" +
                              (scope.errors().empty() ? "" : ": " + scope.errors()));
  }
  llama_.reset(made);
  shape_ = want;
  debug_note(options_.enable_debug_log, [&] {
    return "context: n_ctx " + std::to_string(want.n_ctx) + ", n_batch " + std::to_string(want.n_batch) +
           ", n_ubatch " + std::to_string(want.n_ubatch) + ", threads " + std::to_string(threads) +
           (want.embedding ? ", embeddings" : "");
  });
  return {};
}

Error LlamaContext::tokenize(std::string_view text, std::vector<llama_token>& out, bool add_special) const {
  if (text.size() > static_cast<size_t>(INT32_MAX / 2)) {
    return {WASINN_TOO_LARGE, "the prompt of " + std::to_string(text.size()) + " bytes is too large to tokenize"};
  }
  // Tokenizing cannot be interrupted, and a 10 MB prompt takes seconds: one that cannot fit the
  // context whatever its tokens (no token covers more than longest_piece bytes; x4 for tokenizers
  // that normalize text away) is refused before it starts.
  const uint64_t n_ctx = wanted_shape().n_ctx;
  if (text.size() > 4 * n_ctx * graph_->longest_piece() + 4096) {
    return {WASINN_PROMPT_TOO_LONG, "the prompt of " + std::to_string(text.size()) + " bytes cannot fit a context of " +
                                        std::to_string(n_ctx) + " tokens (no token of this model covers more than " +
                                        std::to_string(graph_->longest_piece()) +
                                        " bytes); raise ctx-size before setting the prompt, or shorten it"};
  }
  const auto len = static_cast<int32_t>(text.size());
  const llama_vocab* vocab = graph_->vocab();
  // A first guess that fits most prompts; a longer prompt is measured by the first call, so a
  // huge input never makes a buffer of one token per byte.
  out.resize(std::min<size_t>(text.size() + 8, 4096));
  int32_t n = llama_tokenize(vocab, text.data(), len, out.data(), static_cast<int32_t>(out.size()), add_special,
                             /*parse_special=*/true);
  if (n < 0 && n != INT32_MIN) {
    out.resize(static_cast<size_t>(-n));
    n = llama_tokenize(vocab, text.data(), len, out.data(), -n, add_special, true);
  }
  if (n < 0) return sdk::invalid("the prompt could not be tokenized");
  out.resize(static_cast<size_t>(n));
  return {};
}

Error LlamaContext::tokenize_tts_prompt(std::string_view text, std::vector<llama_token>& out) const {
  const SpeakerProfile& speaker = *graph_->speaker();
  const std::string words = normalize_tts_text(text);
  // Without words the model speaks the speaker prompt alone (2 s of someone else's audio):
  // refused, as an empty prompt is for text generation.
  if (words.empty()) {
    return sdk::invalid(
        "text to speech got no words to speak (input 0 is empty or holds only spaces and "
        "punctuation)");
  }
  // Piece by piece, as WasmEdge tokenizes it: BPE merges never cross the pieces' bounds.
  const std::string_view pieces[] = {"<|im_start|>\n", speaker.text, words, "<|text_end|>\n", speaker.data};
  std::vector<llama_token> all, part;
  for (size_t i = 0; i < std::size(pieces); ++i) {
    if (Error e = tokenize(pieces[i], part, /*add_special=*/i == 0)) return e;
    all.insert(all.end(), part.begin(), part.end());
  }
  out = std::move(all);
  return {};
}

Error LlamaContext::speak() {
  // OuteTTS's codes among the generated tokens, as WasmEdge picks them (the rest are words and
  // durations).
  std::vector<llama_token> codes;
  for (llama_token t : stream_.tokens())
    if (t >= kFirstCodeToken && t <= kLastCodeToken) codes.push_back(t - kFirstCodeToken);
  std::vector<float> audio;
  if (Error e = graph_->vocoder()->speak(codes, options_.effective_threads(), cancel_requested_, audio)) return e;
  wav_ = tts_wav(audio, kTtsSampleRate);
  const auto format = audio_common::parse_audio_format(options_.audio_format);
  if (format && *format != audio_common::AudioFormat::wav) {
    // The WAV's samples, as they are, in another file ("audio-format"): the same quantization.
    const size_t header = wav_.size() - 2 * audio.size();
    std::vector<int16_t> samples(audio.size());
    std::memcpy(samples.data(), wav_.data() + header, 2 * samples.size());
    std::vector<uint8_t> encoded;
    if (std::string why = audio_common::encode_audio(*format, samples, kTtsSampleRate, encoded); !why.empty())
      return sdk::runtime_error("\"audio-format\" " + options_.audio_format + ": " + why);
    wav_ = std::move(encoded);
  }
  debug_note(options_.enable_debug_log, [&] {
    return "tts: " + std::to_string(codes.size()) + " codes of " + std::to_string(stream_.tokens().size()) +
           " tokens, " + std::to_string(audio.size()) + " samples";
  });
  const std::string& path = options_.tts_output_file;
  if (!path.empty()) {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    const bool written = f && std::fwrite(wav_.data(), 1, wav_.size(), f) == wav_.size();
    if ((f && std::fclose(f) != 0) || !written) {
      return sdk::runtime_error("\"tts-output-file\": could not write " + std::to_string(wav_.size()) + " bytes to " +
                                path);
    }
  }
  return {};
}

void LlamaContext::set_metadata(wasinn_tensor& out) {
  metadata_ = "{\"input_tokens\": " + std::to_string(n_prompt_tokens_) +
              ", \"cached_tokens\": " + std::to_string(stream_.cached_tokens()) +
              ", \"output_tokens\": " + std::to_string(stream_.tokens().size()) +
              ", \"context_size\": " + std::to_string(wanted_shape().n_ctx) +
              ", \"llama_build_number\": " + std::to_string(WASINN_LLAMA_BUILD_NUMBER) +
              ", \"llama_commit\": \"" WASINN_LLAMA_COMMIT "\"}";
  if (reply_) {  // a generation from input 2: its message so far, parsed as llama-server parses it
    const bool ended = stream_.has_ended() || !streaming_;
    if (stream_.started()) reply_->update(stream_.chat_text(), ended);
    metadata_.pop_back();
    metadata_ += ", \"message\": " + reply_->json();
    // As llama-server's finish_reason, once no token can follow: "tool_calls" or "stop" when the
    // model (or a stop string) ended the answer, "length" at a limit (n-predict, a full context).
    if (stream_.has_ended()) {
      const char* finish = !stream_.stopped() ? "length" : reply_->has_tool_calls() ? "tool_calls" : "stop";
      metadata_ += ", \"finish\": \"" + std::string(finish) + "\"";
      // llama-server's completion_tokens also counts the end-of-generation token it sampled.
      if (stream_.ended_at_eog()) metadata_ += ", \"eog\": true";
    }
    if (ended && !reply_->parse_error().empty())
      metadata_ += ", \"parse_error\": " +
                   nlohmann::json(reply_->parse_error()).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    metadata_ += "}";
  }
  if (options_.n_probs > 0 && !stream_.tokens().empty()) {  // "n-probs": the last token's logprobs
    const auto& lp = stream_.last_logprobs();
    nlohmann::json top = nlohmann::json::array();
    for (const auto& c : lp.top) top.push_back({c.piece, c.logprob});
    metadata_.pop_back();
    metadata_ += ", \"logprobs\": " +
                 nlohmann::json{{"token", lp.chosen.piece}, {"logprob", lp.chosen.logprob}, {"top", top}}.dump(
                     -1, ' ', false, nlohmann::json::error_handler_t::replace) +
                 "}";
  }
  sdk::bytes_output(metadata_, out_dims_[0], out);
}

void LlamaContext::print_perf() {
  if (SharedContext* shared = shared_used_.load()) {
    shared->print_perf();
  } else if (llama_) {
    llama_perf_context_print(llama_.get());
  }
}

// Streams of compute() and compute_single() start the same way: on a sequence of the graph's
// shared context when the prompt is text of the shape it was made for and one is idle, else on
// this context's own llama_context.
Error LlamaContext::start_generation(const LogScope& scope) {
  if (!has_prompt_) return sdk::invalid("no prompt: set input 0 (\"prompt\") first");
  output_is_embedding_ = false;
  stream_.stop_grammar_on(cancel_requested_);
  reply_.reset();
  const ChatConstraints* chat = chat_ ? &chat_->constraints : nullptr;
  if (chat_) reply_ = std::make_unique<ChatReply>(chat_->parser, chat_->constraints.stops);
  const ContextShape want = wanted_shape();
  shared_used_ = nullptr;
  if (!chunks_ && !graph_->vocoder()) {
    if (SharedContext* shared = graph_->shared_context(want, options_.effective_threads())) {
      auto seq = std::make_unique<SharedContext::Sequence>();
      if (shared->acquire(prompt_, options_.cache_partition, *seq)) {
        const uint32_t n_ctx = std::min(want.n_ctx, shared->n_ctx_seq());
        shared_used_ = shared;
        return stream_.begin(std::move(seq), graph_->vocab(), prompt_, n_ctx, options_, chat);
      }
    }
  }
  if (Error e = prepare_llama_context(scope)) return e;
  const uint32_t n_ctx = std::min(shape_.n_ctx, llama_n_ctx(llama_.get()));
  if (!chunks_) return stream_.begin(llama_.get(), graph_->vocab(), prompt_, n_ctx, options_, chat);
  TokenStream::Feed feed;
  feed.n_tokens = mtmd_helper_get_n_tokens(chunks_.get());
  feed.n_pos = static_cast<size_t>(mtmd_helper_get_n_pos(chunks_.get()));
  const std::vector<llama_token> text = text_tokens(chunks_.get());
  feed.text_tokens = text;
  feed.decode = [&](llama_context* c, uint32_t& n_pos) {
    return graph_->projector()->eval(c, chunks_.get(), cancel_requested_, scope, n_pos);
  };
  return stream_.begin(llama_.get(), graph_->vocab(), feed, n_ctx, options_, chat);
}

// The images of the next prompt, from one source: the prompt's inline images, else input 3, else
// the "image" file. `owned` keeps the bitmaps decoded here alive.
Error LlamaContext::collect_images(std::vector<std::string>& inline_images, const LogScope& scope,
                                   std::vector<BitmapPtr>& owned, std::vector<const mtmd_bitmap*>& images) const {
  const Projector* projector = graph_->projector();
  if (!inline_images.empty()) {
    if (!projector) return no_projector("the prompt's inline image");
    for (size_t i = 0; i < inline_images.size(); ++i) {
      BitmapPtr b;
      if (Error e = projector->decode(inline_images[i], "the prompt's inline image " + std::to_string(i + 1), scope, b))
        return e;
      images.push_back(owned.emplace_back(std::move(b)).get());
    }
  } else if (image_) {
    images.push_back(image_.get());
  } else if (!options_.image.empty()) {
    if (!projector) return no_projector("\"image\"");
    if (!graph_->allow_host_paths()) {
      return {WASINN_SECURITY, "\"image\": a guest may not name a host file ('" + options_.image +
                                   "'); send its bytes as input 3 (\"image\") or inline in the prompt, or allow it "
                                   "with --backend-config llamacpp={\"allow-preload-paths\":true}"};
    }
    BitmapPtr b;
    if (Error e = projector->decode_file(options_.image, scope, b)) return e;
    images.push_back(owned.emplace_back(std::move(b)).get());
  }
  return {};
}

// All or nothing: a prompt that fails leaves the previous one in place.
Error LlamaContext::prepare_prompt(const std::string& given, const LogScope& scope, const ChatTurn* chat) {
  if (options_.reranking) {
    if (chat) return sdk::unsupported("\"reranking\": the query and documents go in input 0, not as messages");
    // A pair must fit one batch: bytes beyond what its tokens could cover are refused untokenized.
    const uint64_t max_bytes = 4 * uint64_t{wanted_shape().n_batch} * graph_->longest_piece() + 4096;
    size_t n_tokens = 0;
    if (Error e = rerank_pairs(graph_->model(), given, max_bytes, rerank_pairs_, n_tokens)) return e;
    prompt_text_ = given;
    n_prompt_tokens_ = n_tokens;
    prompt_.clear();
    chunks_.reset();
    has_prompt_ = true;
    prompt_is_rerank_ = true;
    stream_.reset();
    streaming_ = false;
    output_is_embedding_ = false;
    return {};
  }
  std::string text = given;
  std::vector<std::string> inline_images;
  std::vector<BitmapPtr> owned;
  std::vector<const mtmd_bitmap*> images;
  if (!graph_->vocoder()) {  // text to speech takes the text as it is: no markup is an image
    if (chat) {
      inline_images = chat->images;  // a chat's text is text: its images are its media_marker parts'
    } else if (Error e = take_inline_images(text, inline_images)) {
      return e;
    }
    if (Error e = collect_images(inline_images, scope, owned, images)) return e;
  }
  std::vector<llama_token> tokens;
  ChunksPtr chunks;
  if (graph_->vocoder()) {
    if (Error e = tokenize_tts_prompt(text, tokens)) return e;
  } else if (images.empty()) {
    if (Error e = tokenize(text, tokens)) return e;
  } else {
    // WasmEdge's "<image>" marks where an image goes, except in a chat whose images came inline
    // from its messages: their tags mark them, and an "<image>" is what a user wrote (as for
    // llama-server, whose marker is its own).
    if (!(chat && !inline_images.empty())) mark_images(text);
    if (Error e = graph_->projector()->tokenize(text, images, scope, chunks)) return e;
  }
  prompt_text_ = given;
  prompt_is_rerank_ = false;
  rerank_pairs_.clear();
  n_prompt_tokens_ = chunks ? mtmd_helper_get_n_tokens(chunks.get()) : tokens.size();
  prompt_ = std::move(tokens);
  chunks_ = std::move(chunks);
  has_prompt_ = true;
  stream_.reset();  // a new prompt ends any sequence in progress
  streaming_ = false;
  output_is_embedding_ = false;
  debug_note(options_.enable_debug_log, [&] {
    return "set_input: prompt of " + std::to_string(n_prompt_tokens_) + " tokens, " + std::to_string(images.size()) +
           " image(s)";
  });
  return {};
}

Error LlamaContext::set_input(const wasinn_tensor_id& id, const wasinn_tensor& tensor) {
  const auto slots = graph_->io(sdk::Side::input);
  size_t slot = 0;
  if (Error e = sdk::resolve_id(slots, sdk::Side::input, id, slot)) return e;
  // Any element type and dims are taken as raw bytes: WasmEdge's guests send U8 with dims [1].
  const std::string_view bytes(static_cast<const char*>(tensor.data), tensor.data ? tensor.data_length : 0);
  LogScope scope(options_.enable_log);
  if (slot == kMetadata) {
    LlamaOptions updated = options_;
    std::vector<IgnoredKey> ignored;
    if (Error e = apply_config(bytes, "metadata (input 1)", updated, ignored)) return e;
    log_ignored(ignored, "metadata");
    const LlamaOptions& loaded = graph_->options();
    const std::pair<const char*, bool> fixed[] = {
        {"mmproj", updated.mmproj != loaded.mmproj},
        {"tts", updated.tts != loaded.tts},
        {"model-vocoder", updated.model_vocoder != loaded.model_vocoder},
        {"tts-speaker-file", updated.tts_speaker_file != loaded.tts_speaker_file},
        {"tts-output-file", updated.tts_output_file != loaded.tts_output_file},
        {"chat-template", updated.chat_template != loaded.chat_template},
        {"chat-template-file", updated.chat_template_file != loaded.chat_template_file}};
    for (const auto& [key, changed] : fixed) {
      if (changed) {
        return sdk::invalid("metadata (input 1): \"" + std::string(key) +
                            "\" applies when the model is loaded: load the graph with it in its config");
      }
    }
    if (updated.n_gpu_layers != options_.n_gpu_layers || updated.main_gpu != options_.main_gpu ||
        updated.use_mmap != options_.use_mmap) {
      note(WASINN_LOG_WARN,
           "metadata: n-gpu-layers, main-gpu and use-mmap apply when the model is loaded; this context keeps the "
           "loaded model");
    }
    options_ = std::move(updated);  // takes effect at the next generation
    return {};
  }
  if (slot == kImage) {
    BitmapPtr b;  // an empty tensor clears the image
    if (!bytes.empty()) {
      const Projector* projector = graph_->projector();
      if (!projector) return no_projector("input 3 (\"image\")");
      if (Error e = projector->decode(bytes, "input 3 (\"image\")", scope, b)) return e;
    }
    std::swap(image_, b);
    // Either order: an image set after its prompt joins it (or is refused, and the old one stays).
    if (has_prompt_) {
      if (Error e = prepare_prompt(prompt_text_, scope, chat_ ? &*chat_ : nullptr)) {
        std::swap(image_, b);
        return e;
      }
    }
    return {};
  }
  if (slot == kMessages && graph_->vocoder()) {
    return sdk::unsupported("input 2 (\"messages\"): a text-to-speech graph speaks the text of input 0 (\"prompt\")");
  }
  if (slot != kMessages) {
    if (Error e = prepare_prompt(std::string(bytes), scope)) return e;
    chat_.reset();
    reply_.reset();
    return {};
  }
  ChatTurn turn;
  if (Error e = format_chat(*graph_->chat_templates(), graph_->vocab(), bytes, options_, turn)) return e;
  if (Error e = prepare_prompt(turn.prompt, scope, &turn)) return e;
  chat_ = std::move(turn);
  reply_.reset();
  return {};
}

Error LlamaContext::prompt_for_mode(const LogScope& scope) {
  if (!has_prompt_ || prompt_is_rerank_ == options_.reranking) return {};
  if (chat_) return sdk::unsupported("\"reranking\": the query and documents go in input 0, not as messages");
  return prepare_prompt(std::string(prompt_text_), scope);
}

Error LlamaContext::rerank(const LogScope& scope) {
  if (!has_prompt_) return sdk::invalid("no prompt: set input 0 (\"prompt\") first");
  output_is_embedding_ = false;
  if (Error e = prepare_llama_context(scope)) return e;
  stream_.reset();
  embedding_json_.clear();  // scores are f32 to every caller
  if (Error e = compute_rank_scores(llama_.get(), rerank_pairs_, embedding_)) return e;
  output_is_embedding_ = true;
  debug_note(options_.enable_debug_log, [&] {
    return "rerank: " + std::to_string(rerank_pairs_.size()) + " pairs, " + std::to_string(n_prompt_tokens_) +
           " tokens";
  });
  return {};
}

Error LlamaContext::compute() {
  cancel_requested_.store(false);
  LogScope scope(options_.enable_log, &cancel_requested_);
  streaming_ = false;
  wav_.clear();
  if (Error e = prompt_for_mode(scope)) return e;
  if (options_.reranking) return rerank(scope);
  if (options_.embedding) {
    if (!has_prompt_) return sdk::invalid("no prompt: set input 0 (\"prompt\") first");
    if (chunks_) return sdk::unsupported("\"embedding\": true embeds text; this prompt has images");
    if (Error e = prepare_llama_context(scope)) return e;
    stream_.reset();
    output_is_embedding_ = true;
    embedding_json_.clear();
    if (Error e = compute_embedding(llama_.get(), prompt_, graph_->n_embd(), embedding_)) return e;
    // Decided now, so metadata set between compute and get_output cannot change this answer.
    if (options_.embedding_as_json()) embedding_json_ = embedding_as_wasmedge_json(embedding_);
    return {};
  }
  if (Error e = start_generation(scope)) return e;
  const bool to_stdout = options_.stream_stdout;
  Error result;
  while (true) {
    if (cancel_requested_.load()) {
      result = {WASINN_TIMEOUT, "generation was cancelled"};
      break;
    }
    Error e = stream_.next();
    if (e.status == WASINN_END_OF_SEQUENCE) break;  // a complete answer
    if (e) {
      result = e;  // CONTEXT_FULL keeps the text so far, as WasmEdge does
      break;
    }
    if (to_stdout) {  // the answer itself, which the guest asked the host to print
      const std::string_view piece = stream_.last_piece();
      std::fwrite(piece.data(), 1, piece.size(), stdout);
      std::fflush(stdout);
    }
  }
  // A cut generation's shared sequence is freed; a whole one's KV stays for the prompt cache.
  stream_.release_sequence(!result || result.status == WASINN_CONTEXT_FULL);
  if (options_.enable_log) print_perf();
  // As WasmEdge: a full context still speaks the codes generated so far.
  if (graph_->vocoder() && (!result || result.status == WASINN_CONTEXT_FULL)) {
    return speak();
  }
  return result;
}

Error LlamaContext::get_output(const wasinn_tensor_id& id, wasinn_tensor& out) {
  size_t slot = 0;
  if (Error e = sdk::resolve_id(graph_->io(sdk::Side::output), sdk::Side::output, id, slot)) return e;
  if (slot == kMetadata) {
    set_metadata(out);
  } else if (output_is_embedding_ && !embedding_json_.empty()) {
    sdk::bytes_output(embedding_json_, out_dims_[0], out);
  } else if (graph_->vocoder()) {
    sdk::bytes_output({reinterpret_cast<const char*>(wav_.data()), wav_.size()}, out_dims_[0], out);
  } else if (output_is_embedding_) {
    out_dims_[0] = static_cast<uint32_t>(embedding_.size());
    out.type = WASINN_TYPE_F32;
    out.rank = 1;
    out.dims = out_dims_;
    out.data = embedding_.data();
    out.data_length = embedding_.size() * sizeof(float);
  } else {
    sdk::bytes_output(stream_.text(), out_dims_[0], out);
  }
  return {};
}

Error LlamaContext::compute_single() {
  cancel_requested_.store(false);
  LogScope scope(options_.enable_log, &cancel_requested_);
  if (!streaming_) {
    if (options_.embedding || options_.reranking)
      return sdk::unsupported("compute_single streams text; with \"embedding\" or \"reranking\" use compute");
    if (graph_->vocoder())
      return sdk::unsupported("compute_single streams text; text to speech (\"tts\": true) makes its WAV with compute");
    if (Error e = prompt_for_mode(scope)) return e;
    if (Error e = start_generation(scope)) return e;
    streaming_ = true;
  }
  Error e = stream_.next();
  // WasmEdge's rule, which LlamaEdge's llama-chat streams by: the token sampled when no slot is
  // left is answered with CONTEXT_FULL, not streamed (compute's text still ends with it).
  if (!e) e = stream_.end_if_no_slot();
  if (e && e.status != WASINN_END_OF_SEQUENCE && e.status != WASINN_CONTEXT_FULL) {
    // A failed or cancelled decode may leave part of a batch in the KV cache: the next call
    // starts the sequence over rather than continue from an unknown state.
    streaming_ = false;
  }
  return e;
}

Error LlamaContext::get_output_single(const wasinn_tensor_id& id, wasinn_tensor& out) {
  size_t slot = 0;
  if (Error e = sdk::resolve_id(graph_->io(sdk::Side::output), sdk::Side::output, id, slot)) return e;
  if (slot == kMetadata) {
    set_metadata(out);
  } else {
    sdk::bytes_output(stream_.last_piece(), out_dims_[0], out);
  }
  return {};
}

Error LlamaContext::fini_single() {
  LogScope scope(options_.enable_log);
  if (options_.enable_log) print_perf();
  stream_.reset();
  streaming_ = false;
  if (llama_) llama_memory_clear(llama_get_memory(llama_.get()), true);
  return {};
}

}  // namespace wasinn::llamacpp
