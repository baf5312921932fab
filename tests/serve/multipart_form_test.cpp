// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The audio routes' multipart/form-data parser (guest/components/multipart_form.cpp) and the
// transcription form's checks (transcription_form.cpp), natively as the http_openai guest
// compiles them: forms as the openai client and curl -F send them, and every malformed one
// refused with a sentence that says what is wrong.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "multipart_form.h"
#include "transcription_form.h"

namespace {

const std::string kType = "multipart/form-data; boundary=XyZ";

struct Field {
  std::string name, value, filename;
};

// A form as httpx (the openai client) writes it: CRLF lines, the file part with a Content-Type.
std::string form(const std::vector<Field>& fields, const std::string& boundary = "XyZ") {
  std::string out;
  for (const Field& f : fields) {
    out += "--" + boundary + "\r\nContent-Disposition: form-data; name=\"" + f.name + "\"";
    if (!f.filename.empty()) out += "; filename=\"" + f.filename + "\"\r\nContent-Type: audio/wav";
    out += "\r\n\r\n" + f.value + "\r\n";
  }
  return out + "--" + boundary + "--\r\n";
}

bool parse_form(const std::string& body, std::vector<multipart::Part>& parts, std::string& why) {
  return multipart::parse(body, "XyZ", parts, why);
}

openai::Refusal refusal(const std::string& body, bool translate = false, const std::string& type = kType) {
  openai::TranscriptionRequest req;
  openai::Refusal why;
  EXPECT_FALSE(openai::parse_transcription_form(type, body, translate, req, why)) << body;
  return why;
}

#define EXPECT_SAYS(text, needle) EXPECT_NE(std::string(text).find(needle), std::string::npos) << (text)

TEST(MultipartForm, BoundaryFromContentType) {
  std::string b, why;
  EXPECT_TRUE(multipart::boundary_of("multipart/form-data; boundary=abc", b, why));
  EXPECT_EQ(b, "abc");
  EXPECT_TRUE(multipart::boundary_of("Multipart/Form-Data;charset=utf-8; boundary=\"a b;c\"", b, why));
  EXPECT_EQ(b, "a b;c");
  EXPECT_FALSE(multipart::boundary_of("application/json", b, why));
  EXPECT_SAYS(why, "application/json");
  EXPECT_FALSE(multipart::boundary_of("", b, why));
  EXPECT_SAYS(why, "missing");
  EXPECT_FALSE(multipart::boundary_of("multipart/form-data", b, why));
  EXPECT_SAYS(why, "no valid boundary");
  EXPECT_FALSE(multipart::boundary_of("multipart/form-data; boundary=" + std::string(71, 'x'), b, why));
  EXPECT_FALSE(multipart::boundary_of("multipart/form-data; boundary=\"open", b, why));
}

TEST(MultipartForm, PartsOfAWellFormedForm) {
  std::vector<multipart::Part> parts;
  std::string why;
  // A preamble, binary bytes with CR LF and dashes inside the file, an epilogue.
  const std::string audio = std::string("RIFF\r\n--Xy\0\xff", 12);
  const std::string body = "preamble\r\n" + form({{"file", audio, "a.wav"}, {"model", "w", ""}}) + "epilogue";
  ASSERT_TRUE(parse_form(body, parts, why)) << why;
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[0].name, "file");
  EXPECT_TRUE(parts[0].has_filename);
  EXPECT_EQ(parts[0].filename, "a.wav");
  EXPECT_EQ(parts[0].content_type, "audio/wav");
  EXPECT_EQ(std::string(parts[0].body), audio);
  EXPECT_EQ(parts[1].name, "model");
  EXPECT_FALSE(parts[1].has_filename);
  EXPECT_EQ(std::string(parts[1].body), "w");
  // Transport padding after a boundary, an empty value, header names in any case.
  ASSERT_TRUE(parse_form("--XyZ  \r\ncontent-disposition: form-data; name=x\r\n\r\n\r\n--XyZ--", parts, why)) << why;
  ASSERT_EQ(parts.size(), 1u);
  EXPECT_EQ(parts[0].name, "x");
  EXPECT_TRUE(parts[0].body.empty());
}

TEST(MultipartForm, MalformedFormsSayWhat) {
  std::vector<multipart::Part> parts;
  std::string why;
  const std::string good = form({{"model", "w", ""}});
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", "no boundary line"},
      {"just some bytes", "no boundary line"},
      {good.substr(0, good.size() - 9), "cut off"},  // no closing boundary
      {"--XyZ\r\nContent-Disposition: form-data; name=\"a\"\r\n", "headers do not end"},
      {"--XyZ\r\n\r\nvalue\r\n--XyZ--", "no Content-Disposition"},  // a part without headers
      {"--XyZ\r\nContent-Type: text/plain\r\n\r\nv\r\n--XyZ--", "no Content-Disposition"},
      {"--XyZ\r\nno colon here\r\n\r\nv\r\n--XyZ--", "without ':'"},
      {"--XyZ\r\nContent-Disposition: attachment; name=a\r\n\r\nv\r\n--XyZ--", "not form-data"},
      {"--XyZ\r\nContent-Disposition: form-data\r\n\r\nv\r\n--XyZ--", "has no name"},
      {"--XyZ\r\nContent-Disposition: form-data; name=\"a\r\n\r\nv\r\n--XyZ--", "does not end"},
      {"--XyZjunk\r\n", "not followed by a line break"},
      {"--XyZ", "cut off"},
  };
  for (const auto& [body, says] : cases) {
    EXPECT_FALSE(parse_form(body, parts, why)) << body;
    EXPECT_SAYS(why, says);
  }
  std::string many;
  for (size_t i = 0; i <= multipart::kMaxParts; ++i)
    many += "--XyZ\r\nContent-Disposition: form-data; name=f\r\n\r\nv\r\n";
  EXPECT_FALSE(parse_form(many + "--XyZ--", parts, why));
  EXPECT_SAYS(why, "more than 64 parts");
}

