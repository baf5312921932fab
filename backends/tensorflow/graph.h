// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A loaded TensorFlow model: a graph, the session that runs it, and its inputs and outputs.
//
// TensorFlow addresses tensors by name. wasinn's index i is the i-th name in sorted (byte)
// order, for inputs and outputs alike: for a SavedModel the signature's keys ("offset" < "x"),
// for a frozen GraphDef the operation names. graph_io_info reports the names in that order.
// TF_SessionRun may be called from several threads at once on one session, so contexts share it;
// nothing here changes after load.
#pragma once

#include <tensorflow/c/c_api.h>

#include <memory>
#include <span>
#include <vector>

#include "handles.h"
#include "wasinn/plugin_sdk.hpp"

namespace wasinn::tensorflow {

class TfBackend;
class TfContext;

class TfGraph : public sdk::DeclaredIo {
 public:
  // One builder: a frozen GraphDef, or (preloaded) a SavedModel given by its directory or by the
  // path of its saved_model.pb. Config: see GraphConfig (config.h).
  static Error load(TfBackend& backend, const sdk::LoadRequest& request, std::unique_ptr<TfGraph>& out);

  Error create_context(std::unique_ptr<TfContext>& out);

  // Resolves an id like sdk::resolve_id; an index out of range also lists the sorted mapping.
  Error resolve(sdk::Side side, const wasinn_tensor_id& id, size_t& index) const;

  TF_Session* session() const { return session_.get(); }
  // The graph tensors behind the inputs and outputs, in index order, as TF_SessionRun wants them.
  const std::vector<TF_Output>& input_ports() const { return input_ports_; }
  const std::vector<TF_Output>& output_ports() const { return output_ports_; }
  TF_DataType input_dtype(size_t index) const { return input_dtypes_[index]; }

 private:
  GraphPtr graph_;
  SessionPtr session_;  // declared after graph_: closed and deleted before it
  // inputs_ and outputs_ (sdk::DeclaredIo): sorted by name
  std::vector<TF_Output> input_ports_, output_ports_;
  std::vector<TF_DataType> input_dtypes_;
};

}  // namespace wasinn::tensorflow
