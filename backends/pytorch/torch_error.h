// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The exceptions libtorch throws, as one readable line and as an sdk::Error.
//
// libtorch reports nearly every failure by throwing (c10::Error, the interpreter's
// std::runtime_error, torch::jit::ErrorReport). The SDK's guard would catch them too, but with
// what(), which for c10::Error carries a C++ backtrace and for ErrorReport may call
// std::terminate (see torch_error.cpp); so every method that calls into libtorch catches them
// first, through catch_torch.
#pragma once

#include <exception>
#include <new>
#include <string>

#include "wasinn/plugin_sdk/error.hpp"

namespace wasinn::pytorch {

// One line out of a libtorch exception. c10::Error carries a C++ backtrace and the TorchScript
// interpreter a Python-style traceback; the line a user needs is the final "XxxError: why".
std::string exception_summary(const std::exception& e);

// Runs body (returning sdk::Error). An exception becomes RUNTIME_ERROR with
// "pytorch backend: <its summary>", the detail the SDK's guard gives any other exception;
// bad_alloc goes on to that guard ("out of memory").
template <typename F>
sdk::Error catch_torch(F&& body) {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception& e) {
    return sdk::runtime_error("pytorch backend: " + exception_summary(e));
  }
}

}  // namespace wasinn::pytorch