TEST(TranscriptionForm, FieldsAsTheOpenAIClientSendsThem) {
  openai::TranscriptionRequest req;
  openai::Refusal why;
  const std::string body = form({{"file", "RIFF....", "speech.wav"},
                                 {"model", "whisper", ""},
                                 {"language", "en", ""},
                                 {"prompt", "a fox", ""},
                                 {"temperature", "0.2", ""},
                                 {"response_format", "verbose_json", ""},
                                 {"timestamp_granularities[]", "word", ""},
                                 {"timestamp_granularities[]", "segment", ""},
                                 {"stream", "false", ""}});
  ASSERT_TRUE(openai::parse_transcription_form(kType, body, false, req, why)) << why.message;
  EXPECT_EQ(req.file, "RIFF....");
  EXPECT_EQ(req.filename, "speech.wav");
  EXPECT_EQ(req.model, "whisper");
  EXPECT_EQ(req.language, "en");
  EXPECT_EQ(req.prompt, "a fox");
  EXPECT_TRUE(req.has_temperature);
  EXPECT_DOUBLE_EQ(req.temperature, 0.2);
  EXPECT_EQ(req.format, openai::AudioFormat::verbose_json);
  EXPECT_TRUE(req.words);
  EXPECT_FALSE(req.stream);
  ASSERT_TRUE(
      openai::parse_transcription_form(kType, form({{"file", "x", "f"}, {"stream", "true", ""}}), false, req, why))
      << why.message;
  EXPECT_TRUE(req.stream);
  // The least a form may be: its file.
  ASSERT_TRUE(openai::parse_transcription_form(kType, form({{"file", "x", "f"}}), true, req, why)) << why.message;
  EXPECT_EQ(req.format, openai::AudioFormat::json);
  EXPECT_TRUE(req.language.empty());
}

TEST(TranscriptionForm, EachBadFieldIsA400NamingIt) {
  const Field file{"file", "RIFF", "a.wav"};
  struct Case {
    std::string body;
    std::string param, says;
    bool translate = false;
  };
  const std::vector<Case> cases = {
      {form({{"model", "w", ""}}), "file", "no file part"},
      {form({{"file", "", "a.wav"}}), "file", "file part is empty"},
      {form({file, {"model", "a", ""}, {"model", "b", ""}}), "model", "gives model twice"},
      {form({file, {"file", "RIFF", "b.wav"}}), "file", "gives file twice"},
      {form({file, {"chunking_strategy", "auto", ""}}), "chunking_strategy", "Unrecognized request argument"},
      {form({file, {"response_format", "mp3", ""}}), "response_format", "json, text, srt, verbose_json or vtt"},
      {form({file, {"temperature", "hot", ""}}), "temperature", "from 0 to 1"},
      {form({file, {"temperature", "1.5", ""}}), "temperature", "from 0 to 1"},
      {form({file, {"temperature", "nan", ""}}), "temperature", "from 0 to 1"},
      {form({file, {"timestamp_granularities[]", "word", ""}}), "timestamp_granularities[]", "verbose_json"},
      {form({file, {"response_format", "verbose_json", ""}, {"timestamp_granularities[]", "char", ""}}),
       "timestamp_granularities[]", "word and segment"},
      {form({file, {"stream", "true", ""}}), "stream", "not supported on /v1/audio/translations", true},
      {form({file, {"stream", "true", ""}, {"response_format", "srt", ""}}), "stream", "json or text"},
      {form({file, {"stream", "yes", ""}}), "stream", "true or false"},
      {form({file, {"language", "", ""}}), "language", "language code"},
      {form({file, {"language", "en", ""}}), "language", "not accepted on /v1/audio/translations", true},
      {form({file, {"prompt", std::string(openai::kMaxFieldBytes + 1, 'p'), ""}}), "prompt", "at most 65536"},
  };
  for (const Case& c : cases) {
    const openai::Refusal why = refusal(c.body, c.translate);
    EXPECT_EQ(why.status, 400);
    EXPECT_EQ(why.param, c.param) << why.message;
    EXPECT_SAYS(why.message, c.says);
  }
  EXPECT_SAYS(refusal(form({file}), false, "application/json").message, "multipart/form-data");
  EXPECT_SAYS(refusal("--other\r\n", false).message, "no boundary line");
}

}  // namespace
