#include "tf_graph.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <span>

#include <nlohmann/json.hpp>

#include "tf_backend.h"
#include "tf_signature.h"
#include "tf_types.h"

namespace wasinn_tf {

std::string IoDesc::describe() const {
  std::string s = type == WASINN_TYPE_UNKNOWN ? tf_type_name(dtype) : type_name(type);
  return s + (rank < 0 ? " (unknown rank)" : " " + format_dims(dims));
}

namespace {

struct ModelConfig {
  std::string signature = "serving_default";
  std::vector<std::string> tags = {"serve"};
  std::vector<std::string> inputs, outputs;  // GraphDef ends, "op" or "op:index"
};

Error string_list(const nlohmann::json &v, const std::string &key, std::vector<std::string> &out) {
  if (!v.is_array()) return invalid("model setting \"" + key + "\" must be a list of strings");
  out.clear();
  for (const auto &s : v) {
    if (!s.is_string()) return invalid("model setting \"" + key + "\" must be a list of strings");
    out.push_back(s.get<std::string>());
  }
  return {};
}

Error read_config(const wasinn_load_request &r, ModelConfig &c) {
  if (!r.config || !r.config_length) return {};
  const auto j = nlohmann::json::parse(r.config, r.config + r.config_length, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return invalid("model config is not a JSON object");
  for (const auto &[key, value] : j.items()) {
    if (key == "signature") {
      if (!value.is_string()) return invalid("model setting \"signature\" must be a string");
      c.signature = value.get<std::string>();
    } else if (key == "tags" || key == "inputs" || key == "outputs") {
      auto &list = key == "tags" ? c.tags : key == "inputs" ? c.inputs : c.outputs;
      if (Error e = string_list(value, key, list)) return e;
    } else {
      return invalid("unknown tensorflow model setting \"" + key +
                     "\" (known: signature, tags, inputs, outputs)");
    }
  }
  return {};
}

// "op:2" -> a port of the graph; NOT_FOUND when the operation or output does not exist.
Error find_port(TF_Graph *g, const std::string &tensor, TF_Output &out) {
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
  TF_Operation *oper = TF_GraphOperationByName(g, op.c_str());
  if (!oper) return {WASINN_NOT_FOUND, "the graph has no operation \"" + op + "\""};
  if (index >= TF_OperationNumOutputs(oper))
    return {WASINN_NOT_FOUND, "operation \"" + op + "\" has no output " + std::to_string(index)};
  out = {oper, index};
  return {};
}

// Type and shape of a graph tensor, as the graph declares them (GraphDef ends).
void describe_port(TF_Graph *g, const std::string &name, TF_Output port, IoDesc &d) {
  d.name = name;
  d.port = port;
  d.dtype = TF_OperationOutputType(port);
  d.type = to_wasinn_type(d.dtype);
  StatusPtr st = new_status();
  const int rank = TF_GraphGetTensorNumDims(g, port, st.get());
  if (TF_GetCode(st.get()) != TF_OK || rank < 0) return;
  d.dims.resize(static_cast<size_t>(rank));
  TF_GraphGetTensorShape(g, port, d.dims.data(), rank, st.get());
  if (TF_GetCode(st.get()) != TF_OK) {
    d.dims.clear();
    return;
  }
  d.rank = rank;
}

void sort_by_name(std::vector<IoDesc> &v) {
  std::sort(v.begin(), v.end(), [](const IoDesc &a, const IoDesc &b) { return a.name < b.name; });
}

Error new_session_options(const wasinn_backend &b, SessionOptionsPtr &out) {
  out.reset(TF_NewSessionOptions());
  if (b.session_config.empty()) return {};
  StatusPtr st = new_status();
  TF_SetConfig(out.get(), b.session_config.data(), b.session_config.size(), st.get());
  return take_status(st.get(), "applying the session settings");
}

Error load_saved_model(const wasinn_backend &b, const std::string &dir, const ModelConfig &c,
                       wasinn_graph &g) {
  SessionOptionsPtr options;
  if (Error e = new_session_options(b, options)) return e;
  std::vector<const char *> tags;
  for (const auto &t : c.tags) tags.push_back(t.c_str());
  BufferPtr meta(TF_NewBuffer());
  StatusPtr st = new_status();
  g.graph.reset(TF_NewGraph());
  g.session.reset(TF_LoadSessionFromSavedModel(options.get(), nullptr, dir.c_str(), tags.data(),
                                               static_cast<int>(tags.size()), g.graph.get(),
                                               meta.get(), st.get()));
  if (Error e = take_status(st.get(), "loading the SavedModel " + dir)) {
    if (e.status == WASINN_RUNTIME_ERROR) e.status = WASINN_INVALID_ARGUMENT;  // a bad model
    return e;
  }
  Signature sig;
  if (Error e = read_signature({static_cast<const uint8_t *>(meta->data), meta->length},
                               c.signature, sig))
    return e;
  for (int side = 0; side < 2; ++side) {
    for (const TensorSpec &t : side ? sig.outputs : sig.inputs) {
      IoDesc d;
      d.name = t.key;
      if (!t.dense)
        return {WASINN_UNSUPPORTED_OPERATION,
                "signature tensor \"" + t.key + "\" is sparse or composite: wasinn carries dense tensors"};
      if (Error e = find_port(g.graph.get(), t.tensor, d.port)) return e;
      d.dtype = static_cast<TF_DataType>(t.dtype);
      d.type = to_wasinn_type(d.dtype);
      d.rank = t.rank;
      d.dims = t.dims;
      (side ? g.outputs : g.inputs).push_back(std::move(d));
    }
  }
  return {};
}

// A GraphDef names no inputs or outputs: unless configured, the inputs are its Placeholders
// and the outputs the ends nothing consumes (constants aside).
Error find_graph_def_ends(wasinn_graph &g, const ModelConfig &c) {
  TF_Graph *graph = g.graph.get();
  for (int side = 0; side < 2; ++side) {
    const auto &named = side ? c.outputs : c.inputs;
    auto &out = side ? g.outputs : g.inputs;
    for (const auto &name : named) {
      TF_Output port{};
      if (Error e = find_port(graph, name, port)) return e;
      IoDesc d;
      describe_port(graph, name, port, d);
      out.push_back(std::move(d));
    }
  }
  size_t pos = 0;
  while (TF_Operation *op = TF_GraphNextOperation(graph, &pos)) {
    const std::string type = TF_OperationOpType(op);
    const int n = TF_OperationNumOutputs(op);
    for (int i = 0; i < n; ++i) {
      const TF_Output port{op, i};
      const std::string name = i ? std::string(TF_OperationName(op)) + ":" + std::to_string(i)
                                 : std::string(TF_OperationName(op));
      IoDesc d;
      if (c.inputs.empty() && type == "Placeholder") {
        describe_port(graph, name, port, d);
        g.inputs.push_back(std::move(d));
      } else if (c.outputs.empty() && type != "Placeholder" && type != "Const" &&
                 TF_OperationOutputNumConsumers(port) == 0) {
        describe_port(graph, name, port, d);
        g.outputs.push_back(std::move(d));
      }
    }
  }
  if (g.outputs.empty()) return invalid("the GraphDef has no unconsumed output to fetch");
  return {};
}

Error load_graph_def(const wasinn_backend &b, const wasinn_bytes &bytes, const ModelConfig &c,
                     wasinn_graph &g) {
  // A SavedModel proto begins with field 1 (saved_model_schema_version, a varint); a GraphDef
  // never does.
  if (bytes.length && bytes.data[0] == 0x08)
    return invalid("this is a SavedModel's saved_model.pb, which needs its directory (variables/): "
                   "register it with --nn-preload NAME:tensorflow:cpu:DIR/saved_model.pb");
  g.graph.reset(TF_NewGraph());
  BufferPtr buffer(TF_NewBufferFromString(bytes.data, bytes.length));
  ImportOptionsPtr options(TF_NewImportGraphDefOptions());
  StatusPtr st = new_status();
  TF_GraphImportGraphDef(g.graph.get(), buffer.get(), options.get(), st.get());
  if (Error e = take_status(st.get(), "importing the GraphDef")) {
    e.status = WASINN_INVALID_ARGUMENT;  // whatever TF says, the bytes were not a usable graph
    return e;
  }
  if (Error e = find_graph_def_ends(g, c)) return e;
  SessionOptionsPtr options_s;
  if (Error e = new_session_options(b, options_s)) return e;
  g.session.reset(TF_NewSession(g.graph.get(), options_s.get(), st.get()));
  return take_status(st.get(), "creating a session");
}

// The SavedModel directory a preload path names (the directory, or its saved_model.pb), or "".
std::string saved_model_dir(const char *path) {
  if (!path || !*path) return {};
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path p(path);
  if (fs::is_directory(p, ec)) return p.string();
  const auto file = p.filename().string();
  if (file == "saved_model.pb" || file == "saved_model.pbtxt") return p.parent_path().string();
  return {};
}

}  // namespace

Error load_graph(wasinn_backend *backend, const wasinn_load_request *request,
                 std::unique_ptr<wasinn_graph> &out) {
  if (!backend || !request) return invalid("graph_load: NULL argument");
  const wasinn_load_request &r = *request;
  if (r.struct_size < offsetof(wasinn_load_request, config_length) + sizeof(r.config_length))
    return invalid("graph_load: load request from an older host ABI");
  if (r.builder_count != 1 || !r.builders)
    return invalid("a TensorFlow model is one graph builder (a frozen GraphDef, or a preloaded "
                   "SavedModel), got " + std::to_string(r.builder_count));
  if (r.target == WASINN_TARGET_GPU || r.target == WASINN_TARGET_TPU)
    return {WASINN_UNSUPPORTED_OPERATION,
            std::string("target ") + (r.target == WASINN_TARGET_GPU ? "gpu" : "tpu") +
                ": this TensorFlow is the CPU-only build (PyPI tensorflow-cpu); use target cpu"};
  ModelConfig config;
  if (Error e = read_config(r, config)) return e;

  auto g = std::make_unique<wasinn_graph>();
  const std::string dir = saved_model_dir(r.paths ? r.paths[0] : nullptr);
  if (Error e = dir.empty() ? load_graph_def(*backend, r.builders[0], config, *g)
                            : load_saved_model(*backend, dir, config, *g))
    return e;
  sort_by_name(g->inputs);
  sort_by_name(g->outputs);
  for (const auto &d : g->inputs) g->input_ports.push_back(d.port);
  for (const auto &d : g->outputs) g->output_ports.push_back(d.port);
  out = std::move(g);
  return {};
}

Error resolve_id(const wasinn_graph &graph, bool is_output, const wasinn_tensor_id *id,
                 size_t &index) {
  const auto &io = graph.io(is_output);
  const std::string side = is_output ? "output" : "input";
  if (!id) return invalid(side + ": no tensor id given");
  if (!id->name) {
    if (id->index < io.size()) {
      index = id->index;
      return {};
    }
    std::string names;
    for (size_t i = 0; i < io.size(); ++i)
      names += (i ? ", " : "") + std::to_string(i) + " \"" + io[i].name + "\"";
    return invalid(side + " index " + std::to_string(id->index) + " is out of range (" + side +
                   "s by sorted name: " + names + ")");
  }
  const std::string_view wanted(id->name, id->name_length);
  for (size_t i = 0; i < io.size(); ++i) {
    if (io[i].name == wanted) {
      index = i;
      return {};
    }
  }
  return {WASINN_NOT_FOUND, "no " + side + " named \"" + std::string(wanted) + "\""};
}

std::string io_label(const wasinn_graph &graph, bool is_output, size_t index) {
  return std::string(is_output ? "output " : "input ") + std::to_string(index) + " (\"" +
         graph.io(is_output)[index].name + "\")";
}

}  // namespace wasinn_tf
