// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Which sanitizer this translation unit is built under: GCC defines __SANITIZE_*__, clang answers
// __has_feature. For code whose checks a sanitizer's own bookkeeping would make wrong.
#pragma once

#if defined(__has_feature)
#define WASINN_HAS_FEATURE(x) __has_feature(x)
#else
#define WASINN_HAS_FEATURE(x) 0
#endif

namespace wasinn {

#if defined(__SANITIZE_ADDRESS__) || WASINN_HAS_FEATURE(address_sanitizer)
inline constexpr bool kAddressSanitizer = true;
#else
inline constexpr bool kAddressSanitizer = false;
#endif

#if defined(__SANITIZE_THREAD__) || WASINN_HAS_FEATURE(thread_sanitizer)
inline constexpr bool kThreadSanitizer = true;
#else
inline constexpr bool kThreadSanitizer = false;
#endif

}  // namespace wasinn

#undef WASINN_HAS_FEATURE
