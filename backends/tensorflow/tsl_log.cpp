// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "tsl_log.h"

#include <dlfcn.h>

#include <cstring>
#include <exception>
#include <string>
#include <typeinfo>
#include <vector>

#include "wasinn/plugin_sdk/log.hpp"

namespace wasinn::tensorflow {
namespace {

// tsl::TFLogEntry of TensorFlow 2.17, member for member (tsl/platform/default/logging.h). Only
// read, through the reference TSL passes to Send.
struct TslLogEntry {
  int severity;  // absl::LogSeverity: 0 INFO, 1 WARNING, 2 ERROR, 3 FATAL; VLOG lines are INFO
  std::string fname;
  int line;
  std::string message;
};

// tsl::TFLogSink: its virtual functions in TSL's order, so TSL's calls land here.
class TslLogSink {
 public:
  virtual ~TslLogSink() = default;
  virtual void Send(const TslLogEntry& entry) = 0;
  virtual void WaitTillSent() {}
};

wasinn_log_level level_of(int severity) {
  switch (severity) {
    case 0: return WASINN_LOG_INFO;
    case 1: return WASINN_LOG_WARN;
    default: return WASINN_LOG_ERROR;  // ERROR, FATAL
  }
}

// Called by TSL under its sink-list lock, from any thread; stateless.
class HostSink final : public TslLogSink {
 public:
  void Send(const TslLogEntry& entry) override {
    const wasinn_log_level level = level_of(entry.severity);
    if (!sdk::log_enabled(level)) return;
    try {
      std::string line = entry.message;
      if (!entry.fname.empty()) line += " (" + entry.fname + ":" + std::to_string(entry.line) + ")";
      sdk::log(level, line);
    } catch (const std::exception&) {
      // Out of memory while logging: drop the line rather than throw into TensorFlow.
    }
  }
};

using AddFn = void (*)(TslLogSink*);
using RemoveFn = void (*)(TslLogSink*);
using GetFn = std::vector<TslLogSink*> (*)();

// Adds `sink` to the TSL sink list of `library` and removes TSL's default (stderr) sink from it.
// Returns the add function used, or nullptr when the library does not export the sink API.
// no_sanitize("vptr"): the sinks in TSL's list are TSL's own classes, which UBSan cannot relate
// to TslLogSink, the plugin's mirror of their base; typeid only reads their vtable.
__attribute__((no_sanitize("vptr"))) AddFn route_library(void* library, const char* name, TslLogSink* sink,
                                                         AddFn already) {
  const auto add = reinterpret_cast<AddFn>(dlsym(library, "_ZN3tsl12TFAddLogSinkEPNS_9TFLogSinkE"));
  const auto remove = reinterpret_cast<RemoveFn>(dlsym(library, "_ZN3tsl15TFRemoveLogSinkEPNS_9TFLogSinkE"));
  const auto get = reinterpret_cast<GetFn>(dlsym(library, "_ZN3tsl13TFGetLogSinksEv"));
  if (!add || !remove || !get) {
    sdk::log(WASINN_LOG_INFO, std::string(name) + " exports no TSL log sink functions: its lines go to stderr");
    return nullptr;
  }
  if (add == already) return add;  // the same sink list, reached through the other library
  // Removed before ours is added: a line logged in between waits in TSL's queue for our sink.
  for (TslLogSink* s : get())
    // The default sink is known by its type's name, read through its vtable: the two libraries
    // each have a TFDefaultLogSink vtable, and an object may use either.
    if (std::strcmp(typeid(*s).name(), "N3tsl16TFDefaultLogSinkE") == 0) remove(s);
  add(sink);
  return add;
}

}  // namespace

void route_tsl_logs(void* tensorflow_cc, std::string_view version) {
  if (version.substr(0, 5) != "2.17.") {
    sdk::log(WASINN_LOG_WARN, "TensorFlow " + std::string(version) +
                                  ": its log lines stay on stderr (the plugin's log sink follows "
                                  "the layout of TensorFlow 2.17)");
    return;
  }
  // TSL keeps the pointer for the rest of the process (and logs from static destructors): never
  // freed.
  static TslLogSink* const sink = new HostSink();
  AddFn framework_add = nullptr;
  if (void* framework = dlopen("libtensorflow_framework.so.2", RTLD_NOW | RTLD_NOLOAD))
    framework_add = route_library(framework, "libtensorflow_framework.so.2", sink, nullptr);
  route_library(tensorflow_cc, "libtensorflow_cc.so.2", sink, framework_add);
}

}  // namespace wasinn::tensorflow
