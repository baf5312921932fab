// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The OIP server's decoders of untrusted requests (src/oip/server_json, server_proto) and its
// --model-repository scan (src/serve/oip/model_repository): what they accept, and that every
// malformed input is an invalid_argument Error with a detail, never a throw or a crash.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "serve/oip/model_repository.h"
#include "oip/server_json.h"
#include "oip/server_proto.h"

namespace {

using namespace wasinn;

std::span<const uint8_t> bytes(const std::string& s) { return {reinterpret_cast<const uint8_t*>(s.data()), s.size()}; }

std::vector<float> floats(std::span<const uint8_t> data) {
  std::vector<float> out(data.size() / 4);
  std::memcpy(out.data(), data.data(), out.size() * 4);
  return out;
}

TEST(OipServerJson, DecodesJsonData) {
  oip::InferRequest r;
  const std::string body =
      R"({"id":"a","parameters":{"binary_data_output":true,"temperature":0.5,"mode":"x"},
          "inputs":[{"name":"x","datatype":"FP32","shape":[2,2],"data":[[1,2],[3,"NaN"]]},
                    {"name":"n","datatype":"INT64","shape":[],"data":7}],
          "outputs":[{"name":"y","parameters":{"binary_data":false}},{"name":"z"}]})";
  ASSERT_FALSE(oip::decode_infer_request_json(body, {}, r));
  EXPECT_EQ(r.id, "a");
  EXPECT_TRUE(r.binary_output);
  ASSERT_EQ(r.parameters.size(), 2u);
  EXPECT_EQ(r.parameters[0], (std::pair<std::string, std::string>{"mode", "x"}));
  EXPECT_EQ(r.parameters[1], (std::pair<std::string, std::string>{"temperature", "0.5"}));
  ASSERT_EQ(r.inputs.size(), 2u);
  const auto x = floats(r.inputs[0].data);
  ASSERT_EQ(x.size(), 4u);
  EXPECT_EQ(x[2], 3.0f);
  EXPECT_TRUE(std::isnan(x[3]));
  int64_t n = 0;
  ASSERT_EQ(r.inputs[1].data.size(), 8u);
  std::memcpy(&n, r.inputs[1].data.data(), 8);
  EXPECT_EQ(n, 7);
  ASSERT_EQ(r.outputs.size(), 2u);
  EXPECT_EQ(r.outputs[0].binary, std::optional<bool>(false));
  EXPECT_EQ(r.outputs[1].binary, std::nullopt);
}

TEST(OipServerJson, DecodesBinaryTail) {
  const std::string json =
      R"({"inputs":[{"name":"a","datatype":"UINT8","shape":[3],"parameters":{"binary_data_size":3}},
                                         {"name":"b","datatype":"INT32","shape":[1],"parameters":{"binary_data_size":4}}]})";
  const std::string tail("\x01\x02\x03\x05\x00\x00\x00", 7);
  oip::InferRequest r;
  ASSERT_FALSE(oip::decode_infer_request_json(json, bytes(tail), r));
  EXPECT_EQ(r.inputs[0].data.data(), bytes(tail).data());  // a view: no copy
  EXPECT_EQ(r.inputs[1].data[0], 5);
}

