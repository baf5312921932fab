// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Text to IPA phonemes with espeak-ng (1.52.0.1, linked in: scripts/deps/espeak-ng.sh), grouped by
// sentence as piper groups them: each clause's phonemes, then its punctuation (",", ":", ";"
// followed by a space), and a new sentence after ".", "?" and "!". espeak-ng keeps one global
// state (its data directory and voice), so the one Phonemizer of the process serializes every
// call; its data directory is the first one a voice loaded with. Thread-safe.
#pragma once

#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "wasinn/plugin_sdk/error.hpp"

namespace wasinn::piper {

using sdk::Error;

class Phonemizer {
 public:
  static Phonemizer& instance();

  // Whether espeak-ng starts from `data_dir` (nullopt: the plugin's own, piper-espeak-ng-data
  // beside it) and has `voice`: what load checks, so compute cannot fail on them later.
  Error check(const std::optional<std::string>& data_dir, const std::string& voice);
  // One string of phonemes per sentence; an empty text gives none.
  Error phonemize(const std::optional<std::string>& data_dir, const std::string& voice, const std::string& text,
                  std::vector<std::string>& sentences);

 private:
  Error use(const std::optional<std::string>& data_dir, const std::string& voice);  // under mu_

  std::mutex mu_;
  bool initialized_ = false;
  std::string data_dir_;     // the canonical directory espeak-ng was initialized with
  std::string default_dir_;  // the plugin's own, canonical
  std::string voice_;        // the voice set last
};

// How piper ends a clause, from the text espeak-ng consumed for it: rhasspy's fork of espeak-ng
// reports the clause's punctuation, upstream's library does not, so it is read from the text.
// `consumed` runs from the clause's start to where espeak-ng stopped (one character past the
// clause when more follows: `more`). Sets the terminator ("" when none) and whether the
// sentence ends there.
void clause_end(std::string_view consumed, bool more, std::string& terminator, bool& sentence_end);

}  // namespace wasinn::piper
