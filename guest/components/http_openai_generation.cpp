// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// http_openai's completions (POST /v1/chat/completions, /v1/completions): the request's fields as
// the prompt session's properties, the answer's length within the context, stop texts, finish
// reasons, logprobs and the server's deadline, answered whole or as server-sent events.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "http_openai.h"
#include "openai_image_fetch.h"
#include "openai_message.h"

namespace openai {
namespace {

// llama-server's sampling, then NN_OPTIONS (the keys the model has), then the request's own
// properties, on the session; false after answering when one is refused (a request's json-schema
// the converter refuses is its 400).
bool set_properties(const Model& m, const Request& req, wh_response_outparam out) {
  const wnx_prompt_context session = m.session;
  auto set = [&](const std::string& name, const std::string& value) {
    wnn_string err{};
    if (!wnx_prompt_set_property(session, name.data(), static_cast<uint32_t>(name.size()), value.data(),
                                 static_cast<uint32_t>(value.size()), &err))
      return std::string();
    return take(err);
  };
  const std::vector<std::string> names = property_names(m.graph);
  // llama-server's penalties and DRY count the prompt's tokens before the answer's (WasmEdge's
  // plugin, whose guests keep its default, counts the answer's only); NN_OPTIONS may turn it off.
  constexpr char kPenalizePrompt[] = "penalize-prompt";
  if (std::find(names.begin(), names.end(), kPenalizePrompt) != names.end()) {
    const std::string failed = set(kPenalizePrompt, "true");
    if (!failed.empty()) {
      respond_error(out, 500, std::string("setting ") + kPenalizePrompt + " failed: " + failed);
      return false;
    }
  }
  std::string why;
  if (!apply_env_options([&] { return names; }, set, why)) {
    respond_error(out, 500, why);
    return false;
  }
  for (const Property& prop : req.properties) {
    const std::string failed = set(prop.name, prop.value);
    if (failed.empty()) continue;
    respond_error(out, 400, "setting " + prop.name + " failed: " + failed, nullptr, prop.field.c_str());
    return false;
  }
  return true;
}

// The text generated so far, with the stop texts applied: what may be sent now, and whether a stop
// text has ended the answer.
class StopScan {
 public:
  explicit StopScan(const std::vector<std::string>& stops) : stops_(stops) {}
  // Adds a piece; returns the text that is now safe to send (never part of a stop text).
  std::string add(const std::string& piece) {
    held_ += piece;
    for (const auto& s : stops_) {
      const size_t at = held_.find(s);
      if (at != std::string::npos) {
        stopped_ = true;
        matched_ = s;
        std::string sendable = held_.substr(0, at);
        held_.clear();
        return sendable;
      }
    }
    // Hold back the longest tail that could begin a stop text.
    size_t keep = 0;
    for (const auto& s : stops_) {
      for (size_t n = std::min(s.size() - 1, held_.size()); n > keep; --n) {
        if (!held_.compare(held_.size() - n, n, s, 0, n)) {
          keep = n;
          break;
        }
      }
    }
    std::string sendable = held_.substr(0, held_.size() - keep);
    held_.erase(0, held_.size() - keep);
    return sendable;
  }
  // At the end: what was held back for a stop text that never came.
  std::string rest() {
    std::string r = std::move(held_);
    held_.clear();
    return r;
  }
  bool stopped() const { return stopped_; }
  // The stop text that ended the answer, "" if none did.
  const std::string& matched() const { return matched_; }