// Flat "data" arrays are read by the fast path (json_fast_data.h); what it reads must equal the
// general reading, and what the general reading refuses stays refused.
TEST(OipServerJson, FastDataReadsAsTheGeneralPath) {
  std::vector<std::string> tokens = {"1e2", "-0", "3", "4.5e-1", "16777217", "-1.5E+3"};
  for (int i = 0; i < 1000; ++i) tokens.push_back(std::to_string(i * 0.37 - 100.0));
  std::string data;
  for (size_t i = 0; i < tokens.size(); ++i) data += (i ? ", " : "") + tokens[i];
  const std::string body = R"({"inputs":[{"name":"x","datatype":"FP32","shape":[)" + std::to_string(tokens.size()) +
                           R"(],"data":[ )" + data + R"( ]}]})";
  oip::InferRequest r;
  ASSERT_FALSE(oip::decode_infer_request_json(body, {}, r));
  const auto got = floats(r.inputs[0].data);
  ASSERT_EQ(got.size(), tokens.size());
  for (size_t i = 0; i < tokens.size(); ++i) EXPECT_EQ(got[i], static_cast<float>(std::stod(tokens[i]))) << tokens[i];
  EXPECT_FALSE(std::signbit(got[1]));  // "-0" is the integer 0, as nlohmann reads it
  for (const char* bad : {
           // a "data" array that is no input's: the general reading refuses the structured parameter
           R"({"parameters":{"data":[1,2]},"inputs":[{"name":"x","datatype":"FP32","shape":[1],"data":[1]}]})",
           // past a double's range, and an integer type given a fraction
           R"({"inputs":[{"name":"x","datatype":"FP32","shape":[1],"data":[1e999]}]})",
           R"({"inputs":[{"name":"x","datatype":"INT32","shape":[2],"data":[1,2.5]}]})",
           // too few and too many elements
           R"({"inputs":[{"name":"x","datatype":"FP32","shape":[3],"data":[1,2]}]})",
           R"({"inputs":[{"name":"x","datatype":"FP32","shape":[1],"data":[1,2]}]})",
       }) {
    oip::InferRequest r;
    const sdk::Error e = oip::decode_infer_request_json(bad, {}, r);
    EXPECT_TRUE(e) << bad;
    EXPECT_EQ(e.status, WASINN_INVALID_ARGUMENT) << bad;
  }
}

TEST(OipServerJson, RefusesMalformedRequests) {
  const std::string eight(8, '\0');
  struct Case {
    std::string json;
    std::string tail;
    std::string says;
  };
  const std::vector<Case> cases = {
      {"", "", "not valid JSON: syntax error at byte 1"},
      {"[1]", "", "the request is a JSON array, not an object"},
      {R"({"id":3,"inputs":[]})", "", "\"id\""},
      {R"({"inputs":{}})", "", "\"inputs\""},
      {R"({"inputs":[3]})", "", "not an object"},
      {R"({"inputs":[{"datatype":"FP32","shape":[1],"data":[1]}]})", "", "name"},
      {R"({"inputs":[{"name":"x","shape":[1],"data":[1]}]})", "", "datatype"},
      {R"({"inputs":[{"name":"x","datatype":"FP99","shape":[1],"data":[1]}]})", "", "does not define"},
      {R"({"inputs":[{"name":"x","datatype":"BYTES","shape":[1],"data":["a"]}]})", "", "do not take"},
      {R"({"inputs":[{"name":"x","datatype":"FP32","data":[1]}]})", "", "shape"},
      {R"({"inputs":[{"name":"x","datatype":"FP32","shape":[-1],"data":[1]}]})", "", "not a size"},
      {R"({"inputs":[{"name":"x","datatype":"FP32","shape":[1.5],"data":[1]}]})", "", "not a size"},
      {R"({"inputs":[{"name":"x","datatype":"FP32","shape":[4294967296,4294967296,4294967296],"data":[]}]})", "",
       "overflows"},
      {R"({"inputs":[{"name":"x","datatype":"FP32","shape":[2],"data":[1]}]})", "", "elements"},
      {R"({"inputs":[{"name":"x","datatype":"FP32","shape":[1],"data":[true]}]})", "", "FP32 data holds"},
      {R"({"inputs":[{"name":"x","datatype":"UINT8","shape":[1],"data":[256]}]})", "", "out of range"},
      {R"({"inputs":[{"name":"x","datatype":"INT8","shape":[1],"data":[1.5]}]})", "", "INT8 data holds"},
      {R"({"inputs":[{"name":"x","datatype":"FP32","shape":[1]}]})", "", "neither"},
      {R"({"inputs":[{"name":"x","datatype":"FP32","shape":[2],"parameters":{"binary_data_size":8}}]})", "",
       "only 0 follow"},
      {R"({"inputs":[{"name":"x","datatype":"FP32","shape":[1],"parameters":{"binary_data_size":8}}]})", eight,
       "need 4"},
      {R"({"inputs":[{"name":"x","datatype":"FP32","shape":[1],"parameters":{"binary_data_size":-4}}]})", eight,
       "not a count"},
      {R"({"inputs":[{"name":"x","datatype":"FP32","shape":[1],"data":[1]}]})", eight,
       "no input's binary_data_size claims"},
      {R"({"inputs":[{"name":"x","datatype":"FP32","shape":[1],"data":[1],"parameters":{"binary_data_size":4}}]})",
       eight, "both"},
      {R"({"inputs":[],"parameters":[]})", "", "\"parameters\""},
      {R"({"inputs":[],"parameters":{"binary_data_output":1}})", "", "binary_data_output"},
      {R"({"inputs":[],"outputs":[{"name":"y","parameters":{"binary_data":"yes"}}]})", "", "binary_data"},
      {R"({"inputs":[],"outputs":[{}]})", "", "name"},
      // Deeply nested values where a scalar belongs are named by kind, never dumped (recursion).
      {R"({"inputs":[],"parameters":{"k":)" + std::string(100000, '[') + std::string(100000, ']') + "}}", "",
       "not a string, number or boolean"},
      {R"({"inputs":[{"name":"x","datatype":"FP32","shape":[)" + std::string(100000, '[') + std::string(100000, ']') +
           R"(],"data":[]}]})",
       "", "holding an array"},
      {R"({"inputs":[{"name":"x","datatype":"FP32","shape":[1],"data":[{"a":)" + std::string(100000, '[') +
           std::string(100000, ']') + "}]}]}",
       "", "FP32 data holds an object"},
      {R"({"inputs":[{"name":"x","datatype":"FP32","shape":[1],"data":)" + std::string(100, '[') + "1" +
           std::string(100, ']') + "}]}",
       "", "nested"},
  };
  for (const auto& c : cases) {
    oip::InferRequest r;
    const sdk::Error e = oip::decode_infer_request_json(c.json, bytes(c.tail), r);
    EXPECT_EQ(e.status, WASINN_INVALID_ARGUMENT) << c.json;
    EXPECT_NE(e.detail.find(c.says), std::string::npos) << c.json << " -> " << e.detail;
  }
}

