// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The one source of a layer check library (src/CMakeLists.txt): the layer's archive is linked
// whole beside it, so this file needs nothing.
