// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// libtorch's own log output to the host's logger (sdk::log), at the level libtorch gave it.
//
// Debian's libtorch 1.13 is built with glog and has four outlets, each with a hook:
//   - c10 warnings (TORCH_WARN, TorchScript's warnings.warn) go to a c10::WarningHandler, which
//     in 1.13 is per thread: TorchWarnings installs one on the calling thread for the length of
//     a plugin call (WARN). On libtorch's own pool threads the default handler passes them to
//     glog, below.
//   - glog (c10's LOG(...), and that default warning handler): a glog LogSink (INFO, WARN,
//     ERROR; FATAL as ERROR). glog's log files and its stderr copies are turned off, so the sink
//     is its only outlet; only a FATAL line, which aborts the process, still reaches stderr.
//   - API usage events (C10_LOG_API_USAGE_ONCE, e.g. "torch.jit.load"): c10::SetAPIUsageLogger
//     (TRACE). It replaces c10's default logger, which printed them to stderr when
//     PYTORCH_API_USAGE_STDERR was set.
//   - TorchScript pass logging (only with PYTORCH_JIT_LOG_LEVEL set):
//     torch::jit::set_jit_logging_output_stream, one line per sdk::log call (DEBUG).
// What libtorch writes to std::cerr or stderr directly has no hook and is not routed.
#pragma once

namespace c10 {
class WarningHandler;
}

namespace wasinn::pytorch {

// Installs the process-wide hooks above, once; later calls do nothing. Call before the plugin's
// first other libtorch call (backend_create), after the host installed its log sink.
void route_torch_logs();

// While alive, c10 warnings raised on this thread go to sdk::log. A guard around each plugin
// call that runs libtorch code (config, load, compute); restores the previous handler.
class TorchWarnings {
 public:
  TorchWarnings();
  ~TorchWarnings();
  TorchWarnings(const TorchWarnings&) = delete;
  TorchWarnings& operator=(const TorchWarnings&) = delete;

 private:
  c10::WarningHandler* previous_;
};

}  // namespace wasinn::pytorch
