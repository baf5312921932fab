# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# wasinn_find_torch(): find_package(Torch REQUIRED) (Debian's libtorch-dev 1.13.1), plus a fix
# for clang. clang-14 instantiates C++20's constexpr std::vector<c10::IValue> members while
# IValue is still incomplete when <ATen/ops/...> headers come first, so under clang every user
# of the torch target includes ATen/core/ivalue.h first. gcc (the default build) needs nothing.
# A macro, so find_package's variables land in the caller's scope.
macro(wasinn_find_torch)
  find_package(Torch REQUIRED)
  if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    set_property(TARGET torch APPEND PROPERTY INTERFACE_COMPILE_OPTIONS "SHELL:-include ATen/core/ivalue.h")
  endif()
endmacro()
