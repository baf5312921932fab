// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// wasinn plugin SDK: the thread count a backend asks its framework for when no config sets one.
//
// ONNX Runtime, OpenVINO, libtorch and TensorFlow size their pools by the machine's cores and read
// no cgroup CPU quota (onnxruntime#29510, openvino#37838), so in a container given 2 CPUs of a
// 64-core host they would run 32-64 threads on a quota of 2. Where a quota or the affinity allows this
// process fewer CPUs than the machine has, the backend asks for that many; elsewhere it leaves the
// framework's own default (often one thread per physical core) in charge. An explicit 0 in a
// config still means the framework's default. Thread-safe.
#pragma once

#include <algorithm>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

#include "wasinn/available_cpus.h"
#include "wasinn/plugin_sdk/log.hpp"

namespace wasinn::sdk {

// The CPUs this process may use when that is fewer than the machine's, else 0 ("no limit").
inline unsigned limited_cpus() {
  const unsigned machine = std::max(1u, std::thread::hardware_concurrency());
  const unsigned cpus = available_cpus_once();
  return cpus < machine ? cpus : 0;
}

// limited_cpus() for a config `key` left unset; says so once per plugin at debug, naming the key.
inline int default_thread_count(std::string_view key) {
  const unsigned cpus = limited_cpus();
  if (cpus) {
    static std::once_flag said;
    std::call_once(said, [&] {
      log_own(WASINN_LOG_DEBUG, std::string(key) + " " + std::to_string(cpus) +
                                    " (unset): the CPUs this process may use, a CPU quota or affinity below the "
                                    "machine's " +
                                    std::to_string(std::thread::hardware_concurrency()));
    });
  }
  return static_cast<int>(cpus);
}

}  // namespace wasinn::sdk
