// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// "json-schema" and the form of an embedding, on the tiny llama model: through the plugin's C
// table, and through a WasmEdge guest built against wasmedge-wasi-nn 0.8 (guest/rust,
// wasmedge_guest.rs's `schema` and `embed` modes) run by the wasinn command. A schema-constrained
// answer must parse and validate against the schema (checked here, for the features used); an
// embedding is WasmEdge's JSON text for witx and f32 when asked or typed, its values equal to
// native llama.cpp's.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <sstream>

#include <nlohmann/json.hpp>

#include "guest_runner.h"
#include "llama_native.h"
#include "plugin_harness.h"
#include "probe_run.h"

namespace wasinn_test {
namespace {

using json = nlohmann::json;

const std::string kPrompt = "The quick brown fox jumps over the lazy dog. Once upon a time";
const std::string kPersonPrompt = "A person, as JSON:";

// As WasmEdge's guests send it, text, in this key order. name: at most 6 characters; age: an integer from 0 to 120;
// pet: one of three; nothing else.
const std::string kSchemaText = R"({
  "type": "object",
  "properties": {
    "name": {"type": "string", "maxLength": 6},
    "age": {"type": "integer", "minimum": 0, "maximum": 120},
    "pet": {"enum": ["cat", "dog", "fish"]}
  },
  "required": ["name", "age", "pet"],
  "additionalProperties": false
})";
const json kSchema = json::parse(kSchemaText);

