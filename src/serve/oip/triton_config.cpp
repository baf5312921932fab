// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "serve/oip/triton_config.h"

#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "inference.pb.h"

namespace wasinn::oip_server {
namespace {

namespace fs = std::filesystem;

// The parser's words: its errors, and the fields this ModelConfig lacks (warnings, as
// AllowUnknownField makes them), named by their path in Triton's configuration.
class Collector : public google::protobuf::io::ErrorCollector {
 public:
  std::string first_error;
  std::vector<std::string> unknown;

  void AddError(int line, google::protobuf::io::ColumnNumber column, const std::string& message) override {
    if (first_error.empty()) first_error = fmt::format("line {}, column {}: {}", line + 1, column + 1, message);
  }
  void AddWarning(int line, google::protobuf::io::ColumnNumber, const std::string& message) override {
    static const std::regex kUnknown(R"re(Message type "inference\.(\w+)" has no field named "(\w+)")re");
    static const std::map<std::string, std::string> kPrefix = {{"ModelConfig", ""},
                                                               {"ModelInput", "input."},
                                                               {"ModelOutput", "output."},
                                                               {"ModelDynamicBatching", "dynamic_batching."},
                                                               {"ModelInstanceGroup", "instance_group."}};
    std::smatch m;
    if (!std::regex_search(message, m, kUnknown)) return;
    const auto prefix = kPrefix.find(m[1].str());
    unknown.push_back(fmt::format("{}{} (line {})", prefix == kPrefix.end() ? m[1].str() + "." : prefix->second,
                                  m[2].str(), line + 1));
  }
};

// Triton's platform or backend as the encoding of the wasinn backend for the same framework.
std::optional<Encoding> encoding_of_triton(const std::string& name) {
  static const std::map<std::string, Encoding> kKnown = {
      {"onnxruntime_onnx", Encoding::onnx}, {"onnxruntime", Encoding::onnx},
      {"openvino", Encoding::openvino},     {"pytorch_libtorch", Encoding::pytorch},
      {"pytorch", Encoding::pytorch},       {"tensorflow_savedmodel", Encoding::tensorflow},
      {"tensorflow", Encoding::tensorflow}, {"tensorflow_graphdef", Encoding::tensorflow},
      {"tflite", Encoding::tensorflowlite}, {"armnn_tflite", Encoding::tensorflowlite}};
  const auto it = kKnown.find(name);
  if (it == kKnown.end()) return std::nullopt;
  return it->second;
}

template <class Tensor>
ConfigTensor config_tensor(const Tensor& t) {
  ConfigTensor c;
  c.name = t.name();
  c.data_type = inference::DataType_Name(t.data_type());
  c.dims.assign(t.dims().begin(), t.dims().end());
  return c;
}

std::string dims_text(const std::vector<int64_t>& dims) { return fmt::format("[{}]", fmt::join(dims, ", ")); }

}  // namespace

Result<TritonConfig> read_triton_config(const fs::path& file, const std::string& model_name) {
  auto bad = [&](const std::string& what) {
    return make_error(Errc::invalid_argument, fmt::format("--model-repository: {}: {}", file.string(), what));
  };
  std::ifstream in(file, std::ios::binary);
  if (!in) return bad("cannot be read");
  std::stringstream text;
  text << in.rdbuf();
  inference::ModelConfig mc;
  Collector collector;
  google::protobuf::TextFormat::Parser parser;
  parser.AllowUnknownField(true);  // Triton's fields this subset lacks: skipped, each a warning
  parser.RecordErrorsTo(&collector);
  if (!parser.ParseFromString(text.str(), &mc))
    return bad(fmt::format("not Triton's model configuration (protobuf text format): {}", collector.first_error));

  TritonConfig c;
  c.io.file = file;
  c.ignored_fields = collector.unknown;
  if (!model_name.empty() && !mc.name().empty() && mc.name() != model_name)
    return bad(fmt::format("name \"{}\" is not the model's directory name '{}' (Triton requires the two to match)",
                           mc.name(), model_name));
  for (const std::string* framework : {&mc.platform(), &mc.backend()}) {
    if (framework->empty()) continue;
    const auto e = encoding_of_triton(*framework);
    if (!e) {
      c.ignored_fields.push_back(fmt::format("{} \"{}\" (no such wasinn backend; the model's files choose one)",
                                             framework == &mc.platform() ? "platform" : "backend", *framework));
    } else if (c.encoding && *c.encoding != *e) {
      return bad(
          fmt::format("platform \"{}\" and backend \"{}\" name different frameworks", mc.platform(), mc.backend()));
    } else {
      c.encoding = e;
    }
  }
  if (mc.max_batch_size() < 0 || static_cast<uint64_t>(mc.max_batch_size()) > kMaxBatchSize)
    return bad(fmt::format("max_batch_size {} is not from 0 to {}", mc.max_batch_size(), kMaxBatchSize));
  c.io.max_batch_size = static_cast<uint32_t>(mc.max_batch_size());
  if (mc.has_dynamic_batching()) {
    if (mc.max_batch_size() == 0)
      return bad("dynamic_batching needs a max_batch_size of 1 or more (Triton's rule too)");
    if (mc.dynamic_batching().max_queue_delay_microseconds() > kMaxQueueDelayUs)
      return bad(fmt::format("dynamic_batching.max_queue_delay_microseconds {} is more than {} (10 s)",
                             mc.dynamic_batching().max_queue_delay_microseconds(), kMaxQueueDelayUs));
    c.batching.max_batch_size = c.io.max_batch_size;
    c.batching.max_queue_delay_us = mc.dynamic_batching().max_queue_delay_microseconds();
    if (mc.dynamic_batching().preferred_batch_size_size() > 0)
      c.ignored_fields.push_back("dynamic_batching.preferred_batch_size");
  }
  for (const auto& t : mc.input()) {
    c.io.inputs.push_back(config_tensor(t));
    if (t.optional()) c.ignored_fields.push_back(fmt::format("input.optional (of '{}')", t.name()));
  }
  for (const auto& t : mc.output()) c.io.outputs.push_back(config_tensor(t));
  if (mc.instance_group_size() > 0) c.ignored_fields.push_back("instance_group (wasinn's --workers sets the computes)");
  return c;
}

Status check_triton_io(const TritonIo& io, const ModelConfigInfo& served, bool batched) {
  auto check = [&](const char* kind, const std::vector<ConfigTensor>& declared,
                   const std::vector<ConfigTensor>& has) -> Status {
    if (has.empty()) return {};  // a model that does not describe them (its metadata has none)
    for (const ConfigTensor& d : declared) {
      auto it = std::find_if(has.begin(), has.end(), [&](const ConfigTensor& t) { return t.name == d.name; });
      auto bad = [&](const std::string& what) {
        return make_error(Errc::invalid_argument, fmt::format("{}: {} '{}' {}", io.file.string(), kind, d.name, what));
      };
      if (it == has.end()) {
        std::vector<std::string> names;
        for (const auto& t : has) names.push_back(t.name);
        return bad(fmt::format("is not one of the model's ({})", fmt::join(names, ", ")));
      }
      std::vector<int64_t> dims = it->dims;
      // Triton's dims leave the batch dimension out when max_batch_size is above 0.
      if (io.max_batch_size > 0 && !batched && !dims.empty()) dims.erase(dims.begin());
      if (d.data_type != it->data_type)
        return bad(fmt::format("has data_type {}, the model's is {}", d.data_type, it->data_type));
      if (it->dims.empty()) continue;  // a rank the model does not declare
      bool same = d.dims.size() == dims.size();
      for (size_t i = 0; same && i < dims.size(); ++i) same = d.dims[i] == dims[i] || d.dims[i] == -1 || dims[i] == -1;
      if (!same)
        return bad(fmt::format("has dims {}, the model's are {}{}", dims_text(d.dims), dims_text(dims),
                               io.max_batch_size > 0 ? " (without the batch dimension, as max_batch_size > 0)" : ""));
    }
    return {};
  };
  if (Status s = check("input", io.inputs, served.inputs); !s) return s;
  return check("output", io.outputs, served.outputs);
}

}  // namespace wasinn::oip_server
