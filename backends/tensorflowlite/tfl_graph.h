// A loaded .tflite model: the LiteRT model, the signature it runs, and its inputs and outputs
// described once at load so io queries and set_input checks never call into LiteRT.
//
// Index i of a graph input or output is the i-th input or output of the signature's subgraph,
// the order TensorFlow Lite's own interpreter reports (Interpreter::inputs(), Python's
// get_input_details()). A name addresses a tensor by its signature name or its tensor name.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "tfl_error.h"
#include "tfl_handles.h"

struct wasinn_backend;

namespace wasinn_tfl {

struct IoDesc {
  std::string name;         // signature name; the tensor name when the model has no signature
  std::string tensor_name;  // name of the tensor in the flatbuffer
  LiteRtElementType element = kLiteRtElementTypeNone;
  int32_t type = WASINN_TYPE_UNKNOWN;  // wasinn type with the same bytes
  int32_t rank = -1;                   // -1: unranked
  std::vector<int64_t> dims;           // -1 for a dynamic dimension
  LiteRtRankedTensorType ranked{};     // LiteRT's own description, template for buffers
  size_t position = 0;                 // index among the signature's buffers in a run
  bool quantized = false;              // per-tensor quantization (values stay integers)
  float scale = 0;
  int64_t zero_point = 0;

  bool dynamic() const;
  // "i8 [-1, 64] (quantized: scale 0.00392157, zero point -128)", or why no wasinn type fits.
  std::string describe() const;
};

}  // namespace wasinn_tfl

struct wasinn_graph {
  wasinn_backend *backend = nullptr;  // not owned; outlives every graph
  // Declaration order is destruction order reversed: compiled models, then the model, then the
  // bytes LiteRT reads the model from.
  wasinn_tfl::HostMemory bytes;  // set when loaded from a builder rather than a file
  wasinn_tfl::ModelPtr model;
  LiteRtParamIndex signature = 0;
  std::string signature_key;
  LiteRtHwAcceleratorSet accelerators = kLiteRtHwAcceleratorCpu;
  std::vector<wasinn_tfl::IoDesc> inputs;
  std::vector<wasinn_tfl::IoDesc> outputs;
  // The compiled model made at load (so an unsupported op fails load, not a later call),
  // handed to the first context.
  std::mutex spare_mu;
  wasinn_tfl::CompiledModelPtr spare;

  const std::vector<wasinn_tfl::IoDesc> &io(bool is_output) const {
    return is_output ? outputs : inputs;
  }
};

namespace wasinn_tfl {

Error load_graph(wasinn_backend *backend, const wasinn_load_request *request,
                 std::unique_ptr<wasinn_graph> &out);

// A compiled model of the graph for one context: the spare one if still there, else a new one.
Error take_compiled_model(wasinn_graph &graph, CompiledModelPtr &out);

// Resolves an id (index, or name when id->name != NULL) to an index into inputs or outputs.
Error resolve_id(const wasinn_graph &graph, bool is_output, const wasinn_tensor_id *id,
                 size_t &index);

// `input 0 ("input")`, the prefix of every per-tensor detail.
std::string io_label(const wasinn_graph &graph, bool is_output, size_t index);

}  // namespace wasinn_tfl
