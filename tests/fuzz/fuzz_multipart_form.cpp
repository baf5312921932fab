// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// libFuzzer target fuzz_multipart_form: the audio routes' multipart/form-data parser and form
// checks (guest/components/multipart_form.cpp, transcription_form.cpp; compiled natively as they
// are into the http_openai guest), on hostile bytes from a client. An input is byte 0 (odd: a
// translation), a Content-Type line, then the body. Neither may crash or hang; a refusal is a 400
// with a message; an accepted form's file and every part's bytes lie inside the body.
// With WASINN_FUZZ_SEEDS_OUT set, writes seed forms there and exits (scripts/fuzz.sh).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "multipart_form.h"
#include "transcription_form.h"

namespace {

[[noreturn]] void fail(const char* what) {
  std::fprintf(stderr, "fuzz invariant: %s\n", what);
  std::abort();
}

bool inside(std::string_view part, std::string_view whole) {
  return part.empty() || (part.data() >= whole.data() && part.data() + part.size() <= whole.data() + whole.size());
}

void write_seeds(const char* dir) {
  const std::string type = "multipart/form-data; boundary=XyZ\n";
  const std::string file =
      "--XyZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.wav\"\r\n"
      "Content-Type: audio/wav\r\n\r\nRIFF\x24\0\0\0WAVEfmt \r\n";
  const std::vector<std::pair<const char*, std::string>> seeds = {
      {"whole", std::string(1, '\0') + type + file +
                    "--XyZ\r\nContent-Disposition: form-data; name=\"model\"\r\n\r\nwhisper\r\n"
                    "--XyZ\r\nContent-Disposition: form-data; name=\"response_format\"\r\n\r\nverbose_json\r\n"
                    "--XyZ\r\nContent-Disposition: form-data; name=\"timestamp_granularities[]\"\r\n\r\nword\r\n"
                    "--XyZ--\r\n"},
      {"translate", std::string(1, '\1') + type + file + "--XyZ--"},
      {"cut", std::string(1, '\0') + type + file.substr(0, 60)},
      {"quoted", std::string(1, '\0') + "multipart/form-data; boundary=\"a;b\"\n--a;b\r\nContent-Disposition: "
                                        "form-data; name=\"file\"; filename=\"x\\\"y\"\r\n\r\nz\r\n--a;b--"},
  };
  for (const auto& [name, bytes] : seeds) std::ofstream(std::string(dir) + "/" + name, std::ios::binary) << bytes;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  if (const char* dir = std::getenv("WASINN_FUZZ_SEEDS_OUT")) {
    write_seeds(dir);
    std::exit(0);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const bool translate = data[0] & 1;
  const std::string_view rest(reinterpret_cast<const char*>(data + 1), size - 1);
  const size_t eol = rest.find('\n');
  const std::string_view type = rest.substr(0, eol == std::string_view::npos ? rest.size() : eol);
  const std::string_view body = eol == std::string_view::npos ? std::string_view() : rest.substr(eol + 1);

  std::vector<multipart::Part> parts;
  std::string why;
  if (multipart::parse(body, "XyZ", parts, why)) {
    if (parts.size() > multipart::kMaxParts) fail("more parts than kMaxParts");
    for (const auto& p : parts) {
      if (!inside(p.body, body)) fail("a part's bytes lie outside the body");
      if (p.name.empty()) fail("a part without a name was accepted");
    }
  } else if (why.empty()) {
    fail("a refusal without a reason");
  }

  openai::TranscriptionRequest req;
  openai::Refusal refusal;
  if (openai::parse_transcription_form(type, body, translate, req, refusal)) {
    if (req.file.empty() || !inside(req.file, body)) fail("an accepted form's file is empty or outside the body");
    if (translate && !req.language.empty()) fail("a translation took a language");
    if (req.has_temperature && !(req.temperature >= 0 && req.temperature <= 1)) fail("temperature out of range");
    if (req.words && req.format != openai::AudioFormat::verbose_json) fail("word times without verbose_json");
  } else if (refusal.status != 400 || refusal.message.empty()) {
    fail("a refusal that is not a 400 with a message");
  }
  return 0;
}