// A syntax error says where it is and what was expected, with what the parser last read cut
// short (it can be the rest of a long request).
TEST(OipServerJson, ASyntaxErrorSaysWhereAndWhatWasExpected) {
  struct Case {
    std::string json, says;
  };
  const std::vector<Case> cases = {
      {"not json",
       "the request is not valid JSON: syntax error at byte 2 (line 1, column 2): invalid literal; "
       "last read: 'no'"},
      {R"({"inputs":[{"name":"x")",
       "the request is not valid JSON: syntax error at byte 23 (line 1, column 23): "
       "unexpected end of input; expected '}'"},
      {"{\n \"inputs\": [1,,2]}",
       "syntax error at byte 17 (line 2, column 15): unexpected ','; expected '[', '{', "
       "or a literal"},
      {R"({"inputs":[{"name":"x","datatype":"FP32","shape":[1],"data":[1e999]}]})",
       "the request is not valid JSON: number overflow parsing '1e999'"},
      {R"({"id":")" + std::string(10000, 'a'),
       "syntax error at byte 10008 (line 1, column 10008): invalid string: missing closing quote; last read: "
       "'..." +
           std::string(24, 'a') + "'"},
  };
  for (const auto& c : cases) {
    oip::InferRequest r;
    const sdk::Error e = oip::decode_infer_request_json(c.json, {}, r);
    EXPECT_EQ(e.status, WASINN_INVALID_ARGUMENT) << c.json;
    EXPECT_NE(e.detail.find(c.says), std::string::npos) << e.detail;
    EXPECT_LT(e.detail.size(), 200u) << e.detail;
  }
}

