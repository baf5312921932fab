// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "phonemizer.h"

#include <dlfcn.h>
#include <espeak-ng/espeak_ng.h>
#include <espeak-ng/speak_lib.h>

#include <filesystem>

namespace wasinn::piper {
namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

std::string status_text(espeak_ng_STATUS status) {
  char buf[512] = {};
  espeak_ng_GetStatusCodeMessage(status, buf, sizeof buf);
  return buf;
}

// espeak-ng marks words of another language as "(fr)...(en)"; piper drops the marks.
std::string without_language_flags(std::string_view phonemes) {
  std::string out;
  bool in_flag = false;
  for (char c : phonemes) {
    if (in_flag)
      in_flag = c != ')';
    else if (c == '(')
      in_flag = true;
    else
      out += c;
  }
  return out;
}

}  // namespace

void clause_end(std::string_view consumed, bool more, std::string& terminator, bool& sentence_end) {
  if (more && !consumed.empty()) {  // drop the one character espeak-ng read ahead (UTF-8)
    size_t cut = consumed.size() - 1;
    while (cut > 0 && (static_cast<unsigned char>(consumed[cut]) & 0xC0) == 0x80) --cut;
    consumed = consumed.substr(0, cut);
  }
  size_t end = consumed.size();
  bool blank_line = false;  // a paragraph break: espeak-ng ends the sentence without punctuation
  for (int newlines = 0; end > 0 && is_space(consumed[end - 1]); --end)
    if (consumed[end - 1] == '\n' && ++newlines == 2) blank_line = true;
  size_t start = end;  // the run of punctuation that ends the clause
  while (start > 0 && std::string_view(".?!,:;").find(consumed[start - 1]) != std::string_view::npos) --start;
  const std::string_view run = consumed.substr(start, end - start);
  terminator.clear();
  sentence_end = !more || blank_line;
  if (run.empty() || blank_line || run.find("..") != std::string_view::npos) return;  // an ellipsis is a pause
  terminator = std::string(1, run.front());
  if (run.front() == '.' || run.front() == '?' || run.front() == '!')
    sentence_end = true;
  else
    terminator += ' ';  // piper: a comma, colon or semicolon is no sentence boundary
}

Phonemizer& Phonemizer::instance() {
  static Phonemizer p;  // espeak-ng is one per process: so is this
  return p;
}

// `dir` made canonical, so that two spellings of one directory are one.
std::string canonical_dir(const std::string& dir) {
  std::error_code ec;
  const auto canonical = std::filesystem::weakly_canonical(dir, ec);
  return ec ? dir : canonical.string();
}

// The espeak-ng data the build lays beside this plugin (backends/piper/CMakeLists.txt), from the
// plugin's own path: the same in the build tree, an install and an image.
std::string own_data_dir() {
  Dl_info info{};
  if (!dladdr(reinterpret_cast<void*>(&own_data_dir), &info) || !info.dli_fname) return "piper-espeak-ng-data";
  return (std::filesystem::path(info.dli_fname).parent_path() / "piper-espeak-ng-data").string();
}

Error Phonemizer::use(const std::optional<std::string>& data_dir, const std::string& voice) {
  if (default_dir_.empty()) default_dir_ = canonical_dir(own_data_dir());
  const std::string dir = data_dir ? canonical_dir(*data_dir) : default_dir_;
  std::error_code ec;
  const bool has_data = std::filesystem::is_regular_file(std::filesystem::path(dir) / "phontab", ec);
  if (!data_dir && !has_data)
    return {WASINN_NOT_FOUND, "the piper plugin's espeak-ng data is missing from " + dir +
                                  ": it is installed with the plugin (cmake --install), or name it with espeak_data"};
  if (!std::filesystem::is_directory(dir, ec))
    return {WASINN_NOT_FOUND, "espeak_data: " + *data_dir + " is not a directory (espeak-ng " + espeak_Info(nullptr) +
                                  " data, as the plugin's own: " + default_dir_ + ")"};
  if (!has_data) return {WASINN_NOT_FOUND, "espeak_data: " + dir + " holds no espeak-ng data (no phontab file)"};
  if (initialized_ && dir != data_dir_)
    // espeak-ng is one global state: starting it again from another directory would change the
    // phonemes of every voice already loaded. So the first directory a voice loaded with stays.
    return {WASINN_UNSUPPORTED_OPERATION,
            "espeak_data: espeak-ng runs from one data directory per process, and "
            "this one started from " +
                data_dir_ + ", not " + dir + "; load the voice without espeak_data, or with that directory"};
  if (!initialized_) {
    espeak_ng_InitializePath(dir.c_str());
    espeak_ng_ERROR_CONTEXT context = nullptr;
    espeak_ng_STATUS status = espeak_ng_Initialize(&context);
    espeak_ng_ClearErrorContext(&context);
    // A failed espeak_ng_Initialize has kept nothing: a later load may try another directory.
    if (status != ENS_OK) return {WASINN_NOT_FOUND, "espeak-ng cannot start from " + dir + ": " + status_text(status)};
    // No espeak_ng_InitializeOutput: text to phonemes needs no audio (the build has no audio
    // output and no queue thread).
    initialized_ = true;
    data_dir_ = dir;
  }
  if (voice_ != voice) {
    if (espeak_ng_SetVoiceByName(voice.c_str()) != ENS_OK)
      return {WASINN_NOT_FOUND,
              "espeak-ng has no voice \"" + voice + "\" in " + dir + " (the voice config's espeak.voice)"};
    voice_ = voice;
  }
  return {};
}

Error Phonemizer::check(const std::optional<std::string>& data_dir, const std::string& voice) {
  std::lock_guard lock(mu_);
  return use(data_dir, voice);
}

Error Phonemizer::phonemize(const std::optional<std::string>& data_dir, const std::string& voice,
                            const std::string& text, std::vector<std::string>& sentences) {
  std::lock_guard lock(mu_);
  if (Error e = use(data_dir, voice)) return e;
  sentences.clear();
  std::string sentence;
  const void* next = text.c_str();
  const char* const text_end = text.c_str() + text.size();
  while (next && static_cast<const char*>(next) < text_end) {
    const char* start = static_cast<const char*>(next);
    const char* phonemes = espeak_TextToPhonemes(&next, espeakCHARS_AUTO, espeakPHONEMES_IPA);
    if (next == start) break;  // no progress: never loop on what espeak-ng will not read
    const bool more = next != nullptr && static_cast<const char*>(next) < text_end;
    const char* stop = more ? static_cast<const char*>(next) : text_end;
    std::string terminator;
    bool sentence_end = false;
    clause_end(std::string_view(start, static_cast<size_t>(stop - start)), more, terminator, sentence_end);
    if (phonemes) sentence += without_language_flags(phonemes);
    sentence += terminator;
    if (sentence_end && !sentence.empty()) sentences.push_back(std::move(sentence)), sentence.clear();
  }
  if (!sentence.empty()) sentences.push_back(std::move(sentence));
  return {};
}

}  // namespace wasinn::piper
