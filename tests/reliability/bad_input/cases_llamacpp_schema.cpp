// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The llama.cpp backend's "json-schema" key and the WasmEdge keys this build cannot honour: a
// schema that is not JSON, of the wrong type, nested too deep or that llama.cpp's converter
// refuses (it throws), at load and in metadata (set_input 1), is invalid_argument naming the
// key; a projector path without the operator's allow-preload-paths is security (witx 6), and an
// image for a graph loaded without one invalid_argument, each naming the key. Never a crash.
#include <string>

#include "matrix_case.h"

namespace wasinn::bad_input {
namespace {
const std::string kSchemaModel = HostUnderTest::kTinyLlama;

const std::string kGreedy = R"({"temp": 0, "ctx-size": 64, "n-predict": 4, "threads": 1})";

// load_by_name_with_config of the tiny model; the detail must name `key`.
Status load_with(CaseRun& r, const std::string& config, const std::string& key) {
  const uint32_t out = r.guest.out_u32();
  const Status st =
      nn::load_by_name_with_config(r.call(), r.guest.put(kSchemaModel), static_cast<uint32_t>(kSchemaModel.size()),
                                   r.guest.put(config), static_cast<uint32_t>(config.size()), out);
  if (!st.ok()) {
    EXPECT_TRUE(r.untouched(out));
    EXPECT_NE(st.error().detail.find("\"" + key + "\""), std::string::npos) << st.error().detail;
  }
  return r.tracked_graph(st, out);
}

// A context of the tiny model (greedy config), then set_input 1 with `metadata`; the detail must
// name `key`. `context`, when given, is the context's handle.
Status metadata_with(CaseRun& r, const std::string& metadata, const std::string& key, uint32_t* context = nullptr) {
  const uint32_t g = r.guest.out_u32();
  const Status loaded =
      nn::load_by_name_with_config(r.call(), r.guest.put(kSchemaModel), static_cast<uint32_t>(kSchemaModel.size()),
                                   r.guest.put(kGreedy), static_cast<uint32_t>(kGreedy.size()), g);
  EXPECT_TRUE(r.tracked_graph(loaded, g).ok()) << "setup: load tiny";
  const uint32_t c = r.guest.out_u32();
  EXPECT_TRUE(r.tracked_context(nn::init_execution_context(r.call(), r.guest.u32_at(g), c), c).ok());
  const uint32_t tensor = r.guest.tensor({static_cast<uint32_t>(metadata.size())}, 3,
                                         {reinterpret_cast<const uint8_t*>(metadata.data()), metadata.size()});
  const Status st = nn::set_input(r.call(), r.guest.u32_at(c), 1, tensor);
  if (context) *context = r.guest.u32_at(c);
  if (!st.ok()) {
    EXPECT_NE(st.error().detail.find("\"" + key + "\""), std::string::npos) << st.error().detail;
  }
  return st;
}

// metadata_with, then set_input 0 with a prompt that has an image's marker.
Status prompt_after_metadata(CaseRun& r, const std::string& metadata, const std::string& key) {
  uint32_t context = 0;
  const Status meta = metadata_with(r, metadata, key, &context);
  if (!meta.ok()) return meta;
  const std::string prompt = "USER: <image>what is it?\nASSISTANT:";
  const uint32_t tensor = r.guest.tensor({static_cast<uint32_t>(prompt.size())}, 3,
                                         {reinterpret_cast<const uint8_t*>(prompt.data()), prompt.size()});
  const Status st = nn::set_input(r.call(), context, 0, tensor);
  if (!st.ok()) {
    EXPECT_NE(st.error().detail.find("\"" + key + "\""), std::string::npos) << st.error().detail;
  }
  return st;
}

std::string nested_schema(int depth) {
  std::string s = R"({"type": "string"})";
  for (int i = 0; i < depth; ++i) s = R"({"type": "array", "items": )" + s + "}";
  return s;
}

const CaseList llama_schema_cases{
    {"llama_schema", "schema_not_json", E, kLlama, kInvalidArgument,
     "load config {\"json-schema\": \"{oops\"} (the schema's text is not JSON)",
     [](CaseRun& r) { return load_with(r, R"({"json-schema": "{oops"})", "json-schema"); }},
    {"llama_schema", "schema_a_number", E, kLlama, kInvalidArgument, "load config {\"json-schema\": 42}",
     [](CaseRun& r) { return load_with(r, R"({"json-schema": 42})", "json-schema"); }},
    {"llama_schema", "schema_text_of_an_array", E, kLlama, kInvalidArgument,
     "load config {\"json-schema\": \"[1, 2]\"} (JSON, but not a schema object)",
     [](CaseRun& r) { return load_with(r, R"({"json-schema": "[1, 2]"})", "json-schema"); }},
    {"llama_schema", "schema_unresolved_ref", E, kLlama, kInvalidArgument,
     "load config with a schema whose $ref points nowhere (llama.cpp's converter throws)",
     [](CaseRun& r) {
       return load_with(r, R"({"json-schema": {"type": "object", "properties": {"a": {"$ref": "#/nowhere"}}}})",
                        "json-schema");
     }},
    {"llama_schema", "schema_invalid_pattern", E, kLlama, kInvalidArgument,
     "load config with a string pattern that is not a regex (\"^(a$\")",
     [](CaseRun& r) {
       return load_with(r, R"({"json-schema": {"type": "string", "pattern": "^(a$"}})", "json-schema");
     }},
    {"llama_schema", "schema_nested_100_deep", E, kLlama, kInvalidArgument,
     "load config with a schema of arrays nested 100 deep (the converter recurses)",
     [](CaseRun& r) { return load_with(r, R"({"json-schema": )" + nested_schema(100) + "}", "json-schema"); }},
    {"llama_schema", "metadata_schema_not_json", E, kLlama, kInvalidArgument,
     "set_input 1 (metadata) {\"json-schema\": \"[oops\"}",
     [](CaseRun& r) { return metadata_with(r, R"({"json-schema": "[oops"})", "json-schema"); }},
    {"llama_schema", "metadata_schema_a_bool", E, kLlama, kInvalidArgument,
     "set_input 1 (metadata) {\"json-schema\": true}",
     [](CaseRun& r) { return metadata_with(r, R"({"json-schema": true})", "json-schema"); }},
    {"llama_schema", "mmproj_key", E, kLlama, kUnsupportedOperation,
     "load config {\"mmproj\": \"proj.gguf\"} (a host path, without allow-preload-paths: security)",
     [](CaseRun& r) { return load_with(r, R"({"mmproj": "proj.gguf"})", "mmproj"); }},
    {"llama_schema", "image_in_metadata", E, kLlama, kInvalidArgument,
     "set_input 1 (metadata) {\"image\": \"cat.png\"}, then a prompt, on a graph loaded without \"mmproj\"",
     [](CaseRun& r) { return prompt_after_metadata(r, R"({"image": "cat.png"})", "mmproj"); }},
    {"llama_schema", "embedding_output_unknown", E, kLlama, kInvalidArgument,
     "load config {\"embedding-output\": \"f64\"}",
     [](CaseRun& r) { return load_with(r, R"({"embedding-output": "f64"})", "embedding-output"); }},
};

}  // namespace
}  // namespace wasinn::bad_input
