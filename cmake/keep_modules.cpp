// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Linked into every executable of the ASan+UBSan tree (CMakeLists.txt): dlclose keeps the module.
// LeakSanitizer names a leak by the modules on its allocation's stack, and a module that was
// unloaded has no name left to suppress or blame; worse, memory a module's globals held becomes
// "leaked" once the globals are unmapped. The Vulkan loader unloads its driver at the last
// vkDestroyInstance, and Debian's lavapipe keeps a realloc'ed L3-cache mask from its CPU probe on
// AMD Zen CPUs only: a new machine's ASan stage failed on it (tests/sanitizers/unloaded_module_test).
// ASan's own dlclose interceptor calls the next dlclose, which is this one.
extern "C" int dlclose(void*) { return 0; }