// The model judges an input's name before its data is read: a misnamed input whose data does not
// fill its shape either is reported by its name, in both encodings.
TEST(OipServerJson, AnInputsNameIsJudgedBeforeItsData) {
  const oip::InputNameCheck only_x = [](std::string_view name) {
    return name == "x" ? std::string() : "the model has no input named '" + std::string(name) + "'";
  };
  oip::InferRequest r;
  sdk::Error e = oip::decode_infer_request_json(
      R"({"inputs":[{"name":"nope","datatype":"FP32","shape":[1,4],"data":[1,2]}]})", {}, r, only_x);
  EXPECT_EQ(e.detail, "the model has no input named 'nope'");
  e = oip::decode_infer_request_json(R"({"inputs":[{"name":"x","datatype":"FP32","shape":[1,4],"data":[1,2]}]})", {}, r,
                                     only_x);
  EXPECT_EQ(e.detail, "input 'x' has 2 elements; its shape needs 4");
  inference::ModelInferRequest req;
  auto* in = req.add_inputs();
  in->set_name("nope");
  in->set_datatype("FP32");
  in->add_shape(4);
  req.add_raw_input_contents(std::string(8, '\0'));
  e = oip::decode_infer_request_proto(req, r, only_x);
  EXPECT_EQ(e.detail, "the model has no input named 'nope'");
}

TEST(OipServerJson, EncodesResponsesWithBinaryOutputs) {
  const float y[2] = {1.5f, -2.0f};
  const uint8_t u[3] = {1, 2, 3};
  std::vector<oip::ResponseOutput> outs = {
      {"y", "FP32", {1, 2}, std::span(reinterpret_cast<const uint8_t*>(y), 8), false},
      {"u", "UINT8", {3}, std::span(u, 3), true},
  };
  size_t json_length = 0;
  const std::string body = oip::encode_infer_response_json("m", "1", "id7", outs, &json_length);
  ASSERT_EQ(body.size(), json_length + 3);
  const std::string json = body.substr(0, json_length);
  EXPECT_EQ(json, R"({"model_name":"m","model_version":"1","id":"id7","outputs":[)"
                  R"({"name":"y","datatype":"FP32","shape":[1,2],"data":[1.5,-2]},)"
                  R"({"name":"u","datatype":"UINT8","shape":[3],"parameters":{"binary_data_size":3}}]})");
  EXPECT_EQ(body.substr(json_length), std::string("\x01\x02\x03", 3));
  EXPECT_EQ(oip::error_json("bad \xff byte"), "{\"error\":\"bad \xEF\xBF\xBD byte\"}");
}

TEST(OipServerProto, DecodesRawAndTypedContents) {
  inference::ModelInferRequest req;
  auto* a = req.add_inputs();
  a->set_name("a");
  a->set_datatype("FP32");
  a->add_shape(2);
  const float v[2] = {1, 2};
  req.add_raw_input_contents(std::string(reinterpret_cast<const char*>(v), 8));
  oip::InferRequest r;
  ASSERT_FALSE(oip::decode_infer_request_proto(req, r));
  EXPECT_EQ(floats(r.inputs[0].data), (std::vector<float>{1, 2}));

  inference::ModelInferRequest typed;
  auto* t = typed.add_inputs();
  t->set_name("t");
  t->set_datatype("INT32");
  t->add_shape(3);
  for (int i : {4, 5, 6}) t->mutable_contents()->add_int_contents(i);
  ASSERT_FALSE(oip::decode_infer_request_proto(typed, r));
  ASSERT_EQ(r.inputs[0].data.size(), 12u);
  EXPECT_EQ(r.inputs[0].data[8], 6);
}

