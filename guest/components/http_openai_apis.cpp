// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// http_openai's other APIs: OpenAI's Responses (POST /v1/responses) and Anthropic's Messages (POST
// /v1/messages, /v1/messages/count_tokens), each a translation to chat completions and back
// (openai_responses.h, anthropic_messages.h) around the one generation http_openai_generation.cpp
// runs, so every API samples, stops, streams and is cut at the deadline alike.
#include <memory>
#include <string>

#include "anthropic_messages.h"
#include "http_openai.h"
#include "openai_responses.h"

namespace openai {
namespace {

class ResponsesFormat : public AnswerFormat {
 public:
  explicit ResponsesFormat(const json& request) : request_(request) {}
  json error(const Refusal& why) const override { return error_json(why); }
  json whole(const json& completion, const std::string&) override {
    return responses_api::from_chat(completion, request_);
  }
  std::string begin(const std::string& model, const json&) override {
    stream_.reset(new responses_api::EventStream(request_, new_id("resp_"), model, now_seconds()));
    return stream_->begin();
  }
  std::string chunk(const json& chunk) override { return stream_ ? stream_->chunk(chunk) : std::string(); }
  std::string finish(const std::string& finish_reason, const std::string&, const json& usage) override {
    return stream_ ? stream_->finish(finish_reason, usage) : std::string();
  }
  std::string fail(int, const std::string& code, const std::string& message) override {
    return stream_ ? stream_->fail(code, message) : std::string();
  }

 private:
  json request_;
  std::unique_ptr<responses_api::EventStream> stream_;
};

class MessagesFormat : public AnswerFormat {
 public:
  json error(const Refusal& why) const override { return anthropic::error_json(why.status, why.message); }
  json whole(const json& completion, const std::string& stop) override {
    return anthropic::from_chat(completion, stop);
  }
  std::string begin(const std::string& model, const json& usage) override {
    stream_.reset(new anthropic::EventStream(new_id("msg_"), model));
    return stream_->begin(usage);
  }
  std::string chunk(const json& chunk) override { return stream_ ? stream_->chunk(chunk) : std::string(); }
  std::string finish(const std::string& finish_reason, const std::string& stop, const json& usage) override {
    return stream_ ? stream_->finish(finish_reason, stop, usage) : std::string();
  }
  std::string fail(int status, const std::string&, const std::string& message) override {
    return stream_ ? stream_->fail(status, message) : std::string();
  }

 private:
  std::unique_ptr<anthropic::EventStream> stream_;
};

// A request translated to a chat completion (`translated`, else refused with `why`), answered in
// `format`.
void answer_in(AnswerFormat& format, bool translated, const json& chat, const Refusal& why, wh_response_outparam out,
               const Generation& g) {
  FormatScope scope(&format);
  if (!translated) return respond_refusal(out, why);
  completions(Kind::chat, chat, out, g);
}

}  // namespace

void responses(const json& body, wh_response_outparam out, Generation g) {
  ResponsesFormat format(body);
  json chat;
  Refusal why;
  const bool translated = responses_api::to_chat(body, chat, why);
  answer_in(format, translated, chat, why, out, g);
}

void messages(const json& body, wh_response_outparam out, Generation g) {
  MessagesFormat format;
  json chat;
  Refusal why;
  const bool translated = anthropic::to_chat(body, chat, why);
  answer_in(format, translated, chat, why, out, g);
}

void count_tokens(const json& body, wh_response_outparam out, Generation g) {
  MessagesFormat format;
  FormatScope scope(&format);
  json chat;
  Refusal why;
  if (!anthropic::to_chat(body, chat, why, /*count_only=*/true)) return respond_refusal(out, why);
  int64_t tokens = 0;
  if (prompt_tokens(chat, out, g, tokens)) respond_json(out, 200, {{"input_tokens", tokens}});
}

}  // namespace openai
