// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// multipart/form-data (RFC 7578 over RFC 2046's multipart syntax), as OpenAI's audio uploads send
// it: the boundary from the Content-Type header, then each part's Content-Disposition name (and
// filename), Content-Type and bytes. Pure C++ (no WIT, no WASI, no exceptions), so the guest and
// the native tests and fuzz target (tests/serve/multipart_form_test.cpp, tests/fuzz) run the same
// code. Every malformed form is refused with a sentence that says what is wrong.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace multipart {

struct Part {
  std::string name;  // Content-Disposition's name
  std::string filename;
  bool has_filename = false;  // a file part (filename="" is still one)
  std::string content_type;   // "" when the part says none
  std::string_view body;      // into the form's bytes
};

// The most parts a form may have: OpenAI's audio forms have a dozen at most.
constexpr size_t kMaxParts = 64;

// The boundary of a `multipart/form-data; boundary=...` Content-Type value (quoted or not,
// 1-70 characters); false with `why` for another type or a missing or malformed boundary.
bool boundary_of(std::string_view content_type, std::string& boundary, std::string& why);

// The parts of `body`, in order; false with `why` when the form is malformed: no boundary line,
// a part cut off (no closing boundary), a part without a blank line after its headers, a header
// line without ':', a part without Content-Disposition: form-data and a name, more than kMaxParts.
bool parse(std::string_view body, std::string_view boundary, std::vector<Part>& parts, std::string& why);

}  // namespace multipart