TEST(OipServerProto, RefusesMalformedRequests) {
  auto base = [] {
    inference::ModelInferRequest req;
    auto* a = req.add_inputs();
    a->set_name("a");
    a->set_datatype("FP32");
    a->add_shape(2);
    return req;
  };
  std::vector<std::pair<inference::ModelInferRequest, std::string>> cases;
  {
    auto r = base();  // two raw contents, one input
    r.add_raw_input_contents(std::string(8, '\0'));
    r.add_raw_input_contents(std::string(8, '\0'));
    cases.push_back({r, "raw_input_contents"});
  }
  {
    auto r = base();
    r.add_raw_input_contents(std::string(7, '\0'));
    cases.push_back({r, "need 8"});
  }
  {
    auto r = base();
    r.mutable_inputs(0)->set_shape(0, -2);
    cases.push_back({r, "not a size"});
  }
  {
    auto r = base();
    r.mutable_inputs(0)->set_datatype("BYTES");
    cases.push_back({r, "do not take"});
  }
  {
    auto r = base();
    r.mutable_inputs(0)->mutable_contents()->add_fp32_contents(1);
    cases.push_back({r, "elements"});
  }
  {
    auto r = base();
    for (int i = 0; i < 3; ++i) r.mutable_inputs(0)->add_shape(INT64_MAX);
    cases.push_back({r, "overflows"});
  }
  for (auto& [req, says] : cases) {
    oip::InferRequest r;
    const sdk::Error e = oip::decode_infer_request_proto(req, r);
    EXPECT_EQ(e.status, WASINN_INVALID_ARGUMENT) << says;
    EXPECT_NE(e.detail.find(says), std::string::npos) << e.detail;
  }
}

class Repository : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("wasinn-oip-repo-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  void write(const std::filesystem::path& rel, const std::string& text) {
    std::filesystem::create_directories((dir_ / rel).parent_path());
    std::ofstream(dir_ / rel) << text;
  }
  std::filesystem::path dir_;
};

TEST_F(Repository, ServesTheHighestVersionWithItsConfig) {
  write("m/1/model.onnx", "x");
  write("m/12/model.onnx", "x");
  write("m/config.json", R"({"encoding":"onnx","target":"cpu","config":{"threads":1}})");
  auto found = oip_server::scan_model_repository(dir_);
  ASSERT_TRUE(found) << found.error().detail;
  ASSERT_EQ(found->size(), 1u);
  EXPECT_EQ((*found)[0].model.name, "m");
  EXPECT_EQ((*found)[0].version, "12");
  EXPECT_EQ((*found)[0].config, R"({"threads":1})");
  ASSERT_EQ((*found)[0].model.paths.size(), 1u);
  EXPECT_EQ((*found)[0].model.paths[0], dir_ / "m/12/model.onnx");
}

TEST_F(Repository, RefusesWhatIsNotAModel) {
  write("m/latest/model.onnx", "x");
  auto found = oip_server::scan_model_repository(dir_);
  ASSERT_FALSE(found);
  EXPECT_NE(found.error().detail.find("no version directory"), std::string::npos);
  write("m/1/model.onnx", "x");
  write("m/config.json", R"({"encodign":"onnx"})");
  found = oip_server::scan_model_repository(dir_);
  ASSERT_FALSE(found);
  EXPECT_NE(found.error().detail.find("unknown key"), std::string::npos);
  write("m/config.json", "{");
  EXPECT_FALSE(oip_server::scan_model_repository(dir_));
  EXPECT_FALSE(oip_server::scan_model_repository(dir_ / "absent"));
}

