// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "torch_log.h"

#include <c10/util/Exception.h>
#include <c10/util/Logging.h>
#include <glog/logging.h>
#include <torch/csrc/jit/jit_log.h>

#include <mutex>
#include <ostream>
#include <streambuf>
#include <string>

#include "wasinn/plugin_sdk/log.hpp"

namespace wasinn::pytorch {
namespace {

wasinn_log_level from_glog(google::LogSeverity severity) {
  switch (severity) {
    case google::GLOG_INFO: return WASINN_LOG_INFO;
    case google::GLOG_WARNING: return WASINN_LOG_WARN;
    default: return WASINN_LOG_ERROR;  // ERROR and FATAL
  }
}

// glog's lowest severity worth formatting: the host shows nothing below sdk::log_threshold().
int glog_threshold() {
  switch (sdk::log_threshold()) {
    case WASINN_LOG_TRACE:
    case WASINN_LOG_DEBUG:
    case WASINN_LOG_INFO: return google::GLOG_INFO;
    case WASINN_LOG_WARN: return google::GLOG_WARNING;
    case WASINN_LOG_ERROR: return google::GLOG_ERROR;
    default: return google::GLOG_FATAL;
  }
}

class WarningsToLog final : public c10::WarningHandler {
 public:
  void process(const c10::SourceLocation& where, const std::string& msg, bool verbatim) override {
    if (!sdk::log_enabled(WASINN_LOG_WARN)) return;
    // Not verbatim: a bare C++ message, which c10's own handler follows with its function.
    sdk::log(WASINN_LOG_WARN, verbatim || !where.function ? msg : msg + " (function " + where.function + ")");
  }
};

WarningsToLog& warnings_to_log() {
  static WarningsToLog handler;  // lives for the process: c10 keeps a raw pointer
  return handler;
}

// Called by glog with its own mutex held, from whichever thread logged.
class GlogToLog final : public google::LogSink {
 public:
  void send(google::LogSeverity severity, const char* /*full_filename*/, const char* base_filename, int line,
            const google::LogMessageTime& /*time*/, const char* message, size_t message_len) override {
    try {
      std::string text(message, message_len);
      if (base_filename) text += std::string(" (") + base_filename + ":" + std::to_string(line) + ")";
      sdk::log(from_glog(severity), text);
    } catch (...) {  // out of memory: the line is lost, glog's caller must not unwind
    }
  }
};

// TorchScript's pass log as a stream: each complete line is one sdk::log call. Lines are
// assembled per thread, since passes log from whichever thread compiles.
class LinesToLog final : public std::streambuf {
 protected:
  int_type overflow(int_type c) override {
    if (!traits_type::eq_int_type(c, traits_type::eof())) put(traits_type::to_char_type(c));
    return traits_type::not_eof(c);
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    for (std::streamsize i = 0; i < n; ++i) put(s[i]);
    return n;
  }

 private:
  static void put(char c) {
    thread_local std::string line;
    if (c != '\n') {
      line += c;
      return;
    }
    sdk::log(WASINN_LOG_DEBUG, line);
    line.clear();
  }
};

void install_hooks() {
  // glog writes every line to stderr until InitGoogleLogging, whatever its flags say. Once
  // initialized, with its log files (an empty name turns one off) and stderr copies turned
  // off, the sink below is where its lines go. When someone else initialized glog, their
  // settings stay and the sink only adds a copy.
  if (!google::IsGoogleLoggingInitialized()) {
    for (int s = google::GLOG_INFO; s < google::NUM_SEVERITIES; ++s) google::SetLogDestination(s, "");
    google::InitGoogleLogging("wasinn");
    FLAGS_logtostderr = false;
    FLAGS_logtostdout = false;
    FLAGS_alsologtostderr = false;
    FLAGS_stderrthreshold = google::GLOG_FATAL;  // a FATAL line aborts: its reason stays visible
    FLAGS_minloglevel = glog_threshold();
  }
  static GlogToLog sink;  // never removed: libtorch may log until the process exits
  google::AddLogSink(&sink);

  c10::SetAPIUsageLogger([](const std::string& event) {
    if (sdk::log_enabled(WASINN_LOG_TRACE)) sdk::log(WASINN_LOG_TRACE, "API usage: " + event);
  });

  static LinesToLog jit_lines;
  static std::ostream jit_log(&jit_lines);
  torch::jit::set_jit_logging_output_stream(jit_log);
}

}  // namespace

void route_torch_logs() {
  static std::once_flag once;
  std::call_once(once, install_hooks);
}

TorchWarnings::TorchWarnings() : previous_(c10::Warning::get_warning_handler()) {
  c10::Warning::set_warning_handler(&warnings_to_log());
}

TorchWarnings::~TorchWarnings() { c10::Warning::set_warning_handler(previous_); }

}  // namespace wasinn::pytorch
