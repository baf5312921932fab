// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "native_tensorflow.h"

#include <tensorflow/c/c_api.h>

#include <cstring>

namespace wasinn_test {

struct NativeTensorFlow::State {
  TF_Status* status = TF_NewStatus();
  TF_Graph* graph = TF_NewGraph();
  TF_Session* session = nullptr;
  ~State() {
    if (session) {
      TF_CloseSession(session, status);
      TF_DeleteSession(session, status);
    }
    TF_DeleteGraph(graph);
    TF_DeleteStatus(status);
  }
};

NativeTensorFlow::NativeTensorFlow() : s_(std::make_unique<State>()) {}
NativeTensorFlow::~NativeTensorFlow() = default;

std::unique_ptr<NativeTensorFlow> NativeTensorFlow::saved_model(const std::string& dir) {
  std::unique_ptr<NativeTensorFlow> tf(new NativeTensorFlow());
  TF_SessionOptions* opts = TF_NewSessionOptions();
  const char* tags[] = {"serve"};
  tf->s_->session =
      TF_LoadSessionFromSavedModel(opts, nullptr, dir.c_str(), tags, 1, tf->s_->graph, nullptr, tf->s_->status);
  TF_DeleteSessionOptions(opts);
  if (TF_GetCode(tf->s_->status) != TF_OK) tf->error_ = TF_Message(tf->s_->status);
  return tf;
}

std::unique_ptr<NativeTensorFlow> NativeTensorFlow::graph_def(const std::vector<uint8_t>& bytes) {
  std::unique_ptr<NativeTensorFlow> tf(new NativeTensorFlow());
  TF_Buffer* buf = TF_NewBufferFromString(bytes.data(), bytes.size());
  TF_ImportGraphDefOptions* io = TF_NewImportGraphDefOptions();
  TF_GraphImportGraphDef(tf->s_->graph, buf, io, tf->s_->status);
  TF_DeleteImportGraphDefOptions(io);
  TF_DeleteBuffer(buf);
  if (TF_GetCode(tf->s_->status) == TF_OK) {
    TF_SessionOptions* opts = TF_NewSessionOptions();
    tf->s_->session = TF_NewSession(tf->s_->graph, opts, tf->s_->status);
    TF_DeleteSessionOptions(opts);
  }
  if (TF_GetCode(tf->s_->status) != TF_OK) tf->error_ = TF_Message(tf->s_->status);
  return tf;
}

namespace {
bool port(TF_Graph* g, const std::string& name, TF_Output& out) {
  const auto colon = name.rfind(':');
  const std::string op = colon == std::string::npos ? name : name.substr(0, colon);
  out.oper = TF_GraphOperationByName(g, op.c_str());
  out.index = colon == std::string::npos ? 0 : std::stoi(name.substr(colon + 1));
  return out.oper != nullptr;
}
}  // namespace

std::vector<NativeTfTensor> NativeTensorFlow::run(const std::vector<std::pair<std::string, NativeTfTensor>>& feeds,
                                                  const std::vector<std::string>& fetches) {
  if (!error_.empty()) return {};
  std::vector<TF_Output> in(feeds.size()), out(fetches.size());
  std::vector<TF_Tensor*> in_values, out_values(fetches.size(), nullptr);
  for (size_t i = 0; i < feeds.size(); ++i) {
    const NativeTfTensor& t = feeds[i].second;
    if (!port(s_->graph, feeds[i].first, in[i])) error_ = "no tensor " + feeds[i].first;
    TF_Tensor* v = TF_AllocateTensor(static_cast<TF_DataType>(t.dtype), t.dims.data(), static_cast<int>(t.dims.size()),
                                     t.bytes.size());
    if (!t.bytes.empty()) std::memcpy(TF_TensorData(v), t.bytes.data(), t.bytes.size());
    in_values.push_back(v);
  }
  for (size_t i = 0; i < fetches.size(); ++i)
    if (!port(s_->graph, fetches[i], out[i])) error_ = "no tensor " + fetches[i];
  std::vector<NativeTfTensor> result;
  if (error_.empty()) {
    TF_SessionRun(s_->session, nullptr, in.data(), in_values.data(), static_cast<int>(in.size()), out.data(),
                  out_values.data(), static_cast<int>(out.size()), nullptr, 0, nullptr, s_->status);
    if (TF_GetCode(s_->status) != TF_OK) error_ = TF_Message(s_->status);
  }
  for (TF_Tensor* v : out_values) {
    if (!v) continue;
    if (error_.empty()) {
      NativeTfTensor t;
      t.dtype = TF_TensorType(v);
      for (int k = 0; k < TF_NumDims(v); ++k) t.dims.push_back(TF_Dim(v, k));
      const auto* p = static_cast<const uint8_t*>(TF_TensorData(v));
      t.bytes.assign(p, p + TF_TensorByteSize(v));
      result.push_back(std::move(t));
    }
    TF_DeleteTensor(v);
  }
  for (TF_Tensor* v : in_values) TF_DeleteTensor(v);
  return result;
}

}  // namespace wasinn_test
