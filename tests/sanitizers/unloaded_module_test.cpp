// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// LeakSanitizer and modules that are unloaded before exit (issue 52: on an AMD EPYC the ASan stage
// failed with "Direct leak of 128 byte(s)" from "<unknown module>", Debian's lavapipe's L3-cache
// mask, unmapped when the Vulkan loader unloaded the driver at vkDestroyInstance).
//   unloaded_module_test MODULE            a block held by MODULE's global, dlclosed; then a Vulkan
//                                          instance made and destroyed: must end with no report
//   unloaded_module_test MODULE --unload   the same with glibc's own dlclose: must be reported
// Without --unload it also runs itself with it and checks the report, so the cause is shown to be
// caught, and the executable's dlclose (cmake/keep_modules.cpp) to be what keeps it away.
#include <dlfcn.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vulkan/vulkan.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

#include "support/stream_bytes.h"

extern char** environ;

namespace {

int hold_and_close(const char* module, bool unload_for_real) {
  void* lib = dlopen(module, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    std::fprintf(stderr, "dlopen %s: %s\n", module, dlerror());
    return 2;
  }
  auto hold = reinterpret_cast<void (*)()>(dlsym(lib, "hold_block"));
  if (!hold) return 2;
  hold();
  using Close = int (*)(void*);
  // glibc's dlclose, past the executable's own (the ASan interceptor and keep_modules.cpp's).
  Close close = unload_for_real ? reinterpret_cast<Close>(dlsym(RTLD_NEXT, "dlclose")) : dlclose;
  return close(lib) == 0 ? 0 : 2;
}

// What the plugins' device probes do: the loader loads the driver, then unloads it at the last
// vkDestroyInstance. No driver, or no device, is fine: the driver's load is what matters.
void vulkan_probe() {
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.apiVersion = VK_API_VERSION_1_1;
  VkInstanceCreateInfo info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  info.pApplicationInfo = &app;
  VkInstance instance = VK_NULL_HANDLE;
  if (vkCreateInstance(&info, nullptr, &instance) != VK_SUCCESS) {
    std::printf("vulkan: no instance (no driver): only the module case checked\n");
    return;
  }
  uint32_t devices = 0;
  vkEnumeratePhysicalDevices(instance, &devices, nullptr);
  vkDestroyInstance(instance, nullptr);
  std::printf("vulkan: %u device(s) probed, the instance destroyed (the loader dlcloses its driver)\n", devices);
}

// Runs this program with --unload, its stderr in a file; true when LeakSanitizer reported the
// block from an unnamed module.
bool unload_is_reported(const char* self, const char* module) {
  char path[] = "/tmp/unloaded_module_test.XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0) return false;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fd, STDERR_FILENO);
  const char* argv[] = {self, module, "--unload", nullptr};
  pid_t pid = 0;
  int status = 0;
  bool ran = posix_spawn(&pid, self, &actions, nullptr, const_cast<char**>(argv), environ) == 0 &&
             waitpid(pid, &status, 0) == pid;
  posix_spawn_file_actions_destroy(&actions);
  close(fd);
  std::ifstream in(path);
  const std::string err = wasinn_test::stream_bytes<std::string>(in);
  unlink(path);
  bool reported = ran && WIFEXITED(status) && WEXITSTATUS(status) != 0 &&
                  err.find("Direct leak of 128 byte(s)") != std::string::npos &&
                  err.find("<unknown module>") != std::string::npos;
  if (!reported)
    std::fprintf(stderr,
                 "FAIL: a block held by a module unloaded for real was not reported as LeakSanitizer "
                 "reports it on a new machine (exit status %d):\n%s\n",
                 status, err.c_str());
  return reported;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: unloaded_module_test MODULE [--unload]\n");
    return 2;
  }
  if (argc > 2 && std::strcmp(argv[2], "--unload") == 0) return hold_and_close(argv[1], true);
  if (!unload_is_reported(argv[0], argv[1])) return 1;
  std::printf(
      "a module unloaded for real: its held block reported from <unknown module> (the new machine's failure)\n");
  if (int rc = hold_and_close(argv[1], false)) return rc;
  vulkan_probe();
  std::printf("with the executable's dlclose: nothing to report (LeakSanitizer runs at this exit)\n");
  return 0;
}
