// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// `wasinn models inspect` recognises every format wasinn can load: a model file, an OpenVINO
// .xml with its .bin beside it, a directory holding one model, a TensorFlow SavedModel
// directory, a frozen GraphDef .pb; otherwise it says which --encoding to give.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_test_env.h"

namespace wasinn_cli_test {
namespace {

bool plugin_built(const std::string& name) { return fs::exists(backend_dir() / ("libwasinn_backend_" + name + ".so")); }

// `models inspect --json ARGS...`, parsed; fails the test unless it exits 0.
nlohmann::json inspect_json(const std::vector<std::string>& args) {
  std::vector<std::string> all{"models", "inspect", "--json"};
  all.insert(all.end(), args.begin(), args.end());
  const ChildResult r = wasinn(all);
  EXPECT_EQ(r.exit_code, 0) << r.describe();
  if (r.exit_code != 0) return nlohmann::json::object();
  return nlohmann::json::parse(r.out);
}

nlohmann::json files_of(std::initializer_list<fs::path> paths) {
  auto out = nlohmann::json::array();
  for (const auto& p : paths) out.push_back(p.string());
  return out;
}

TEST(InspectFormats, OpenVinoXmlFindsItsWeights) {
  const auto xml = fixture("digits/openvino/model.xml");
  if (!xml || !plugin_built("openvino")) GTEST_SKIP() << "needs the digits fixture and the OpenVINO plugin";
  const auto j = inspect_json({xml->string()});
  EXPECT_EQ(j["backend"], "openvino") << j.dump();
  EXPECT_EQ(j["files"], files_of({*xml, xml->parent_path() / "model.bin"}));
  EXPECT_FALSE(j["inputs"].empty()) << j.dump();
}

TEST(InspectFormats, ADirectoryHoldingOneModel) {
  const auto tiny = fixture("tiny");
  if (!tiny || !ort_plugin_built()) GTEST_SKIP() << "needs the tiny fixture and the ONNX Runtime plugin";
  const auto j = inspect_json({tiny->string()});
  EXPECT_EQ(j["backend"], "onnxruntime") << j.dump();
  EXPECT_EQ(j["files"], files_of({*tiny / "model.onnx"}));

  const auto ov = fixture("digits/openvino");
  if (!ov || !plugin_built("openvino")) return;
  const auto o = inspect_json({ov->string()});
  EXPECT_EQ(o["backend"], "openvino") << o.dump();
  EXPECT_EQ(o["files"], files_of({*ov / "model.xml", *ov / "model.bin"}));
}

TEST(InspectFormats, TwoModelsAreOneModelsBuildersAndTheMessageSaysSo) {
  const auto tiny = fixture("tiny/model.onnx");
  const auto digits = fixture("digits/model.onnx");
  if (!tiny || !digits || !ort_plugin_built()) GTEST_SKIP() << "needs the ONNX fixtures and the ONNX Runtime plugin";
  const ChildResult r = wasinn({"models", "inspect", tiny->string(), digits->string()});
  EXPECT_EQ(r.exit_code, 1) << r.describe();
  EXPECT_NE(r.err.find("the 2 files are taken as one model's graph builders"), std::string::npos) << r.describe();
  EXPECT_NE(r.err.find("run `wasinn models inspect` once for each"), std::string::npos) << r.describe();
}

TEST(InspectFormats, ADirectoryOfSeveralFormatsAsksForAnEncoding) {
  const auto digits = fixture("digits");
  if (!digits || !ort_plugin_built()) GTEST_SKIP() << "needs the digits fixture and the ONNX Runtime plugin";
  const ChildResult r = wasinn({"models", "inspect", digits->string()});
  EXPECT_EQ(r.exit_code, 1) << r.describe();
  EXPECT_NE(r.err.find("holds models of several formats: onnx (model.onnx), pytorch (digits_mlp.pt, model.pt); "
                       "give --encoding"),
            std::string::npos)
      << r.describe();
  EXPECT_EQ(count_lines(r.err), 1u) << r.describe();
  // --encoding picks the format, and Wasmtime's file name among several of it.
  const auto j = inspect_json({"--encoding", "onnx", digits->string()});
  EXPECT_EQ(j["files"], files_of({*digits / "model.onnx"}));
  ScratchDir empty;
  const ChildResult none = wasinn({"models", "inspect", "--encoding", "onnx", empty.path().string()});
  EXPECT_EQ(none.exit_code, 1) << none.describe();
  EXPECT_NE(none.err.find("holds no onnx model"), std::string::npos) << none.describe();
  const ChildResult nothing = wasinn({"models", "inspect", empty.path().string()});
  EXPECT_NE(nothing.err.find("holds no model wasinn recognises"), std::string::npos) << nothing.describe();
}

TEST(InspectFormats, TensorFlowSavedModelDirectoryAndFrozenGraph) {
  const auto saved = fixture("tensorflow/two_io");
  const auto frozen = fixture("tensorflow/digits_frozen.pb");
  if (!saved || !frozen || !plugin_built("tensorflow")) GTEST_SKIP() << "needs the TensorFlow fixtures and plugin";
  const auto dir = inspect_json({saved->string()});
  EXPECT_EQ(dir["backend"], "tensorflow") << dir.dump();
  EXPECT_EQ(dir["files"], files_of({*saved}));
  EXPECT_FALSE(dir["inputs"].empty()) << dir.dump();
  // Its saved_model.pb (whose bytes look like ONNX's) names the same model.
  EXPECT_EQ(inspect_json({(*saved / "saved_model.pb").string()})["backend"], "tensorflow");
  const auto pb = inspect_json({frozen->string()});
  EXPECT_EQ(pb["backend"], "tensorflow") << pb.dump();
  EXPECT_EQ(pb["encoding"], "tensorflow");
}

TEST(InspectFormats, AFormatItCannotTellAsksForAnEncoding) {
  ScratchDir dir;
  write_text(dir / "weights.dat", std::string("\x13\x37 not a model of any kind", 26));
  const ChildResult r = wasinn({"models", "inspect", (dir / "weights.dat").string()});
  EXPECT_EQ(r.exit_code, 1) << r.describe();
  EXPECT_NE(r.err.find("cannot tell the format of " + (dir / "weights.dat").string()), std::string::npos)
      << r.describe();
  EXPECT_NE(r.err.find("give --encoding onnx, openvino, pytorch, tensorflow, tensorflowlite, ggml or whisper"),
            std::string::npos)
      << r.describe();
  // An .xml without its .bin says what is missing.
  const auto xml = fixture("digits/openvino/model.xml");
  if (!xml) return;
  fs::copy_file(*xml, dir / "alone.xml");
  const ChildResult alone = wasinn({"models", "inspect", (dir / "alone.xml").string()});
  EXPECT_EQ(alone.exit_code, 1) << alone.describe();
  EXPECT_NE(alone.err.find("is OpenVINO IR, whose weights alone.bin are missing"), std::string::npos)
      << alone.describe();
  // A wrong --encoding is refused by the parser.
  EXPECT_EQ(wasinn({"models", "inspect", "--encoding", "caffe", (dir / "alone.xml").string()}).exit_code, 2);
}

// The two reports: ONNX and TorchScript loaded as TensorFlow were called a SavedModel and
// an "Invalid GraphDef". The bytes tell the format, and the error names it and its encoding.
TEST(InspectFormats, AWrongEncodingNamesWhatTheBytesAre) {
  const auto onnx = fixture("digits/model.onnx");
  const auto pt = fixture("digits/model.pt");
  const auto saved = fixture("tensorflow/two_io/saved_model.pb");
  if (!onnx || !pt || !saved) GTEST_SKIP() << "needs the digits and TensorFlow fixtures";
  const struct {
    fs::path file;
    const char* encoding;
    const char* says;
  } cases[] = {
      {*onnx, "tensorflow", "the model bytes are an ONNX model: load them with encoding onnx, not tensorflow"},
      {*pt, "tensorflow",
       "the model bytes are a TorchScript archive (zip): load them with encoding pytorch, not tensorflow"},
      {*saved, "onnx",
       "the model bytes are a TensorFlow SavedModel's saved_model.pb: load them with encoding tensorflow, not onnx"},
  };
  for (const auto& c : cases) {
    const ChildResult r = wasinn({"models", "inspect", "--encoding", c.encoding, c.file.string()});
    EXPECT_EQ(r.exit_code, 1) << r.describe();
    EXPECT_NE(r.err.find(c.says), std::string::npos) << r.describe();
    EXPECT_EQ(count_lines(r.err), 1u) << r.describe();
  }
}

// Dynamic dimensions are "?" as in every backend's error details, and the name comes last so a
// long one cannot push the other columns out of line.
TEST(InspectFormats, TheTableWritesDynamicDimsAsQuestionMarksAndNamesLast) {
  const auto model = fixture("digits/model.onnx");
  if (!model || !ort_plugin_built()) GTEST_SKIP() << "needs the digits fixture and the ONNX Runtime plugin";
  const ChildResult r = wasinn({"models", "inspect", model->string()});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_NE(r.out.find("    0  f32  [?, 64]  input\n"), std::string::npos) << r.describe();
  const auto j = inspect_json({model->string()});
  EXPECT_EQ(j["inputs"][0]["shape"], nlohmann::json({-1, 64})) << j.dump();
}

TEST(InspectFormats, TheTableNamesTheFilesLoaded) {
  const auto model = fixture("tiny/model.onnx");
  if (!model || !ort_plugin_built()) GTEST_SKIP() << "needs the tiny fixture and the ONNX Runtime plugin";
  const ChildResult r = wasinn({"models", "inspect", model->parent_path().string()});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_NE(r.out.find("files: " + model->string() + "\n"), std::string::npos) << r.describe();
}

}  // namespace
}  // namespace wasinn_cli_test
