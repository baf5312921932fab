// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Utf8Pieces: joins a stream of byte pieces (a text model's tokens, which may end mid-character)
// into pieces that end on character boundaries, so each can be a WIT string without turning half
// a character into U+FFFD. Not thread-safe: one per stream.
#pragma once

#include <string>
#include <string_view>

namespace wasinn {

class Utf8Pieces {
 public:
  // The bytes held back so far plus `bytes`, up to the last complete character; an unfinished
  // multi-byte sequence at the end waits for the next piece. Bytes that can never form a
  // character are passed on as they are (the caller's lossy conversion replaces them).
  std::string take(std::string_view bytes);
  // What is still held back (an unfinished sequence at the stream's end), and forgets it.
  std::string finish();
  bool empty() const { return held_.empty(); }

 private:
  std::string held_;
};

}  // namespace wasinn