 private:
  const std::vector<std::string>& stops_;
  std::string held_;
  bool stopped_ = false;
  std::string matched_;
};

struct Usage {
  int64_t prompt = 0, completion = 0;
  int64_t cached = 0;   // prompt tokens the plugin's prompt cache held, not evaluated again
  int64_t context = 0;  // the context's size in tokens (0: the plugin does not say)
  bool eog = false;     // an end-of-generation token ended the answer (not among `completion`)
  // As llama-server counts, the end-of-generation token among the completion's: it was decoded.
  // prompt_tokens_details is always there, as llama-server and OpenAI send it (0: nothing cached).
  json as_json() const {
    const int64_t answered = completion + (eog ? 1 : 0);
    return {{"prompt_tokens", prompt},
            {"completion_tokens", answered},
            {"total_tokens", prompt + answered},
            {"prompt_tokens_details", {{"cached_tokens", cached}}}};
  }
};

Usage usage_of(wnx_prompt_context session) {
  wnn_string meta{};
  const int failed = wnx_prompt_metadata(session, &meta);
  const std::string text = take(meta);
  Usage u;
  if (failed) return u;
  const json j = json::parse(text, nullptr, false);
  if (j.is_object()) {
    u.prompt = field(j, "input_tokens", int64_t{0});
    u.completion = field(j, "output_tokens", int64_t{0});
    u.cached = field(j, "cached_tokens", int64_t{0});  // absent: the plugin has no prompt cache
    u.context = field(j, "context_size", int64_t{0});
    auto eog = j.find("eog");
    u.eog = eog != j.end() && eog->is_boolean() && eog->get<bool>();
  }
  return u;
}

uint64_t monotonic_ms() { return wh_monotonic_now() / 1000000; }

// Sets the answer's length (n-predict) to what max_tokens and the context leave room for, so the
// answer never runs past the context; false after answering 400 when either cannot be met.
// The server's request deadline cancelled the compute (wasi-nn's timeout error), not a compute
// past its own budget (--max-compute-ms: "exceeded its budget"), which is the generation's failure.
bool timed_out(const std::string& failure) {
  return failure.rfind("timeout", 0) == 0 && failure.find("exceeded its budget") == std::string::npos;
}

std::string deadline_message(const Generation& g) {
  if (!g.deadline_ms) return "the compute was cancelled before the answer was complete";
  return "the answer was cut at the server's request deadline (" + std::to_string(g.deadline_ms) +
         " ms, wasinn serve --request-timeout)";
}

// The 504 the server would give at the deadline, answered by the guest a moment before it: the
// wasinn-cut trailer has the server log and count it as cut:timeout, as its own.
void respond_timed_out(wh_response_outparam out, const Generation& g) {
  json body = {
      {"error", {{"message", deadline_message(g)}, {"type", "server_error"}, {"param", nullptr}, {"code", "timeout"}}}};
  if (const AnswerFormat* fmt = FormatScope::current())
    body = fmt->error(Refusal{504, deadline_message(g), "timeout", ""});
  const std::string text = dump(body);
  hg_stream s{};
  hg_stream_begin_with_trailer(out, 504, "application/json", "wasinn-cut", &s);
  hg_stream_write(&s, text.data(), text.size());
  hg_stream_end_with_trailer(&s, "wasinn-cut", "timeout");
}

// The answer's length, set before the prompt is started so the start itself checks it: the plugin
// refuses a max-tokens over the context (as it refuses a prompt that fills it) and ends the answer
// at a full context. With MAX_TOKENS, the server's own limit (which needs no model) replaces the
// context's: n-predict, which a full context ends. False after answering 400.
bool set_length(Model& m, const Generation& g, wh_response_outparam out) {
  const uint64_t limit = env_number("MAX_TOKENS");
  if (limit > 0 && g.max_tokens > 0 && static_cast<uint64_t>(g.max_tokens) > limit) {
    respond_error(out, 400,
                  g.max_tokens_field + " is " + std::to_string(g.max_tokens) + ", over this server's limit of " +
                      std::to_string(limit) + " tokens (MAX_TOKENS)",
                  "invalid_value", g.max_tokens_field.c_str());
    return false;
  }
  const std::string name = limit > 0 ? "n-predict" : "max-tokens";
  const std::string value = std::to_string(g.max_tokens > 0 ? g.max_tokens : -1);  // -1: the context's room
  wnn_string err{};
  if (wnx_prompt_set_property(m.session, name.data(), static_cast<uint32_t>(name.size()), value.data(),
                              static_cast<uint32_t>(value.size()), &err)) {
    respond_error(out, 500, "setting " + name + " failed: " + take(err));
    return false;
  }
  return true;
}

// Whether the answer ended at its length: max_tokens, or the context's room after the prompt.
bool at_length_limit(const Generation& g, const Usage& u) {
  const int64_t room = u.context > 0 ? u.context - u.prompt : -1;
  const int64_t cap = g.max_tokens > 0 && (room < 0 || g.max_tokens < room) ? g.max_tokens : room;
  return cap > 0 && u.completion >= cap;
}

constexpr char kInlineImage[] = "the prompt's inline image";
constexpr char kInlineAudio[] = "the prompt's inline audio";

// Gives the session the request's input (the model's template renders a chat); false after
// answering when the model refuses it.
bool start(Model& m, const Generation& g, wh_response_outparam out) {
  wnn_string err{};
  if (!wnx_prompt_start(m.session, g.input.c_str(), g.text.data(), static_cast<uint32_t>(g.text.size()), &err))
    return true;
  std::string why = take(err);
  // The plugin names an image_url part's image "the prompt's inline image N" (its WasmEdge form):
  // the request's Nth image, as the template keeps the messages' order.
  bool image = false;
  for (size_t at = why.find(kInlineImage); at != std::string::npos; at = why.find(kInlineImage, at)) {
    why.replace(at, sizeof kInlineImage - 1, "the request's image");
    image = true;
  }
  bool audio = false;  // an input_audio part's clip, "the prompt's inline audio N" (N counts images too)
  for (size_t at = why.find(kInlineAudio); at != std::string::npos; at = why.find(kInlineAudio, at)) {
    why.replace(at, sizeof kInlineAudio - 1, "the request's audio");
    audio = true;
  }
  if (why.find("without a multimodal projector") != std::string::npos) {
    respond_error(out, 400,
                  "model `" + m.name +
                      "` has no projector (mmproj), so it takes no images or audio: serve it with its projector, e.g. "
                      "wasinn serve --openai " +
                      m.name + "=model.gguf --mmproj " + m.name + "=mmproj.gguf (the model said: " + why + ")",
                  "model_without_projector", "messages");
  } else if (image && why.rfind("too-large", 0) == 0) {  // pixels past the plugin's bound
    respond_error(out, 400, "the model refused the input: " + why, "image_too_large", "messages");
  } else if (image && why.rfind("invalid-argument", 0) == 0) {  // bytes no decoder of the plugin reads
    respond_error(out, 400, "the model refused the input: " + why, "invalid_image", "messages");
  } else if (audio && why.find("has no audio encoder") != std::string::npos) {
    respond_error(
        out, 400,
        "model `" + m.name + "`'s projector has no audio encoder, so it takes no audio (the model said: " + why + ")",
        "model_without_audio_encoder", "messages");
  } else if (audio && why.rfind("invalid-argument", 0) == 0) {  // a clip the plugin's checks or libmtmd refuse
    respond_error(out, 400, "the model refused the input: " + why, "invalid_audio", "messages");
  } else if (why.rfind("too-large", 0) == 0)  // a prompt refused before tokenizing: it cannot fit the context
    respond_error(out, 400, "the model refused the input: " + why, "context_length_exceeded", "messages");
  else if (timed_out(why))  // the request's deadline came while the input was set (NnSession)
    respond_timed_out(out, g);
  else
    respond_error(out, why.rfind("invalid-argument", 0) == 0 ? 400 : 500, "the model refused the input: " + why);
  return false;
}

// Runs one generation and answers it, whole or as server-sent events, in the current format.
void generate(Kind kind, Model& m, const Generation& g, wh_response_outparam out) {
  if (!set_length(m, g, out) || !start(m, g, out)) return;
  AnswerFormat* fmt = FormatScope::current();
  const bool chat = kind == Kind::chat;
  const std::string id = new_id(chat ? "chatcmpl-" : "cmpl-");
  const uint64_t created = now_seconds();
  const char* object = chat ? (g.stream ? "chat.completion.chunk" : "chat.completion") : "text_completion";
  // The message form: the assistant message the plugin parsed so far (its metadata's "message").
  Message said;
  // Each token's logprobs (the plugin's metadata after it), until a choice sends them.
  std::vector<json> pending_lp;
  int64_t lp_tokens = 0;
  int64_t text_offset = 0;
  auto note_logprobs = [&] {
    const Usage u = usage_of(m.session);
    if (u.completion <= lp_tokens) return;  // no new token (a character's held-back end)
    lp_tokens = u.completion;
    wnn_string meta{};
    const int failed = wnx_prompt_metadata(m.session, &meta);
    const json j = json::parse(take(meta), nullptr, false);
    if (!failed && j.is_object() && j.contains("logprobs") && j["logprobs"].is_object())
      pending_lp.push_back(j["logprobs"]);
  };
  auto bytes_of = [](const std::string& t) {
    json b = json::array();
    for (unsigned char c : t) b.push_back(c);
    return b;
  };
  // OpenAI's shapes: chat's {"content": [{token, logprob, bytes, top_logprobs}]}, completions'
  // {tokens, token_logprobs, top_logprobs, text_offset}.
  auto take_logprobs = [&]() -> json {
    if (!g.logprobs) return nullptr;
    json content = json::array(), tokens = json::array(), token_lps = json::array(), tops = json::array(),
         offsets = json::array();
    for (const json& lp : pending_lp) {
      const std::string token = lp.value("token", "");
      const double logprob = lp.value("logprob", 0.0);
      json top_list = json::array(), top_map = json::object();
      const json& cands = lp.contains("top") ? lp["top"] : json::array();
      for (size_t i = 0; i < cands.size() && static_cast<int64_t>(i) < g.top_logprobs; ++i) {
        const std::string t = cands[i][0].is_string() ? cands[i][0].get<std::string>() : "";
        const double l = cands[i][1].is_number() ? cands[i][1].get<double>() : 0.0;
        top_list.push_back({{"token", t}, {"logprob", l}, {"bytes", bytes_of(t)}});
        top_map[t] = l;
      }
      content.push_back(
          {{"token", token}, {"logprob", logprob}, {"bytes", bytes_of(token)}, {"top_logprobs", top_list}});
      tokens.push_back(token);
      token_lps.push_back(logprob);
      tops.push_back(top_map);
      offsets.push_back(text_offset);
      text_offset += static_cast<int64_t>(token.size());
    }
    pending_lp.clear();
    if (chat) return {{"content", content}};
    return {{"tokens", tokens}, {"token_logprobs", token_lps}, {"top_logprobs", tops}, {"text_offset", offsets}};
  };
  auto choice = [&](const std::string& piece, const json& finish, bool first) {
    json c = {{"index", 0}, {"finish_reason", finish}};
    c["logprobs"] = take_logprobs();
    if (!chat) {
      c["text"] = piece;
    } else if (g.stream) {
      c["delta"] = first ? json{{"role", "assistant"}, {"content", piece}} : json{{"content", piece}};
      if (!finish.is_null()) c["delta"] = json::object();
    } else {
      c["message"] = g.message_form ? message_json(said, piece) : json{{"role", "assistant"}, {"content", piece}};
    }
    return c;
  };
  // The message form's stream: one chunk per delta, as llama-server sends them.
  auto delta_choice = [&](json delta) {
    return json{{"index", 0}, {"finish_reason", nullptr}, {"logprobs", take_logprobs()}, {"delta", std::move(delta)}};
  };
  auto envelope = [&](json choices) {
    return json{{"id", id}, {"object", object}, {"created", created}, {"model", m.name}, {"choices", choices}};
  };

  // One token's piece; false at the end or on failure (then `failure` says why).
  std::string failure;
  uint64_t slowest_ms = 0;
  auto next = [&](std::string& piece) {
    const uint64_t before = monotonic_ms();
    int has = 0;
    wnn_string p{};
    if (wnx_prompt_next(m.session, &has, &p)) {
      failure = take(p);
      return false;
    }
    slowest_ms = std::max(slowest_ms, monotonic_ms() - before);
    if (!has) return false;
    piece = take(p);
    return true;
  };
  // The first token before the status: a prompt the model cannot take is still a 4xx or 5xx.
  std::string piece;
  bool more = next(piece);
  if (!more && !failure.empty()) {
    if (failure.find("prompt-too-long") != std::string::npos || failure.find("the context holds") != std::string::npos)
      return respond_error(out, 400, failure, "context_length_exceeded", "messages");
    constexpr char kMaxTokens[] = "invalid-argument: max-tokens is ";  // set_length's, over the context
    if (failure.rfind(kMaxTokens, 0) == 0) {
      return respond_error(out, 400, g.max_tokens_field + " is " + failure.substr(sizeof kMaxTokens - 1),
                           "invalid_value", g.max_tokens_field.c_str());
    }
    // The request's own mistake (a grammar the sampler refuses: response_format's schema) is a 400.
    if (failure.rfind("invalid-argument", 0) == 0) {
      // The field that gave the grammar: response_format, or llama-server's json_schema or grammar.
      const char* param = nullptr;
      for (const Property& p : g.properties) {
        if ((p.name == "grammar" || p.name == "json-schema") && failure.find("grammar") != std::string::npos)
          param = p.field.c_str();
      }
      return respond_error(out, 400, "generation failed: " + failure, nullptr, param);
    }
    // The server's deadline cancelled the compute (NnSession's deadline): the 504 the server would
    // give, answered by the guest a moment earlier.
    if (timed_out(failure)) return respond_timed_out(out, g);
    return respond_error(out, 500, "generation failed: " + failure);
  }

  hg_stream s{};
  // Every stream says up front that it tells the server how it ends (whole, or the wasinn-cut
  // trailer): the server then learns it even from a client that leaves at [DONE] or an error
  // event, before the body's end reached it (docs/serving.md).
  if (g.stream) hg_stream_begin_with_trailer(out, 200, "text/event-stream", "wasinn-cut", &s);
  auto write = [&](const std::string& text) {
    return text.empty() || hg_stream_write(&s, text.data(), text.size()) == 0;
  };
  auto send_event = [&](const json& j) { return write(fmt ? fmt->chunk(j) : "data: " + dump(j) + "\n\n"); };
  if (g.stream && fmt && !write(fmt->begin(m.name, usage_of(m.session).as_json()))) {
    hg_stream_end(&s);  // the client has left
    return;
  }
  // A stream ends before the server's deadline, while it can still say so: two of the slowest
  // token's time and 100 ms ahead of it.
  auto out_of_time = [&] {
    if (!g.stream || !g.deadline_ms) return false;
    const uint64_t now = monotonic_ms(), end = g.started_ns / 1000000 + g.deadline_ms;
    return now + 2 * slowest_ms + 100 >= end;
  };

  StopScan scan(g.stops);
  std::string whole, raw;
  bool first = true, gone = false, cut = false;
  // The message form's token: what the parsed message gained, each part its own chunk (content
  // through the stop texts); the answer's text alone when the plugin gives no message.
  auto metadata = [&] {
    wnn_string meta{};
    const int failed = wnx_prompt_metadata(m.session, &meta);
    const json j = json::parse(take(meta), nullptr, false);
    return failed ? json() : j;
  };
  // What message `now` adds to the one said so far, as events (streamed) or to `whole`.
  auto message_added = [&](const Message& now) {
    std::vector<json> events;
    MessageDelta d;
    if (!diff_messages(said, now, d)) return events;  // the plugin took something back: wait for more
    said = now;
    const std::string sendable = scan.add(d.content);
    whole += sendable;
    if (!g.stream) return events;
    if (first) events.push_back(delta_choice({{"role", "assistant"}, {"content", nullptr}}));
    first = false;
    if (!d.reasoning.empty()) events.push_back(delta_choice({{"reasoning_content", d.reasoning}}));
    if (!sendable.empty()) events.push_back(delta_choice({{"content", sendable}}));
    for (json& call : d.tool_calls) events.push_back(delta_choice({{"tool_calls", json::array({std::move(call)})}}));
    return events;
  };
  auto message_events = [&](const std::string& piece) {
    raw += piece;
    Message now;
    if (!read_message(metadata(), now)) now.content = raw;
    return message_added(now);
  };
  for (; more && !scan.stopped(); more = next(piece)) {
    if (g.logprobs) note_logprobs();
    if (g.message_form) {
      for (const json& c : message_events(piece)) {
        if (!send_event(envelope(json::array({c})))) {
          gone = true;
          break;
        }
      }
      if (gone) break;
    } else {
      const std::string sendable = scan.add(piece);
      if (!g.stream) {
        whole += sendable;
      } else if (!sendable.empty() || first) {
        if (!send_event(envelope(json::array({choice(sendable, nullptr, first)})))) {
          gone = true;  // the client has left: stop generating; ~Model drops the session
          break;
        }
        first = false;
      }
    }
    if (out_of_time()) {
      cut = true;
      break;
    }
  }
  // The message form's end: the plugin's whole parse, no longer partial, may add what the partial
  // ones held back (a call's last arguments, a possible stop string's start). A text the template's
  // format does not parse fails the answer, as llama-server's; one cut by max_tokens keeps its last
  // partial message, with finish_reason "length".
  if (g.message_form && !gone && !cut && failure.empty() && !scan.stopped()) {
    const json j = metadata();
    Message last;
    const bool at_limit = at_length_limit(g, usage_of(m.session));
    if (j.is_object() && j.contains("parse_error") && j["parse_error"].is_string() && !at_limit) {
      failure = "the model's answer does not match its chat template's format: " + j["parse_error"].get<std::string>();
    } else if (read_message(j, last)) {
      for (const json& c : message_added(last)) {
        if (!send_event(envelope(json::array({c})))) gone = true;
        if (gone) break;
      }
    }
  }
  if (gone) {
    hg_stream_end(&s);
    return;
  }
  cut = cut || timed_out(failure);  // the deadline came before out_of_time foresaw it
  const std::string rest = scan.stopped() ? std::string() : scan.rest();
  const Usage usage = usage_of(m.session);
  // "length": max_tokens, the context or the deadline ended it; "stop": the model or a stop text;
  // "tool_calls": the model ended an answer that calls tools (llama-server's rule too).
  const bool at_length = cut || (!scan.stopped() && at_length_limit(g, usage));
  const json finish = at_length ? "length" : !said.tool_calls.empty() ? "tool_calls" : "stop";
  if (!g.stream) {
    if (timed_out(failure)) return respond_timed_out(out, g);
    if (!failure.empty()) return respond_error(out, 500, "generation failed: " + failure);
    json answer = envelope(json::array({choice(whole + rest, finish, true)}));
    answer["usage"] = usage.as_json();
    respond_json(out, 200, fmt ? fmt->whole(answer, scan.matched()) : answer);
    return;
  }
  if (!failure.empty() && !timed_out(failure) && fmt) {
    write(fmt->fail(500, "server_error", "generation failed: " + failure));
    hg_stream_end_with_trailer(&s, "wasinn-cut", "error");
    return;
  }
  if (!failure.empty() && !timed_out(failure)) {  // the status is sent: the error goes in the stream
    send_event({{"error",
                 {{"message", "generation failed: " + failure},
                  {"type", "server_error"},
                  {"param", nullptr},
                  {"code", nullptr}}}});
    // Its 200 went out, but the answer failed: the server logs it cut:error, not completed.
    hg_stream_end_with_trailer(&s, "wasinn-cut", "error");
    return;
  }
  // The stream's end in one write, the body finished right after it: a client stops reading at the
  // error event or [DONE], and the guest's end (the server's log) should follow that closely.
  std::string tail;
  auto add_event = [&](const json& j) { tail += "data: " + dump(j) + "\n\n"; };
  if (fmt) {  // another API's end: its finish, or (cut at the deadline) its failure, which says why
    if (!rest.empty()) tail += fmt->chunk(envelope(json::array({choice(rest, nullptr, first)})));
    tail += cut ? fmt->fail(504, "timeout", deadline_message(g)) : fmt->finish(finish, scan.matched(), usage.as_json());
    write(tail);
    if (cut)
      hg_stream_end_with_trailer(&s, "wasinn-cut", "timeout");
    else
      hg_stream_end(&s);
    return;
  }
  if (!rest.empty()) add_event(envelope(json::array({choice(rest, nullptr, first)})));
  add_event(envelope(json::array({choice("", finish, false)})));
  if (g.include_usage) {
    json u = envelope(json::array());
    u["usage"] = usage.as_json();
    add_event(u);
  }
  if (cut) {  // after the final chunk, so a client sees both the text so far and why it ends
    add_event(
        {{"error",
          {{"message", deadline_message(g)}, {"type", "server_error"}, {"param", nullptr}, {"code", "timeout"}}}});
  }
  tail += "data: [DONE]\n\n";
  hg_stream_write(&s, tail.data(), tail.size());
  // The server logs the answer as cut (cut:timeout), not completed: the trailer tells it why.
  if (cut)
    hg_stream_end_with_trailer(&s, "wasinn-cut", "timeout");
  else
    hg_stream_end(&s);
}

}  // namespace

namespace {
// The body checked as a request of `kind`, the model loaded and its prompt session set up; false
// after answering when any step refuses.
// The most bytes a request's images may decode to: MAX_IMAGE_BYTES (the guest's environment) if a
// whole number above 0, else 20 MiB.
uint64_t max_image_bytes() {
  const uint64_t v = env_number("MAX_IMAGE_BYTES");
  return v > 0 ? v : kMaxImageBytes;
}

bool open_session(Kind kind, const json& body, wh_response_outparam out, Generation& g, Model& m) {
  Refusal why;
  const RemoteImageLimits remote = remote_image_limits();
  if (!parse_request(kind, body, g, why, max_image_bytes(), remote.max_bytes > 0)) {
    respond_refusal(out, why);
    return false;
  }
  if (!g.remote_images.empty()) {
    // The fetched bytes as data URLs, parsed again: they take a data URL's checks and limits.
    json fetched = body;
    if (!fetch_remote_images(g, remote, max_image_bytes(), fetched, out)) return false;
    if (!parse_request(kind, fetched, g, why, max_image_bytes())) {
      respond_refusal(out, why);
      return false;
    }
  }
  if (!load_model(g.model, out, m)) return false;
  wnn_string err{};
  if (wnx_prompt_init(m.graph, &m.session, &err)) {
    m.session = 0;
    respond_error(out, 400, "model `" + m.name + "` cannot generate text: " + take(err), nullptr, "model");
    return false;
  }
  return set_properties(m, g, out);
}
}  // namespace

void completions(Kind kind, const json& body, wh_response_outparam out, Generation g) {
  Model m;
  if (open_session(kind, body, out, g, m)) generate(kind, m, g, out);
}

bool prompt_tokens(const json& body, wh_response_outparam out, Generation g, int64_t& tokens) {
  Model m;
  if (!open_session(Kind::chat, body, out, g, m) || !start(m, g, out)) return false;
  tokens = usage_of(m.session).prompt;
  return true;
}

}  // namespace openai
