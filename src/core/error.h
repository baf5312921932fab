// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Errors as values: a wasi-nn error code plus a detail string for the user.
// Error and Result are plain values; not synchronized, copy them freely.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace wasinn {

// The host's own error codes, one row each in core/errc.def with what each ABI and protocol
// calls it. Each guest ABI maps them to its errno numbering.
enum class Errc : uint8_t {
#define WASINN_ERRC(name, plugin_status, witx_errno, wit_case, http_status, grpc_code) name,
#include "core/errc.def"
#undef WASINN_ERRC
};
inline constexpr size_t kErrcCount = 0
#define WASINN_ERRC(name, plugin_status, witx_errno, wit_case, http_status, grpc_code) +1
#include "core/errc.def"
#undef WASINN_ERRC
    ;

std::string_view errc_name(Errc code);
// The code errc_name calls `name`, if any (a verdict cache's or a checker's text).
std::optional<Errc> errc_from_name(std::string_view name);

struct Error {
  Errc code;
  std::string detail;
};

inline Error make_error(Errc code, std::string detail) { return Error{code, std::move(detail)}; }

// Either a T or an Error. Result<void> carries only success or an Error.
template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}
  Result(Error error) : v_(std::move(error)) {}
  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() & { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  const T& value() const& { return std::get<0>(v_); }
  T* operator->() { return &value(); }
  T& operator*() { return value(); }
  const Error& error() const { return std::get<1>(v_); }
  Error&& take_error() { return std::get<1>(std::move(v_)); }

 private:
  std::variant<T, Error> v_;
};

template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Error error) : error_(std::move(error)), ok_(false) {}
  bool ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  const Error& error() const { return error_; }
  Error&& take_error() { return std::move(error_); }

 private:
  Error error_{Errc::unknown, {}};
  bool ok_ = true;
};

using Status = Result<void>;

}  // namespace wasinn

// Propagates an error from an expression returning Result/Status.
#define WASINN_TRY(expr)                                                  \
  do {                                                                    \
    auto wasinn_try_status_ = (expr);                                     \
    if (!wasinn_try_status_.ok()) return wasinn_try_status_.take_error(); \
  } while (0)