size_t utf8_length(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

// "" when `text` is JSON that kSchema accepts, else why not.
std::string schema_violation(const std::string& text) {
  const json doc = json::parse(text, nullptr, false);
  if (doc.is_discarded()) return "not JSON: " + text;
  if (!doc.is_object()) return "not an object: " + text;
  for (const auto& [key, value] : doc.items())
    if (key != "name" && key != "age" && key != "pet") return "extra key " + key + ": " + text;
  if (!doc.contains("name") || !doc["name"].is_string() || utf8_length(doc["name"].get<std::string>()) > 6)
    return "name is not a string of at most 6 characters: " + text;
  if (!doc.contains("age") || !doc["age"].is_number_integer() || doc["age"].get<long>() < 0 ||
      doc["age"].get<long>() > 120)
    return "age is not an integer from 0 to 120: " + text;
  if (!doc.contains("pet") || !doc["pet"].is_string()) return "pet is not a string: " + text;
  const std::string pet = doc["pet"].get<std::string>();
  if (pet != "cat" && pet != "dog" && pet != "fish") return "pet is not one of the enum: " + text;
  return "";
}

std::string greedy_with(const json& extra) {
  json config = {{"temp", 0}, {"ctx-size", 128}, {"n-predict", 96}, {"threads", 1}};
  if (extra.is_object()) config.update(extra);  // {} arrives as null
  return config.dump();
}

// ---- the plugin's C table ----

const wasinn_backend_api& llama() { return plugin_api("llamacpp"); }

Backend& backend() {
  static Backend b(llama());
  return b;
}

struct Loaded {
  Graph graph;
  int status = -1;
  std::string detail;
};

Loaded load_tiny(const std::string& config) {
  LoadArgs args = model_args("ggml", {read_file(tiny_model())});
  args.paths = {tiny_model()};
  args.config = config;
  Loaded r;
  Diag d;
  r.status = load(backend(), args, r.graph, d);
  r.detail = d.detail;
  return r;
}

int set_text(wasinn_context* c, uint32_t index, const std::string& text, std::string* detail = nullptr) {
  Diag d;
  const int s = set_input(llama(), c, by_index(index), WASINN_TYPE_U8, {static_cast<uint32_t>(text.size())},
                          std::vector<uint8_t>(text.begin(), text.end()), d);
  if (detail) *detail = d.detail;
  return s;
}

// set_input 0, compute, output 0 as text.
std::string answer(wasinn_context* c, const std::string& prompt) {
  EXPECT_EQ(set_text(c, 0, prompt), WASINN_OK);
  Diag d;
  EXPECT_EQ(llama().compute(c, &d), WASINN_OK) << d.detail;
  const auto b = output_bytes(llama(), c, by_index(0), WASINN_TYPE_U8);
  return {b.begin(), b.end()};
}

int set_property(wasinn_graph* g, wasinn_context* c, const std::string& name, const std::string& value) {
  Diag d;
  return llama().property_set(g, c, name.data(), name.size(), value.data(), value.size(), &d);
}

TEST(LlamaSchemaPlugin, SchemaAsStringOrObjectConstrainsTheAnswer) {
  for (const json& form : {json(kSchemaText), kSchema}) {
    Loaded r = load_tiny(greedy_with({{"json-schema", form}}));
    ASSERT_EQ(r.status, WASINN_OK) << r.detail;
    Context c(llama(), r.graph.ptr);
    const std::string out = answer(c.ptr, kPersonPrompt);
    EXPECT_EQ(schema_violation(out), "") << "form " << form.type_name();
    // The string goes to llama.cpp as written, so its keys keep the schema's order (WasmEdge's);
    // the object was read into a sorted map with the config.
    if (form.is_string())
      EXPECT_LT(out.find("\"name\""), out.find("\"age\"")) << out;
    else
      EXPECT_LT(out.find("\"age\""), out.find("\"name\"")) << out;
  }
  // Unconstrained, the same prompt gives no such JSON: the grammar made the difference.
  Loaded free = load_tiny(greedy_with({{"n-predict", 24}}));
  Context c(llama(), free.graph.ptr);
  EXPECT_NE(schema_violation(answer(c.ptr, kPersonPrompt)), "");
}

TEST(LlamaSchemaPlugin, SchemaWinsOverGrammarInOneConfigAndTheLaterConfigWins) {
  const std::string yes_no = R"(root ::= "yes" | "no")";
  Loaded r = load_tiny(greedy_with({{"grammar", yes_no}, {"json-schema", kSchemaText}}));
  ASSERT_EQ(r.status, WASINN_OK) << r.detail;
  Context c(llama(), r.graph.ptr);
  EXPECT_EQ(schema_violation(answer(c.ptr, kPersonPrompt)), "") << "json-schema wins within one object";
  // Metadata's grammar replaces the load config's schema for this context ...
  ASSERT_EQ(set_text(c.ptr, 1, json{{"grammar", yes_no}}.dump()), WASINN_OK);
  const std::string short_answer = answer(c.ptr, kPersonPrompt);
  EXPECT_TRUE(short_answer == "yes" || short_answer == "no") << short_answer;
  // ... and a schema in metadata replaces that grammar.
  ASSERT_EQ(set_text(c.ptr, 1, json{{"json-schema", kSchema}}.dump()), WASINN_OK);
  EXPECT_EQ(schema_violation(answer(c.ptr, kPersonPrompt)), "");
  // As a property, with the same checks.
  EXPECT_EQ(set_property(r.graph.ptr, c.ptr, "json-schema", "{oops"), WASINN_INVALID_ARGUMENT);
  EXPECT_EQ(set_property(r.graph.ptr, c.ptr, "json-schema", kSchemaText), WASINN_OK);
  EXPECT_EQ(schema_violation(answer(c.ptr, kPersonPrompt)), "");
}

TEST(LlamaSchemaPlugin, BadSchemasAreInvalidArgumentNamingTheKey) {
  const std::vector<json> bad = {"{oops",
                                 42,
                                 json::array({1, 2}),
                                 "[1, 2]",
                                 json::parse(R"({"type": "object", "properties": {"a": {"$ref": "#/nowhere"}}})"),
                                 json::parse(R"({"type": "string", "pattern": "^(a$"})")};
  for (const json& schema : bad) {
    Loaded r = load_tiny(json{{"json-schema", schema}}.dump());
    EXPECT_EQ(r.status, WASINN_INVALID_ARGUMENT) << schema.dump();
    EXPECT_NE(r.detail.find("load config: \"json-schema\""), std::string::npos) << r.detail;
  }
  Loaded ok = load_tiny(greedy_with({}));
  Context c(llama(), ok.graph.ptr);
  std::string detail;
  EXPECT_EQ(set_text(c.ptr, 1, R"({"json-schema": "{oops"})", &detail), WASINN_INVALID_ARGUMENT);
  EXPECT_NE(detail.find("metadata (input 1): \"json-schema\" is not valid JSON"), std::string::npos) << detail;
  // A failed metadata changes nothing: the context still answers freely.
  EXPECT_FALSE(answer(c.ptr, kPrompt).empty());
}

TEST(LlamaSchemaPlugin, KeysThatWouldChangeTheAnswerAreRefusedOthersIgnored) {
  for (const char* key : {"hf-repo-vocoder", "grp-attn-n"}) {
    const json value = std::string(key) == "grp-attn-n" ? json(4) : json("x/y");
    Loaded r = load_tiny(json{{key, value}}.dump());
    EXPECT_EQ(r.status, WASINN_UNSUPPORTED_OPERATION) << key;
    EXPECT_NE(r.detail.find(std::string("\"") + key + "\" cannot be honoured"), std::string::npos) << r.detail;
  }
  Loaded r = load_tiny(greedy_with({{"tensor-split", "3,2"}, {"split-mode", "row"}, {"warmup", false}}));
  EXPECT_EQ(r.status, WASINN_OK) << r.detail;
  Context c(llama(), r.graph.ptr);
  // An image needs a graph loaded with a projector (llama_vision_test.cpp): the prompt says so.
  std::string detail;
  EXPECT_EQ(set_text(c.ptr, 1, R"({"image": "cat.png"})", &detail), WASINN_OK) << detail;
  EXPECT_EQ(set_text(c.ptr, 0, "USER: <image>what is it?\nASSISTANT:", &detail), WASINN_INVALID_ARGUMENT);
  EXPECT_NE(detail.find("without a multimodal projector"), std::string::npos) << detail;
}

// The embedding as get_output(0) gives it, and its type.
std::vector<uint8_t> embedding_output(wasinn_context* c, int32_t want_type) {
  EXPECT_EQ(set_text(c, 0, kPrompt), WASINN_OK);
  Diag d;
  EXPECT_EQ(llama().compute(c, &d), WASINN_OK) << d.detail;
  return output_bytes(llama(), c, by_index(0), want_type);
}

TEST(LlamaSchemaPlugin, EmbeddingIsWasmEdgeJsonUnlessTypedOrAskedForF32) {
  const std::string base = R"({"embedding": true, "ctx-size": 128, "threads": 1)";
  Loaded f32 = load_tiny(base + R"(, "embedding-output": "f32"})");
  ASSERT_EQ(f32.status, WASINN_OK) << f32.detail;
  Context cf(llama(), f32.graph.ptr);
  const std::vector<float> floats = as_vector<float>(embedding_output(cf.ptr, WASINN_TYPE_F32));
  ASSERT_EQ(floats.size(), 64u);

  Loaded plain = load_tiny(base + "}");
  ASSERT_EQ(plain.status, WASINN_OK) << plain.detail;
  Context cj(llama(), plain.graph.ptr);
  const auto raw = embedding_output(cj.ptr, WASINN_TYPE_U8);
  const std::string text(raw.begin(), raw.end());
  // WasmEdge's bytes: fmt's {"n_embedding": {}, "embedding": [{:.10}]} joined by ",".
  ASSERT_EQ(text.rfind("{\"n_embedding\": 64, \"embedding\": [", 0), 0u) << text;
  EXPECT_EQ(text.substr(text.size() - 2), "]}");
  EXPECT_EQ(text.find(' ', 34), std::string::npos) << "no spaces inside the array: " << text;
  const json doc = json::parse(text, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << text;
  ASSERT_EQ(doc["embedding"].size(), 64u);
  for (size_t i = 0; i < 64; ++i) EXPECT_NEAR(doc["embedding"][i].get<double>(), floats[i], 1e-9) << i;

  // The host's mark on a WIT guest's context: f32, unless the config asked for JSON.
  Context typed(llama(), plain.graph.ptr);
  ASSERT_EQ(set_property(plain.graph.ptr, typed.ptr, WASINN_PROPERTY_TYPED_OUTPUTS, "true"), WASINN_OK);
  EXPECT_EQ(as_vector<float>(embedding_output(typed.ptr, WASINN_TYPE_F32)), floats);
  ASSERT_EQ(set_text(typed.ptr, 1, R"({"embedding-output": "json"})"), WASINN_OK);
  const auto again = embedding_output(typed.ptr, WASINN_TYPE_U8);
  EXPECT_EQ(std::string(again.begin(), again.end()), text);

  // The mark is a settable property the host can find among the graph's.
  bool listed = false;
  for (size_t i = 0; i < llama().graph_property_count(plain.graph.ptr); ++i) {
    wasinn_property p{};
    ASSERT_EQ(llama().graph_property_info(plain.graph.ptr, i, &p), WASINN_OK);
    if (std::string(p.name) == WASINN_PROPERTY_TYPED_OUTPUTS)
      listed = p.settable == 1 && std::string(p.value) == "false";
  }
  EXPECT_TRUE(listed);
}

// ---- a WasmEdge guest on the wasinn command ----

const std::string kWasmEdgeGuest = "compat_wasmedge_wasi_nn_08";

class WasmEdgeGuest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::filesystem::exists(std::string(WASINN_GUEST_DIR) + "/" + kWasmEdgeGuest + ".wasm"))
      GTEST_SKIP() << "the Rust guests are not built (scripts/fetch-deps.sh rust-guest)";
  }
  GuestRun run(const std::vector<std::string>& args) {
    return run_guest(llama_host_args(scratch_dir("llama_wasmedge_out")), kWasmEdgeGuest, args);
  }
};

// The guest's "output hex: ..." line, decoded.
std::string output_of(const GuestRun& r) {
  std::istringstream in(r.output);
  std::string line;
  const std::string tag = "output hex: ";
  while (std::getline(in, line)) {
    if (line.rfind(tag, 0) != 0) continue;
    std::string bytes;
    for (size_t i = tag.size(); i + 1 < line.size(); i += 2)
      bytes += static_cast<char>(std::stoi(line.substr(i, 2), nullptr, 16));
    return bytes;
  }
  return "";
}

TEST_F(WasmEdgeGuest, SchemaConstrainedAnswerValidates) {
  // WasmEdge's form: the schema as a JSON string in the load config ...
  const GuestRun at_load = run({"schema", "tiny", greedy_with({{"json-schema", kSchemaText}}), "", kPersonPrompt});
  ASSERT_EQ(at_load.exit_code, 0) << at_load.output;
  const std::string answer_text = output_of(at_load);
  EXPECT_EQ(schema_violation(answer_text), "") << at_load.output;
  EXPECT_LT(answer_text.find("\"name\""), answer_text.find("\"age\"")) << "the schema's key order, as WasmEdge";
  // ... or in the metadata of set_input(1).
  const GuestRun in_metadata =
      run({"schema", "tiny", greedy_with({}), json{{"json-schema", kSchemaText}}.dump(), kPersonPrompt});
  ASSERT_EQ(in_metadata.exit_code, 0) << in_metadata.output;
  EXPECT_EQ(output_of(in_metadata), output_of(at_load));
}

TEST_F(WasmEdgeGuest, EmbeddingIsJsonEqualToNative) {
  NativeSettings s;
  s.n_ctx = 128;
  const std::vector<float> native = native_embedding(tiny_model(), kPrompt, s);
  const GuestRun r = run({"embed", "tiny", R"({"embedding": true, "ctx-size": 128, "threads": 1})", kPrompt});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const json doc = json::parse(output_of(r), nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << r.output;
  ASSERT_EQ(doc.value("n_embedding", -1), static_cast<int>(native.size()));
  ASSERT_EQ(doc["embedding"].size(), native.size());
  for (size_t i = 0; i < native.size(); ++i) EXPECT_NEAR(doc["embedding"][i].get<double>(), native[i], 1e-5) << i;
}

TEST_F(WasmEdgeGuest, BadSchemaAndImageKeysAreErrorsWithADetail) {
  const GuestRun bad = run({"schema", "tiny", R"({"json-schema": "{oops"})", "", kPersonPrompt});
  EXPECT_EQ(bad.exit_code, 1) << bad.output;
  EXPECT_NE(bad.output.find("error in load_by_name_with_config: BackendError(InvalidArgument)"), std::string::npos)
      << bad.output;
  EXPECT_NE(bad.output.find("\"json-schema\" is not valid JSON"), std::string::npos) << bad.output;
  const GuestRun typed = run({"schema", "tiny", greedy_with({}), R"({"json-schema": 7})", kPersonPrompt});
  EXPECT_EQ(typed.exit_code, 1) << typed.output;
  EXPECT_NE(typed.output.find("error in set_input(1): BackendError(InvalidArgument)"), std::string::npos)
      << typed.output;
  // An image for a graph loaded without a projector fails at the prompt (set_input(0)).
  const GuestRun image = run({"schema", "tiny", greedy_with({}), R"({"image": "cat.png"})", kPersonPrompt});
  EXPECT_EQ(image.exit_code, 1) << image.output;
  EXPECT_NE(image.output.find("error in set_input(0): BackendError(InvalidArgument)"), std::string::npos)
      << image.output;
  EXPECT_NE(image.output.find("without a multimodal projector"), std::string::npos) << image.output;
}

}  // namespace
}  // namespace wasinn_test
