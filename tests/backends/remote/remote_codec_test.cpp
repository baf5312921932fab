// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The remote backend's URL and option parsing, datatype mapping and codecs, without a server.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "oip/binary_codec.h"
#include "config.h"
#include "oip/json_codec.h"
#include "oip/oip_types.h"
#include "oip/proto_codec.h"
#include "remote_url.h"

namespace wasinn::remote {
namespace {

std::span<const uint8_t> bytes_of(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

TEST(RemoteUrl, ParsesEachSchemeAndVersion) {
  RemoteUrl u;
  ASSERT_FALSE(parse_remote_url("grpc://127.0.0.1:8001/models/resnet/versions/2", u));
  EXPECT_EQ(u.protocol, Protocol::grpc);
  EXPECT_FALSE(u.tls);
  EXPECT_EQ(u.authority(), "127.0.0.1:8001");
  EXPECT_EQ(u.model, "resnet");
  EXPECT_EQ(u.version, "2");
  ASSERT_FALSE(parse_remote_url("https://example.test/v2/models/m", u));
  EXPECT_EQ(u.protocol, Protocol::rest);
  EXPECT_TRUE(u.tls);
  EXPECT_EQ(u.port, 443);
  EXPECT_EQ(u.rest_model_path(), "/v2/models/m");
  ASSERT_FALSE(parse_remote_url("http://[::1]:8000/models/m/", u));
  EXPECT_EQ(u.base(), "http://[::1]:8000");
}

TEST(RemoteUrl, RefusesWhatItCannotUse) {
  RemoteUrl u;
  for (const char* bad : {"ftp://h/models/m", "http://h:0/models/m", "http://h:99999/models/m", "http://h/m",
                          "http://h/models/", "http://h/models/a b", "http://user:pw@h/models/m", "http:///models/m",
                          "h:8000/models/m", "http://h/models/m/versions/../x"}) {
    const sdk::Error e = parse_remote_url(bad, u);
    EXPECT_EQ(e.status, WASINN_INVALID_ARGUMENT) << bad;
  }
}

TEST(RemoteOptions, UrlAloneOrJsonMergedOverDefaults) {
  RemoteOptions defaults, spec;
  ASSERT_FALSE(parse_remote_options(R"({"timeout_ms": 10, "headers": {"A": "1"}})", "d", defaults));
  ASSERT_FALSE(
      parse_remote_options(R"({"url": "grpc://h:1/models/m", "headers": {"B": "2"}, "retries": 0})", "s", spec));
  ModelTarget t;
  ASSERT_FALSE(resolve_target(defaults.merged_with(spec), t));
  EXPECT_EQ(t.timeout_ms, 10u);
  EXPECT_EQ(t.retries, 0u);
  EXPECT_EQ(t.headers.size(), 2u);
  ASSERT_FALSE(parse_remote_options("  http://h:1/models/m\n", "s", spec));
  EXPECT_EQ(*spec.url, "http://h:1/models/m");
}

TEST(RemoteOptions, MistakesNameTheKeyNeverAHeaderValue) {
  RemoteOptions o;
  EXPECT_NE(parse_remote_options(R"({"retries": -1})", "s", o).detail.find("retries"), std::string::npos);
  EXPECT_NE(parse_remote_options(R"({"binary_tensors": "yes"})", "s", o).detail.find("binary_tensors"),
            std::string::npos);
  const sdk::Error e = parse_remote_options(R"({"headers": {"X": "tok\r\nevil"}})", "s", o);
  EXPECT_EQ(e.status, WASINN_INVALID_ARGUMENT);
  EXPECT_EQ(e.detail.find("tok"), std::string::npos) << e.detail;
  ModelTarget t;
  ASSERT_FALSE(parse_remote_options(R"({"url": "http://h/models/m", "cert_file": "c"})", "s", o));
  EXPECT_EQ(resolve_target(o, t).status, WASINN_INVALID_ARGUMENT);
}

TEST(Datatypes, EveryWasinnTypeRoundTrips) {
  for (int32_t t : {WASINN_TYPE_F16, WASINN_TYPE_F32, WASINN_TYPE_F64, WASINN_TYPE_BF16, WASINN_TYPE_U8,
                    WASINN_TYPE_I32, WASINN_TYPE_I64, WASINN_TYPE_I8}) {
    const char* dt = to_datatype(t);
    ASSERT_NE(dt, nullptr) << t;
    EXPECT_EQ(from_datatype(dt), t) << dt;
  }
  EXPECT_EQ(to_datatype(WASINN_TYPE_UNKNOWN), nullptr);
  for (const char* dt : {"BOOL", "UINT16", "UINT32", "UINT64", "INT16", "BYTES", "NOPE"})
    EXPECT_FALSE(from_datatype(dt)) << dt;
  EXPECT_EQ(tensor_bytes("FP32", std::vector<int64_t>{2, 3}), 24u);
  EXPECT_FALSE(tensor_bytes("FP32", std::vector<int64_t>{-1}));
  EXPECT_FALSE(tensor_bytes("BYTES", std::vector<int64_t>{1}));
  EXPECT_FALSE(tensor_bytes("FP64", std::vector<int64_t>{INT64_MAX, 4}));
}

TEST(Datatypes, HalfAndBfloat16Conversions) {
  for (float f : {0.0f, 1.0f, -2.5f, 65504.0f, 0.000061035156f, 1e-7f})
    EXPECT_FLOAT_EQ(half_to_float(float_to_half(f)), f == 1e-7f ? half_to_float(float_to_half(f)) : f);
  EXPECT_EQ(float_to_half(1.0f), 0x3c00);
  EXPECT_EQ(float_to_half(1e6f), 0x7c00);  // overflow to inf
  EXPECT_EQ(float_to_bf16(1.0f), 0x3f80);
  EXPECT_FLOAT_EQ(bf16_to_float(float_to_bf16(-3.5f)), -3.5f);
}

TEST(JsonCodec, RequestCarriesDataOrBinarySizes) {
  const std::vector<float> x = {1.5f, -2.0f};
  const InputTensor in{"x", "FP32", {1, 2}, {reinterpret_cast<const uint8_t*>(x.data()), 8}};
  const std::vector<std::string> outs = {"y"};
  EXPECT_EQ(encode_infer_json({&in, 1}, outs, false),
            R"({"inputs":[{"name":"x","datatype":"FP32","shape":[1,2],"data":[1.5,-2]}]})");
  size_t json_len = 0;
  const std::string body = encode_infer_binary({&in, 1}, outs, &json_len);
  EXPECT_EQ(body.substr(0, json_len),
            R"({"inputs":[{"name":"x","datatype":"FP32","shape":[1,2],"parameters":{"binary_data_size":8}}],)"
            R"("outputs":[{"name":"y","parameters":{"binary_data":true}}]})");
  EXPECT_EQ(body.size(), json_len + 8);
  EXPECT_EQ(std::memcmp(body.data() + json_len, x.data(), 8), 0);
}

TEST(JsonCodec, DecodesFlatAndNestedDataInEveryType) {
  std::vector<OutputTensor> out;
  ASSERT_FALSE(decode_infer_json(R"({"outputs":[
      {"name":"a","datatype":"INT64","shape":[2,2],"data":[[1,-2],[3,4]]},
      {"name":"b","datatype":"FP16","shape":[1],"data":[1.0]},
      {"name":"c","datatype":"UINT8","shape":[2],"data":[0,255]},
      {"name":"d","datatype":"FP32","shape":[1],"data":["NaN"]}]})",
                                 {}, out));
  ASSERT_EQ(out.size(), 4u);
  int64_t v[4];
  std::memcpy(v, out[0].data.data(), 32);
  EXPECT_EQ(v[1], -2);
  EXPECT_EQ(out[1].data, std::string("\x00\x3c", 2));
  EXPECT_EQ(out[2].data, std::string("\x00\xff", 2));
  float f;
  std::memcpy(&f, out[3].data.data(), 4);
  EXPECT_TRUE(std::isnan(f));
}

TEST(JsonCodec, RefusesMismatchesAndGarbage) {
  std::vector<OutputTensor> out;
  for (const char* bad : {"", "[]", "{}", R"({"outputs":{}})", R"({"outputs":[1]})",
                          R"({"outputs":[{"name":"a","datatype":"FP32","shape":[4],"data":[1,2,3]}]})",
                          R"({"outputs":[{"name":"a","datatype":"UINT8","shape":[1],"data":[256]}]})",
                          R"({"outputs":[{"name":"a","datatype":"INT32","shape":[1],"data":[1.5]}]})",
                          R"({"outputs":[{"name":"a","datatype":"BYTES","shape":[1],"data":["x"]}]})",
                          R"({"outputs":[{"name":"a","datatype":"FP32","shape":[-1],"data":[1]}]})",
                          R"({"outputs":[{"name":"a","datatype":"FP32","shape":[1]}]})"}) {
    const sdk::Error e = decode_infer_json(bad, {}, out);
    EXPECT_EQ(e.status, WASINN_RUNTIME_ERROR) << bad;
  }
  EXPECT_NE(decode_infer_json(R"({"outputs":[{"name":"a","datatype":"FP32","shape":[4],"data":[1,2,3]}]})", {}, out)
                .detail.find("has 3 elements, its shape needs 4"),
            std::string::npos);
}

TEST(JsonCodec, FastDataReadingEqualsTheGeneralOne) {
  for (const char* doc :
       {R"({"outputs":[{"name":"a","datatype":"INT8","shape":[3],"data":[-128, 0 ,127]},)"
        R"({"name":"b","datatype":"UINT64","shape":[2],"data":[18446744073709551615,-0]},)"
        R"({"name":"c","datatype":"FP16","shape":[3],"data":[1e-8,-0,65504.5]},)"
        R"({"name":"d","datatype":"FP64","shape":[3],"data":[1.7976931348623157e308,-0.0,-0]},)"
        R"({"name":"e","datatype":"BF16","shape":[1],"parameters":{"data":[1]},"data":[3.5]},)"
        R"({"name":"f","datatype":"BOOL","shape":[2],"data":[1,0]}]})",
        R"({"outputs":[{"data":[1,2],"name":"late","shape":[2],"datatype":"INT32"}]})",
        R"({"outputs":[{"name":"x","datatype":"UINT8","shape":[1],"data":[256]}]})",
        R"({"outputs":[{"name":"x","datatype":"INT32","shape":[1],"data":[1.0]}]})",
        R"({"outputs":[{"name":"x","datatype":"FP32","shape":[1],"data":[1e400]}]})",
        R"({"outputs":[{"name":"x","datatype":"FP32","shape":[2],"data":[1,]}]})",
        R"({"outputs":[{"name":"x","datatype":"FP32","shape":[1],"data":"wasinn-data:0"}]})",
        // Found by fuzz_remote_codecs: a repeated "data" key whose discarded (first) array holds
        // a number past a double's range: both readings must refuse the document.
        R"({"outputs":[{"name":"a","datatype":"UINT16","shape":[2],"data":[1.7994383176623158e308,-0.0],)"
        R"("datatype":"BOOL","shape":[2],"data":[true,0]}]})"}) {
    std::vector<OutputTensor> fast, general;
    const sdk::Error ef = decode_infer_json(doc, {}, fast, true);
    const sdk::Error eg = decode_infer_json(doc, {}, general, false);
    ASSERT_EQ(ef.status, eg.status) << doc << "\n" << ef.detail << "\n" << eg.detail;
    ASSERT_EQ(fast.size(), general.size()) << doc;
    for (size_t i = 0; i < fast.size(); ++i) EXPECT_EQ(fast[i].data, general[i].data) << doc << " output " << i;
  }
  // The first document's values, read the fast way.
  std::vector<OutputTensor> out;
  ASSERT_FALSE(
      decode_infer_json(R"({"outputs":[{"name":"d","datatype":"FP64","shape":[2],"data":[-0, 2.5]}]})", {}, out));
  double d[2];
  std::memcpy(d, out[0].data.data(), 16);
  EXPECT_FALSE(std::signbit(d[0]));  // "-0" is the integer 0, as nlohmann reads it
  EXPECT_EQ(d[1], 2.5);
}

TEST(BinaryCodec, SplitsHeaderAndTensors) {
  const std::string json =
      R"({"outputs":[{"name":"y","datatype":"INT32","shape":[2],"parameters":{"binary_data_size":8}}]})";
  std::string body = json;
  const int32_t v[2] = {7, -9};
  body.append(reinterpret_cast<const char*>(v), 8);
  std::vector<OutputTensor> out;
  ASSERT_FALSE(decode_infer_response(bytes_of(body), json.size(), out));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(std::memcmp(out[0].data.data(), v, 8), 0);
  // Too few bytes, too many, a header length past the end, a size that disagrees with the shape.
  EXPECT_TRUE(decode_infer_response(bytes_of(body.substr(0, body.size() - 1)), json.size(), out));
  EXPECT_TRUE(decode_infer_response(bytes_of(body + "x"), json.size(), out));
  EXPECT_TRUE(decode_infer_response(bytes_of(body), body.size() + 1, out));
  std::string wrong =
      R"({"outputs":[{"name":"y","datatype":"INT32","shape":[3],"parameters":{"binary_data_size":8}}]})";
  EXPECT_TRUE(decode_infer_response(bytes_of(wrong + std::string(8, '\0')), wrong.size(), out));
}

TEST(ProtoCodec, RawAndTypedOutputs) {
  inference::ModelInferResponse r;
  auto* a = r.add_outputs();
  a->set_name("a");
  a->set_datatype("FP32");
  a->add_shape(2);
  const float f[2] = {1.5f, 2.5f};
  r.add_raw_output_contents(std::string(reinterpret_cast<const char*>(f), 8));
  std::vector<OutputTensor> out;
  ASSERT_FALSE(decode_infer_proto(r, out));
  EXPECT_EQ(std::memcmp(out[0].data.data(), f, 8), 0);

  inference::ModelInferResponse typed;
  auto* b = typed.add_outputs();
  b->set_name("b");
  b->set_datatype("INT64");
  b->add_shape(3);
  for (int64_t v : {1, -2, 3}) b->mutable_contents()->add_int64_contents(v);
  ASSERT_FALSE(decode_infer_proto(typed, out));
  int64_t got[3];
  std::memcpy(got, out[0].data.data(), 24);
  EXPECT_EQ(got[1], -2);
  b->add_shape(2);  // now [3, 2]: six elements needed, three sent
  EXPECT_EQ(decode_infer_proto(typed, out).status, WASINN_RUNTIME_ERROR);
  r.add_raw_output_contents("extra");  // more raw contents than outputs
  EXPECT_EQ(decode_infer_proto(r, out).status, WASINN_RUNTIME_ERROR);
}

TEST(ProtoCodec, RequestHasRawContentsInOrder) {
  const std::vector<int32_t> x = {1, 2, 3};
  const InputTensor in{"x", "INT32", {3}, {reinterpret_cast<const uint8_t*>(x.data()), 12}};
  inference::ModelInferRequest req;
  const std::vector<std::string> outs = {"y", "z"};
  encode_infer_proto("m", "2", {&in, 1}, outs, req);
  EXPECT_EQ(req.model_name(), "m");
  EXPECT_EQ(req.model_version(), "2");
  ASSERT_EQ(req.raw_input_contents_size(), 1);
  EXPECT_EQ(req.raw_input_contents(0).size(), 12u);
  EXPECT_EQ(req.outputs_size(), 2);
}

TEST(JsonCodec, MetadataAndErrorText) {
  ModelMeta m;
  ASSERT_FALSE(decode_model_metadata_json(
      R"({"name":"m","versions":["1"],"platform":"p","inputs":[{"name":"x","datatype":"FP32","shape":[-1,3]}],"outputs":[]})",
      m));
  ASSERT_EQ(m.inputs.size(), 1u);
  EXPECT_EQ(m.inputs[0].shape, (std::vector<int64_t>{-1, 3}));
  EXPECT_TRUE(decode_model_metadata_json(R"({"inputs":[{"name":1}]})", m));
  EXPECT_EQ(error_text_json(R"({"error":"bad\nthing"})"), "bad thing");
  EXPECT_EQ(error_text_json("plain text"), "plain text");
  EXPECT_EQ(decode_server_extensions_json(R"({"extensions":["binary_tensor_data"]})").size(), 1u);
}

}  // namespace
}  // namespace wasinn::remote