// Triton's own config.pbtxt (protobuf text format): what maps onto wasinn is read, the rest named.
TEST_F(Repository, ReadsTritonsConfigPbtxtAndNamesWhatItIgnores) {
  write("tiny/1/model.onnx", "x");
  write("tiny/config.pbtxt", R"(name: "tiny"
platform: "onnxruntime_onnx"
max_batch_size: 8
input [ { name: "x" data_type: TYPE_FP32 dims: [ 4 ] reshape: { shape: [ 2, 2 ] } } ]
output [ { name: "y" data_type: TYPE_FP32 dims: [ 4 ] } ]
dynamic_batching { preferred_batch_size: [ 4 ] max_queue_delay_microseconds: 2000 }
instance_group [ { count: 2 kind: KIND_CPU } ]
version_policy: { latest: { num_versions: 1 } }
)");
  auto found = oip_server::scan_model_repository(dir_);
  ASSERT_TRUE(found) << found.error().detail;
  ASSERT_EQ(found->size(), 1u);
  const auto& m = (*found)[0];
  EXPECT_EQ(m.model.encoding, Encoding::onnx);
  EXPECT_EQ(m.batching.max_batch_size, 8u);
  EXPECT_EQ(m.batching.max_queue_delay_us, 2000u);
  ASSERT_TRUE(m.triton_io);
  ASSERT_EQ(m.triton_io->inputs.size(), 1u);
  EXPECT_EQ(m.triton_io->inputs[0].name, "x");
  EXPECT_EQ(m.triton_io->inputs[0].data_type, "TYPE_FP32");
  EXPECT_EQ(m.triton_io->inputs[0].dims, std::vector<int64_t>{4});
  EXPECT_EQ(m.triton_io->max_batch_size, 8u);
  EXPECT_EQ(m.ignored_fields,
            (std::vector<std::string>{"input.reshape (line 4)", "instance_group.kind (line 7)",
                                      "version_policy (line 8)", "dynamic_batching.preferred_batch_size",
                                      "instance_group (wasinn's --workers sets the computes)"}));

  // config.json's keys win where both set one.
  write("tiny/config.json", R"({"max_batch_size": 16})");
  found = oip_server::scan_model_repository(dir_);
  ASSERT_TRUE(found) << found.error().detail;
  EXPECT_EQ((*found)[0].batching.max_batch_size, 16u);
  EXPECT_EQ((*found)[0].batching.max_queue_delay_us, 2000u);
  std::filesystem::remove(dir_ / "tiny/config.json");

  // What Triton refuses too, each naming the file and what is wrong.
  for (const auto& [text, says] : std::vector<std::pair<std::string, std::string>>{
           {"name: \"other\"", "name \"other\" is not the model's directory name 'tiny'"},
           {"max_batch_size: -1", "max_batch_size -1 is not from 0 to 65536"},
           {"dynamic_batching { }", "dynamic_batching needs a max_batch_size of 1 or more"},
           {"max_batch_size: 4 dynamic_batching { max_queue_delay_microseconds: 20000000 }", "more than 10000000"},
           {"input [ { name: \"x\" data_type: TYPE_NOPE } ]", "line 1, column"},
           {"max_batch_size: {", "not Triton's model configuration (protobuf text format)"},
           {"platform: \"onnxruntime_onnx\" backend: \"pytorch\"", "name different frameworks"}}) {
    write("tiny/config.pbtxt", text);
    found = oip_server::scan_model_repository(dir_);
    ASSERT_FALSE(found) << text;
    EXPECT_NE(found.error().detail.find("tiny/config.pbtxt: "), std::string::npos) << found.error().detail;
    EXPECT_NE(found.error().detail.find(says), std::string::npos) << found.error().detail;
  }
  // A framework wasinn has no backend for is named, not refused: the files choose.
  write("tiny/config.pbtxt", "backend: \"python\"");
  found = oip_server::scan_model_repository(dir_);
  ASSERT_TRUE(found) << found.error().detail;
  EXPECT_EQ((*found)[0].model.encoding, Encoding::onnx);  // from model.onnx
  ASSERT_EQ((*found)[0].ignored_fields.size(), 1u);
  EXPECT_NE((*found)[0].ignored_fields[0].find("backend \"python\""), std::string::npos);
}

