// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Loading: SavedModels (through their signature) and frozen GraphDefs (through their ends), and
// the io description cache in sorted-name order.
#include "graph.h"

#include <algorithm>
#include <filesystem>
#include <string>

#include "backend.h"
#include "config.h"
#include "context.h"
#include "signature.h"
#include "types.h"

namespace wasinn::tensorflow {
namespace {

// One declared input or output: the SDK's description plus the graph tensor behind it.
struct TfIo {
  sdk::IoDesc desc;
  TF_Output port{};
  TF_DataType dtype = static_cast<TF_DataType>(0);
};

// What load builds before the graph object exists.
struct Model {
  GraphPtr graph;
  SessionPtr session;  // after graph: destroyed first
  std::vector<TfIo> inputs, outputs;
};

void set_type(TfIo& io, TF_DataType dtype) {
  io.dtype = dtype;
  io.desc.type = to_wasinn_type(dtype);
  if (io.desc.type == WASINN_TYPE_UNKNOWN) io.desc.not_a_tensor = "a TensorFlow " + tf_type_name(dtype) + " tensor";
}

// "op:2" -> a port of the graph; NOT_FOUND when the operation or output does not exist.
Error find_port(TF_Graph* g, const std::string& tensor, TF_Output& out) {
  std::string op = tensor;
  int index = 0;
  if (const auto colon = tensor.rfind(':'); colon != std::string::npos) {
    const std::string digits = tensor.substr(colon + 1);
    if (!digits.empty() && digits.size() < 6 &&
        std::all_of(digits.begin(), digits.end(), [](char ch) { return ch >= '0' && ch <= '9'; })) {
      op = tensor.substr(0, colon);
      index = std::stoi(digits);
    }
  }
  TF_Operation* oper = tf().TF_GraphOperationByName(g, op.c_str());
  if (!oper) return {WASINN_NOT_FOUND, "the graph has no operation \"" + op + "\""};
  if (index >= tf().TF_OperationNumOutputs(oper))
    return {WASINN_NOT_FOUND, "operation \"" + op + "\" has no output " + std::to_string(index)};
  out = {oper, index};
  return {};
}

// Type and shape of a graph tensor, as the graph declares them (GraphDef ends).
TfIo describe_port(TF_Graph* g, const std::string& name, TF_Output port) {
  TfIo io;
  io.desc.name = name;
  io.port = port;
  set_type(io, tf().TF_OperationOutputType(port));
  StatusPtr st = new_status();
  const int rank = tf().TF_GraphGetTensorNumDims(g, port, st.get());
  if (tf().TF_GetCode(st.get()) != TF_OK || rank < 0) return io;  // rank stays -1: any shape
  std::vector<int64_t> dims(static_cast<size_t>(rank));
  tf().TF_GraphGetTensorShape(g, port, dims.data(), rank, st.get());
  if (tf().TF_GetCode(st.get()) != TF_OK) return io;
  for (int64_t& d : dims)
    if (d < 0) d = -1;
  io.desc.dims = std::move(dims);
  io.desc.rank = rank;
  return io;
}

Error new_session_options(const TfBackend& b, SessionOptionsPtr& out) {
  out.reset(tf().TF_NewSessionOptions());
  if (b.session_config().empty()) return {};
  StatusPtr st = new_status();
  tf().TF_SetConfig(out.get(), b.session_config().data(), b.session_config().size(), st.get());
  return take_status(st.get(), "applying the session settings");
}

Error load_saved_model(const TfBackend& b, const std::string& dir, const GraphConfig& c, Model& m) {
  SessionOptionsPtr options;
  if (Error e = new_session_options(b, options)) return e;
  std::vector<const char*> tags;
  for (const auto& t : c.tags) tags.push_back(t.c_str());
  BufferPtr meta(tf().TF_NewBuffer());
  StatusPtr st = new_status();
  m.graph.reset(tf().TF_NewGraph());
  m.session.reset(tf().TF_LoadSessionFromSavedModel(options.get(), nullptr, dir.c_str(), tags.data(),
                                                    static_cast<int>(tags.size()), m.graph.get(), meta.get(),
                                                    st.get()));
  if (Error e = take_status(st.get(), "loading the SavedModel " + dir)) {
    if (e.status == WASINN_RUNTIME_ERROR) e.status = WASINN_INVALID_ARGUMENT;  // a bad model
    return e;
  }
  Signature sig;
  if (Error e = read_signature({static_cast<const uint8_t*>(meta->data), meta->length}, c.signature, sig)) return e;
  for (int side = 0; side < 2; ++side) {
    for (const TensorSpec& t : side ? sig.outputs : sig.inputs) {
      if (!t.dense)
        return sdk::unsupported("signature tensor \"" + t.key +
                                "\" is sparse or composite: wasinn carries dense tensors");
      TfIo io;
      io.desc.name = t.key;
      if (Error e = find_port(m.graph.get(), t.tensor, io.port)) return e;
      set_type(io, static_cast<TF_DataType>(t.dtype));
      io.desc.rank = t.rank;
      io.desc.dims = t.dims;
      (side ? m.outputs : m.inputs).push_back(std::move(io));
    }
  }
  return {};
}

// A GraphDef names no inputs or outputs: unless configured, the inputs are its Placeholders
// and the outputs the ends nothing consumes (constants aside).
Error find_graph_def_ends(const GraphConfig& c, Model& m) {
  TF_Graph* graph = m.graph.get();
  for (int side = 0; side < 2; ++side) {
    for (const auto& name : side ? c.outputs : c.inputs) {
      TF_Output port{};
      if (Error e = find_port(graph, name, port)) return e;
      (side ? m.outputs : m.inputs).push_back(describe_port(graph, name, port));
    }
  }
  size_t pos = 0;
  while (TF_Operation* op = tf().TF_GraphNextOperation(graph, &pos)) {
    const std::string type = tf().TF_OperationOpType(op);
    const int n = tf().TF_OperationNumOutputs(op);
    for (int i = 0; i < n; ++i) {
      const TF_Output port{op, i};
      const std::string name =
          i ? std::string(tf().TF_OperationName(op)) + ":" + std::to_string(i) : std::string(tf().TF_OperationName(op));
      if (c.inputs.empty() && type == "Placeholder")
        m.inputs.push_back(describe_port(graph, name, port));
      else if (c.outputs.empty() && type != "Placeholder" && type != "Const" &&
               tf().TF_OperationOutputNumConsumers(port) == 0)
        m.outputs.push_back(describe_port(graph, name, port));
    }
  }
  if (m.outputs.empty()) return sdk::invalid("the GraphDef has no unconsumed output to fetch");
  return {};
}

Error load_graph_def(const TfBackend& b, const wasinn_bytes& bytes, const GraphConfig& c, Model& m) {
  // A SavedModel proto begins with field 1 (saved_model_schema_version, a varint); a GraphDef
  // never does.
  if (bytes.length && bytes.data[0] == 0x08)
    return sdk::invalid(
        "this is a SavedModel's saved_model.pb, which needs its directory (variables/): "
        "register it with --nn-preload NAME:tensorflow:cpu:DIR/saved_model.pb");
  m.graph.reset(tf().TF_NewGraph());
  BufferPtr buffer(tf().TF_NewBufferFromString(bytes.data, bytes.length));
  ImportOptionsPtr options(tf().TF_NewImportGraphDefOptions());
  StatusPtr st = new_status();
  tf().TF_GraphImportGraphDef(m.graph.get(), buffer.get(), options.get(), st.get());
  if (Error e = take_status(st.get(), "importing the GraphDef")) {
    e.status = WASINN_INVALID_ARGUMENT;  // whatever TF says, the bytes were not a usable graph
    return e;
  }
  if (Error e = find_graph_def_ends(c, m)) return e;
  SessionOptionsPtr session_options;
  if (Error e = new_session_options(b, session_options)) return e;
  m.session.reset(tf().TF_NewSession(m.graph.get(), session_options.get(), st.get()));
  return take_status(st.get(), "creating a session");
}

// The SavedModel directory a preload path names (the directory, or its saved_model.pb), or "".
std::string saved_model_dir(const char* path) {
  if (!path || !*path) return {};
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path p(path);
  if (fs::is_directory(p, ec)) return p.string();
  const auto file = p.filename().string();
  if (file == "saved_model.pb" || file == "saved_model.pbtxt") return p.parent_path().string();
  return {};
}

void sort_by_name(std::vector<TfIo>& v) {
  std::sort(v.begin(), v.end(), [](const TfIo& a, const TfIo& b) { return a.desc.name < b.desc.name; });
}

}  // namespace

Error TfGraph::load(TfBackend& backend, const sdk::LoadRequest& req, std::unique_ptr<TfGraph>& out) {
  if (Error e = req.expect_one_builder(
          "a TensorFlow model is one graph builder (a frozen GraphDef, or a preloaded SavedModel)"))
    return e;
  if (Error e = backend.check_target(req.target())) return e;
  GraphConfig config;
  if (Error e = parse_graph_config(req.config(), config)) return e;

  Model m;
  const std::string dir = saved_model_dir(req.path(0));
  if (Error e = dir.empty() ? load_graph_def(backend, req.builders()[0], config, m)
                            : load_saved_model(backend, dir, config, m))
    return e;
  sort_by_name(m.inputs);
  sort_by_name(m.outputs);

  auto g = std::make_unique<TfGraph>();
  g->graph_ = std::move(m.graph);
  g->session_ = std::move(m.session);
  for (TfIo& io : m.inputs) {
    g->input_ports_.push_back(io.port);
    g->input_dtypes_.push_back(io.dtype);
    g->inputs_.push_back(std::move(io.desc));
  }
  for (TfIo& io : m.outputs) {
    g->output_ports_.push_back(io.port);
    g->outputs_.push_back(std::move(io.desc));
  }
  out = std::move(g);
  return {};
}

Error TfGraph::resolve(sdk::Side side, const wasinn_tensor_id& id, size_t& index) const {
  const auto declared = io(side);
  Error e = sdk::resolve_id(declared, side, id, index);
  if (e && !id.name && !declared.empty()) {
    // TensorFlow has no index order of its own: show which name each index stands for.
    std::string names;
    for (size_t i = 0; i < declared.size(); ++i)
      names += (i ? ", " : "") + std::to_string(i) + " \"" + declared[i].name + "\"";
    e.detail += std::string(" (") + sdk::noun(side) + "s by sorted name: " + names + ")";
  }
  return e;
}

}  // namespace wasinn::tensorflow
