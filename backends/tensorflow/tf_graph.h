// A loaded TensorFlow model: a graph, the session that runs it, and its inputs and outputs.
//
// TensorFlow addresses tensors by name. wasinn's index i is the i-th name in sorted (byte)
// order, for inputs and outputs alike: for a SavedModel the signature's keys ("offset" < "x"),
// for a frozen GraphDef the operation names. graph_io_info reports the names in that order.
#pragma once

#include <tensorflow/c/c_api.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tf_error.h"
#include "tf_handles.h"

struct wasinn_backend;

namespace wasinn_tf {

struct IoDesc {
  std::string name;  // signature key, or operation name ("op" or "op:1") for a GraphDef
  TF_Output port{};
  TF_DataType dtype = static_cast<TF_DataType>(0);
  int32_t type = WASINN_TYPE_UNKNOWN;
  int32_t rank = -1;           // -1: unknown rank
  std::vector<int64_t> dims;   // -1: unknown size

  // "f32 [-1, 3]", or TensorFlow's name for a type wasinn cannot carry.
  std::string describe() const;
};

}  // namespace wasinn_tf

struct wasinn_graph {
  wasinn_tf::GraphPtr graph;
  wasinn_tf::SessionPtr session;  // declared after graph: closed and deleted before it
  // TF_SessionRun may be called from several threads at once on one session, so contexts share
  // it; nothing here changes after load.
  std::vector<wasinn_tf::IoDesc> inputs;   // sorted by name
  std::vector<wasinn_tf::IoDesc> outputs;  // sorted by name
  std::vector<TF_Output> input_ports, output_ports;  // same order, as TF_SessionRun wants them

  const std::vector<wasinn_tf::IoDesc> &io(bool is_output) const {
    return is_output ? outputs : inputs;
  }
};

namespace wasinn_tf {

// One builder: a frozen GraphDef, or (preloaded) a SavedModel given by its directory or by the
// path of its saved_model.pb. Config: {"signature", "tags"} for SavedModels (defaults
// "serving_default", ["serve"]); {"inputs", "outputs"} to name a GraphDef's ends.
Error load_graph(wasinn_backend *backend, const wasinn_load_request *request,
                 std::unique_ptr<wasinn_graph> &out);

Error resolve_id(const wasinn_graph &graph, bool is_output, const wasinn_tensor_id *id,
                 size_t &index);

// `input 1 ("x")`, the prefix of every per-tensor detail.
std::string io_label(const wasinn_graph &graph, bool is_output, size_t index);

}  // namespace wasinn_tf