TEST(TritonIo, TheDeclaredTensorsMustBeTheModels) {
  oip_server::ModelConfigInfo served;
  served.inputs = {{"x", "TYPE_FP32", {-1, 4}, false}};
  served.outputs = {{"y", "TYPE_FP32", {-1, 4}, false}};
  oip_server::TritonIo io;
  io.file = "repo/tiny/config.pbtxt";
  io.max_batch_size = 8;  // dims without the batch dimension
  io.inputs = {{"x", "TYPE_FP32", {4}, false}};
  io.outputs = {{"y", "TYPE_FP32", {-1}, false}};
  EXPECT_TRUE(oip_server::check_triton_io(io, served, /*batched=*/false));
  io.inputs = {{"x", "TYPE_INT64", {4}, false}};
  auto bad = oip_server::check_triton_io(io, served, false);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().detail, "repo/tiny/config.pbtxt: input 'x' has data_type TYPE_INT64, the model's is TYPE_FP32");
  io.inputs = {{"x", "TYPE_FP32", {5}, false}};
  bad = oip_server::check_triton_io(io, served, false);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().detail.find("input 'x' has dims [5], the model's are [4] (without the batch dimension"),
            std::string::npos)
      << bad.error().detail;
  io.inputs = {{"input", "TYPE_FP32", {4}, false}};
  bad = oip_server::check_triton_io(io, served, false);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().detail.find("input 'input' is not one of the model's (x)"), std::string::npos);
  io.max_batch_size = 0;  // the whole shape
  io.inputs = {{"x", "TYPE_FP32", {1, 4}, false}};
  bad = oip_server::check_triton_io(io, served, false);
  ASSERT_FALSE(bad);  // y's rank 1 was without the batch dimension
  EXPECT_NE(bad.error().detail.find("output 'y' has dims [-1], the model's are [-1, 4]"), std::string::npos)
      << bad.error().detail;
  io.outputs = {{"y", "TYPE_FP32", {1, 4}, false}};
  EXPECT_TRUE(oip_server::check_triton_io(io, served, false));
}

// Flat: DIR's own files are one model, as KServe's storage initializer leaves a single-file
// storageUri in /mnt/models.
TEST_F(Repository, ServesAFlatDirectorysOneModel) {
  write("model.onnx", "x");
  write("README.md", "not a model");
  write("model.onnx.data", std::string("\x08\x01\x02\x03", 4));  // ONNX external data: raw weights, not a model
  auto found = oip_server::scan_model_repository(dir_, "wasinn-digits");
  ASSERT_TRUE(found) << found.error().detail;
  ASSERT_EQ(found->size(), 1u);
  const auto& m = (*found)[0];
  EXPECT_TRUE(m.flat);
  EXPECT_EQ(m.model.name, "wasinn-digits");
  EXPECT_EQ(m.version, "1");
  EXPECT_EQ(m.model.encoding, Encoding::onnx);
  ASSERT_EQ(m.model.paths.size(), 1u);
  EXPECT_EQ(m.model.paths[0], dir_ / "model.onnx");
  // Without a name: the file's, as a single-file storageUri's file keeps its name.
  std::filesystem::rename(dir_ / "model.onnx", dir_ / "digits.onnx");
  found = oip_server::scan_model_repository(dir_);
  ASSERT_TRUE(found) << found.error().detail;
  EXPECT_EQ((*found)[0].model.name, "digits");
  // Its config.json is read as a model directory's.
  write("config.json", R"({"target":"gpu","max_batch_size":8})");
  found = oip_server::scan_model_repository(dir_);
  ASSERT_TRUE(found) << found.error().detail;
  EXPECT_EQ((*found)[0].model.target, Target::gpu);
  EXPECT_EQ((*found)[0].batching.max_batch_size, 8u);
  write("config.json", R"({"encodign":"onnx"})");
  found = oip_server::scan_model_repository(dir_);
  ASSERT_FALSE(found);
  EXPECT_NE(found.error().detail.find("unknown key"), std::string::npos) << found.error().detail;
}

