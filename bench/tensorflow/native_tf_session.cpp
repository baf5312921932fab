// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "native_tf_session.h"

#include <tensorflow/c/c_api.h>

#include <cstring>
#include <fstream>
#include <iterator>

namespace wasinn::bench {

struct NativeTfSession::State {
  TF_Status* status = TF_NewStatus();
  TF_Graph* graph = TF_NewGraph();
  TF_Session* session = nullptr;
  TF_Output in{}, out{};
  TF_Tensor* input = nullptr;
  TF_Tensor* output = nullptr;
  ~State() {
    if (input) TF_DeleteTensor(input);
    if (output) TF_DeleteTensor(output);
    if (session) {
      TF_CloseSession(session, status);
      TF_DeleteSession(session, status);
    }
    TF_DeleteGraph(graph);
    TF_DeleteStatus(status);
  }
};

namespace {

// ConfigProto with intra_op_parallelism_threads (field 2) and inter_op_parallelism_threads (5),
// the same bytes the plugin builds from its backend config.
std::string thread_config(int intra, int inter) {
  std::string c;
  for (auto [field, value] : {std::pair{2, intra}, std::pair{5, inter}}) {
    if (value <= 0) continue;
    c.push_back(static_cast<char>(field << 3));
    for (unsigned v = static_cast<unsigned>(value);; v >>= 7) {
      if (v < 0x80) {
        c.push_back(static_cast<char>(v));
        break;
      }
      c.push_back(static_cast<char>((v & 0x7f) | 0x80));
    }
  }
  return c;
}

bool port(TF_Graph* g, const std::string& name, TF_Output& out) {
  const auto colon = name.rfind(':');
  out.oper = TF_GraphOperationByName(g, name.substr(0, colon).c_str());
  out.index = colon == std::string::npos ? 0 : std::stoi(name.substr(colon + 1));
  return out.oper != nullptr;
}

}  // namespace

NativeTfSession::NativeTfSession() : s_(std::make_unique<State>()) {}
NativeTfSession::~NativeTfSession() = default;

std::unique_ptr<NativeTfSession> NativeTfSession::open(const std::string& path, bool saved_model,
                                                       const std::string& input, const std::string& output, int intra,
                                                       int inter, std::string* error) {
  std::unique_ptr<NativeTfSession> m(new NativeTfSession());
  State& s = *m->s_;
  TF_SessionOptions* opts = TF_NewSessionOptions();
  const std::string config = thread_config(intra, inter);
  TF_SetConfig(opts, config.data(), config.size(), s.status);
  if (TF_GetCode(s.status) == TF_OK && saved_model) {
    const char* tags[] = {"serve"};
    s.session = TF_LoadSessionFromSavedModel(opts, nullptr, path.c_str(), tags, 1, s.graph, nullptr, s.status);
  } else if (TF_GetCode(s.status) == TF_OK) {
    std::ifstream f(path, std::ios::binary);
    const std::string bytes{std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
    TF_Buffer* buf = TF_NewBufferFromString(bytes.data(), bytes.size());
    TF_ImportGraphDefOptions* io = TF_NewImportGraphDefOptions();
    TF_GraphImportGraphDef(s.graph, buf, io, s.status);
    TF_DeleteImportGraphDefOptions(io);
    TF_DeleteBuffer(buf);
    if (TF_GetCode(s.status) == TF_OK) s.session = TF_NewSession(s.graph, opts, s.status);
  }
  TF_DeleteSessionOptions(opts);
  if (TF_GetCode(s.status) != TF_OK) {
    *error = "native TensorFlow cannot load " + path + ": " + TF_Message(s.status);
    return nullptr;
  }
  if (!port(s.graph, input, s.in) || !port(s.graph, output, s.out)) {
    *error = "native TensorFlow: no tensor " + input + " or " + output;
    return nullptr;
  }
  return m;
}

bool NativeTfSession::set_input(std::span<const uint8_t> data, const std::vector<int64_t>& dims, std::string* error) {
  s_->input = TF_AllocateTensor(TF_FLOAT, dims.data(), static_cast<int>(dims.size()), data.size());
  if (!s_->input) {
    *error = "native TensorFlow cannot allocate the input";
    return false;
  }
  std::memcpy(TF_TensorData(s_->input), data.data(), data.size());
  return true;
}

bool NativeTfSession::run(std::string* error) {
  State& s = *s_;
  if (s.output) TF_DeleteTensor(s.output);
  s.output = nullptr;
  TF_SessionRun(s.session, nullptr, &s.in, &s.input, 1, &s.out, &s.output, 1, nullptr, 0, nullptr, s.status);
  if (TF_GetCode(s.status) != TF_OK) {
    *error = std::string("native TensorFlow run failed: ") + TF_Message(s.status);
    return false;
  }
  return true;
}

std::span<const uint8_t> NativeTfSession::output_bytes() const {
  if (!s_->output) return {};
  return {static_cast<const uint8_t*>(TF_TensorData(s_->output)), TF_TensorByteSize(s_->output)};
}

}  // namespace wasinn::bench
