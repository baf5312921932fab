// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// libFuzzer target: the Open Inference Protocol's decoders (src/oip/) on untrusted bytes: the
// remote backend's of responses, as a server (or anything that answers on its port) could send
// them, and the OIP server's of requests, as any client could. The first byte picks the decoder:
//   0 the REST JSON inference response (its fast and general readings compared)
//   1 the REST binary-extension response (the next two bytes: the JSON header's length, LE)
//   2 the gRPC ModelInferResponse (protobuf)
//   3 the REST model metadata, server metadata and error text
//   4 the OIP server's REST request (the next two bytes: the JSON part's length, LE)
//   5 the OIP server's gRPC ModelInferRequest (protobuf)
// Each must return an Error or outputs whose bytes fit their shape, never crash, hang or leak.
// With WASINN_FUZZ_SEEDS_OUT set, writes seed inputs there and exits (scripts/fuzz.sh).
#include <cstdint>
#include <cstdio>
#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "oip/binary_codec.h"
#include "oip/json_codec.h"
#include "oip/proto_codec.h"
#include "oip/server_json.h"
#include "oip/server_proto.h"

using namespace wasinn::remote;

namespace {

void check(const std::vector<OutputTensor>& out) {
  for (const OutputTensor& t : out) {
    const auto want = tensor_bytes(t.datatype, t.shape);
    if (!want || *want != t.data.size()) std::abort();  // a decoder let a mismatch through
  }
}

// A decoded request: every input's bytes exactly what its shape and datatype need.
void check(const wasinn::oip::InferRequest& r) {
  for (const auto& in : r.inputs) {
    const auto want = tensor_bytes(in.datatype, in.shape);
    if (!want || *want != in.data.size()) std::abort();
  }
}

void write_seed(const std::string& dir, const std::string& name, uint8_t kind, const std::string& body) {
  std::ofstream(dir + "/" + name, std::ios::binary) << static_cast<char>(kind) << body;
}

void write_seeds(const std::string& dir) {
  write_seed(dir, "json_types", 0,
             R"({"outputs":[{"name":"a","datatype":"INT8","shape":[3],"data":[-128, 0 ,127]},)"
             R"({"name":"b","datatype":"UINT64","shape":[2],"data":[18446744073709551615,-0]},)"
             R"({"name":"c","datatype":"FP16","shape":[3],"data":[1e-8,-0,65504.5]},)"
             R"({"name":"d","datatype":"FP64","shape":[2],"data":[1.7976931348623157e308,-0.0]},)"
             R"({"name":"e","datatype":"BF16","shape":[1],"parameters":{"data":[1]},"data":[3.5]},)"
             R"({"name":"f","datatype":"BOOL","shape":[2],"data":[true,0]}]})");
  write_seed(dir, "json", 0,
             R"({"model_name":"m","outputs":[{"name":"y","datatype":"FP32","shape":[2,2],"data":[[1,2],[3,"NaN"]]},)"
             R"({"name":"z","datatype":"INT64","shape":[1],"data":[-5]}]})");
  const std::string header =
      R"({"outputs":[{"name":"y","datatype":"INT32","shape":[2],"parameters":{"binary_data_size":8}}]})";
  std::string bin;
  bin += static_cast<char>(header.size() & 0xff);
  bin += static_cast<char>(header.size() >> 8);
  bin += header + std::string("\x01\x00\x00\x00\xff\xff\xff\xff", 8);
  write_seed(dir, "binary", 1, bin);
  inference::ModelInferResponse r;
  auto* o = r.add_outputs();
  o->set_name("y");
  o->set_datatype("FP16");
  o->add_shape(2);
  r.add_raw_output_contents(std::string("\x00\x3c\x00\xc0", 4));
  auto* t = r.add_outputs();
  t->set_name("t");
  t->set_datatype("UINT16");
  t->add_shape(1);
  write_seed(dir, "proto_raw", 2, r.SerializeAsString());
  r.clear_raw_output_contents();
  r.mutable_outputs(0)->mutable_contents()->add_fp32_contents(1.0f);
  r.mutable_outputs(0)->mutable_contents()->add_fp32_contents(-2.0f);
  write_seed(dir, "proto_typed", 2, r.SerializeAsString());
  write_seed(
      dir, "metadata", 3,
      R"({"name":"m","versions":["1"],"platform":"p","inputs":[{"name":"x","datatype":"FP32","shape":[-1,3]}],)"
      R"("outputs":[{"name":"y","datatype":"BF16","shape":[1]}],"extensions":["binary_tensor_data"],"error":"e"})");
  const std::string request =
      R"({"id":"r","parameters":{"binary_data_output":true,"k":1},"inputs":[{"name":"a","datatype":"INT8","shape":[3],)"
      R"("data":[-128,0,127]},{"name":"b","datatype":"FP32","shape":[1,2],"parameters":{"binary_data_size":8}}],)"
      R"("outputs":[{"name":"y","parameters":{"binary_data":false}}]})";
  std::string req;
  req += static_cast<char>(request.size() & 0xff);
  req += static_cast<char>(request.size() >> 8);
  req += request + std::string("\x00\x00\x80\x3f\x00\x00\x00\x40", 8);
  write_seed(dir, "server_request", 4, req);
  inference::ModelInferRequest pr;
  auto* pi = pr.add_inputs();
  pi->set_name("x");
  pi->set_datatype("INT32");
  pi->add_shape(2);
  pi->mutable_contents()->add_int_contents(1);
  pi->mutable_contents()->add_int_contents(-1);
  write_seed(dir, "server_proto_typed", 5, pr.SerializeAsString());
  pr.mutable_inputs(0)->clear_contents();
  pr.add_raw_input_contents(std::string(8, '\0'));
  write_seed(dir, "server_proto_raw", 5, pr.SerializeAsString());
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  if (const char* dir = std::getenv("WASINN_FUZZ_SEEDS_OUT")) {
    write_seeds(dir);
    std::exit(0);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const uint8_t kind = data[0] % 6;
  ++data;
  --size;
  std::vector<OutputTensor> out;
  switch (kind) {
    case 0: {
      // The fast reading of "data" arrays must accept and refuse exactly what the general one
      // does, with the same bytes.
      const std::string_view text(reinterpret_cast<const char*>(data), size);
      std::vector<OutputTensor> general;
      const bool fast_ok = !decode_infer_json(text, {}, out, true);
      const bool general_ok = !decode_infer_json(text, {}, general, false);
      if (fast_ok != general_ok) std::abort();
      if (fast_ok) {
        check(out);
        if (out.size() != general.size()) std::abort();
        for (size_t i = 0; i < out.size(); ++i)
          if (out[i].data != general[i].data || out[i].shape != general[i].shape) std::abort();
      }
      break;
    }
    case 1: {
      if (size < 2) return 0;
      const size_t header = data[0] | (static_cast<size_t>(data[1]) << 8);
      if (!decode_infer_response({data + 2, size - 2}, header, out)) check(out);
      break;
    }
    case 2: {
      inference::ModelInferResponse r;
      if (r.ParseFromArray(data, static_cast<int>(size)) && !decode_infer_proto(r, out)) check(out);
      break;
    }
    case 3: {
      const std::string_view text(reinterpret_cast<const char*>(data), size);
      ModelMeta m;
      (void)decode_model_metadata_json(text, m);
      (void)decode_server_extensions_json(text);
      (void)error_text_json(text);
      break;
    }
    case 4: {
      if (size < 2) return 0;
      const size_t header = std::min(size - 2, data[0] | (static_cast<size_t>(data[1]) << 8));
      const std::string_view json(reinterpret_cast<const char*>(data + 2), header);
      wasinn::oip::InferRequest r;
      if (!wasinn::oip::decode_infer_request_json(json, {data + 2 + header, size - 2 - header}, r)) check(r);
      break;
    }
    case 5: {
      inference::ModelInferRequest pr;
      wasinn::oip::InferRequest r;
      if (pr.ParseFromArray(data, static_cast<int>(size)) && !wasinn::oip::decode_infer_request_proto(pr, r)) check(r);
      break;
    }
  }
  return 0;
}