TEST_F(Repository, FlatOpenVinoSavedModelAndPipeline) {
  write("model.xml", "<net/>");
  write("model.bin", "weights");  // the .xml's weights, not a second model
  auto found = oip_server::scan_model_repository(dir_);
  ASSERT_TRUE(found) << found.error().detail;
  ASSERT_EQ(found->size(), 1u);
  EXPECT_EQ((*found)[0].model.name, "model");
  EXPECT_EQ((*found)[0].model.encoding, Encoding::openvino);
  ASSERT_EQ((*found)[0].model.paths.size(), 2u);
  EXPECT_EQ((*found)[0].model.paths[1], dir_ / "model.bin");
  std::filesystem::remove_all(dir_);
  write("saved_model.pb", "x");
  write("fingerprint.pb", "x");             // TensorFlow 2's, part of the SavedModel
  write("variables/variables.index", "x");  // a SavedModel's own directory, not a Triton model
  found = oip_server::scan_model_repository(dir_, "flowers");
  ASSERT_TRUE(found) << found.error().detail;
  EXPECT_EQ((*found)[0].model.name, "flowers");
  EXPECT_EQ((*found)[0].model.encoding, Encoding::tensorflow);
  ASSERT_EQ((*found)[0].model.paths.size(), 1u);
  EXPECT_EQ((*found)[0].model.paths[0], dir_);
  std::filesystem::remove_all(dir_);
  write("model.wasm", "x");
  found = oip_server::scan_model_repository(dir_, "classify");
  ASSERT_TRUE(found) << found.error().detail;
  EXPECT_EQ((*found)[0].model.name, "classify");
  EXPECT_EQ((*found)[0].pipeline, dir_ / "model.wasm");
}

TEST_F(Repository, RefusesSeveralLooseModelsAndMixedLayouts) {
  write("a.onnx", "x");
  write("b.tflite", "x");
  auto found = oip_server::scan_model_repository(dir_, "m");
  ASSERT_FALSE(found);
  EXPECT_NE(found.error().detail.find("several model files directly (a.onnx, b.tflite)"), std::string::npos)
      << found.error().detail;
  EXPECT_NE(found.error().detail.find("NAME/1/"), std::string::npos) << found.error().detail;
  std::filesystem::remove(dir_ / "b.tflite");
  write("digits/1/model.onnx", "x");
  found = oip_server::scan_model_repository(dir_, "m");
  ASSERT_FALSE(found);
  EXPECT_NE(found.error().detail.find("(a.onnx) and model directories in Triton's layout (digits/VERSION/)"),
            std::string::npos)
      << found.error().detail;
  // Triton's layout with other files at the top stays Triton's, names from the directories.
  std::filesystem::remove(dir_ / "a.onnx");
  write("README.md", "x");
  found = oip_server::scan_model_repository(dir_, "m");
  ASSERT_TRUE(found) << found.error().detail;
  ASSERT_EQ(found->size(), 1u);
  EXPECT_FALSE((*found)[0].flat);
  EXPECT_EQ((*found)[0].model.name, "digits");
  // Nothing at all is an empty repository, not an error here (the CLI says what it expected).
  std::filesystem::remove_all(dir_);
  std::filesystem::create_directories(dir_);
  found = oip_server::scan_model_repository(dir_);
  ASSERT_TRUE(found) << found.error().detail;
  EXPECT_TRUE(found->empty());
}

TEST_F(Repository, ReadsDynamicBatching) {
  write("m/1/model.onnx", "x");
  write("m/config.json", R"({"max_batch_size":16,"max_queue_delay_us":2000})");
  auto found = oip_server::scan_model_repository(dir_);
  ASSERT_TRUE(found) << found.error().detail;
  EXPECT_EQ((*found)[0].batching.max_batch_size, 16u);
  EXPECT_EQ((*found)[0].batching.max_queue_delay_us, 2000u);
  write("m/config.json", R"({"max_batch_size":0})");
  found = oip_server::scan_model_repository(dir_);
  ASSERT_TRUE(found) << found.error().detail;
  EXPECT_FALSE((*found)[0].batching.enabled());
  for (const char* bad : {R"({"max_batch_size":-1})", R"({"max_batch_size":1.5})", R"({"max_batch_size":"8"})",
                          R"({"max_batch_size":65537})", R"({"max_batch_size":4,"max_queue_delay_us":-5})",
                          R"({"max_queue_delay_us":100})"}) {
    write("m/config.json", bad);
    found = oip_server::scan_model_repository(dir_);
    ASSERT_FALSE(found) << bad;
    EXPECT_NE(found.error().detail.find("max_"), std::string::npos) << found.error().detail;
  }
}

}  // namespace
