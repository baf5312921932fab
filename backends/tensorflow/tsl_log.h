// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// TensorFlow's C++ log lines (LOG(INFO) ... in TSL, "I tensorflow/cc/saved_model/reader.cc:83]
// Reading SavedModel from ...") to the host's logger.
//
// TSL keeps a list of log sinks, and its default sink writes to stderr. TensorFlow 2.17 exports
// tsl::TFAddLogSink, TFRemoveLogSink, TFGetLogSinks and the TFDefaultLogSink vtable (checked with
// nm -D), though not the C++ headers (tsl/platform/default/logging.h is in the wheel's Python
// package only): the plugin adds a sink of its own, declared here with the layout of TSL 2.17's
// TFLogSink and TFLogEntry, and removes the default one. libtensorflow_framework.so.2 and
// libtensorflow_cc.so.2 each carry a copy of TSL's logging with its own sink list (port.cc logs
// through the first, the SavedModel loader through the second), so both get the sink.
#pragma once

#include <string_view>

namespace wasinn::tensorflow {

// Routes every later TSL line of both TensorFlow libraries to sdk::log, levels mapped
// (INFO -> INFO, WARNING -> WARN, ERROR and FATAL -> ERROR); once per process. `tensorflow_cc`
// is the dlopen handle of libtensorflow_cc.so.2, `version` what its TF_Version() says. Best
// effort: a TensorFlow other than 2.17 (whose TSL layout the sink mirrors), or a library whose
// TSL lacks the functions, keeps its default stderr sink, and a line says so.
void route_tsl_logs(void* tensorflow_cc, std::string_view version);

}  // namespace wasinn::tensorflow
