// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// FakePlugin: the tests' handle on a fake backend's control surface (fake_control.h). It dlopens
// the very file the host's catalog opens, so both see one loaded object and one set of
// counters. Never closed, as the host never closes plugins either.
#pragma once

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "fake_backend/fake_control.h"

namespace wasinn::unit {

class FakePlugin {
 public:
  // The full fake (onnx, ggml) and the one with no streaming functions (pytorch).
  static const FakePlugin& main() {
    static const FakePlugin p(WASINN_UNIT_FAKE_LIB);
    return p;
  }
  static const FakePlugin& nostream() {
    static const FakePlugin p(WASINN_UNIT_NOSTREAM_LIB);
    return p;
  }

  fake_stats stats() const { return get_stats_(); }
  bool wait_blocked(int64_t count, int timeout_ms = 5000) const { return wait_blocked_(count, timeout_ms) != 0; }
  void open_gate() const { open_gate_(); }

 private:
  explicit FakePlugin(const char* path) {
    void* h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      ADD_FAILURE() << "dlopen " << path << ": " << dlerror();
      std::abort();
    }
    get_stats_ = reinterpret_cast<fake_get_stats_fn>(dlsym(h, FAKE_GET_STATS_SYMBOL));
    wait_blocked_ = reinterpret_cast<fake_wait_blocked_fn>(dlsym(h, FAKE_WAIT_BLOCKED_SYMBOL));
    open_gate_ = reinterpret_cast<fake_open_gate_fn>(dlsym(h, FAKE_OPEN_GATE_SYMBOL));
    if (!get_stats_ || !wait_blocked_ || !open_gate_) {
      ADD_FAILURE() << path << " lacks the fake control symbols";
      std::abort();
    }
  }
  fake_get_stats_fn get_stats_ = nullptr;
  fake_wait_blocked_fn wait_blocked_ = nullptr;
  fake_open_gate_fn open_gate_ = nullptr;
};

}  // namespace wasinn::unit
