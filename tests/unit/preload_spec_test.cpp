// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// parse_preload_spec: WasmEdge's --nn-preload NAME:ENCODING:TARGET:PATH[:PATH...], and
// parse_wasmtime_graph_spec: Wasmtime's -S nn-graph=ENCODING::DIR.
#include "core/model_registry.h"
#include "support/abi_fixture.h"

namespace wasinn::unit {
namespace {

TEST(PreloadSpec, WasmEdgeGgmlExample) {
  auto m = parse_preload_spec("default:GGML:AUTO:/models/llama.gguf");
  ASSERT_TRUE(m.ok()) << m.error().detail;
  EXPECT_EQ(m->name, "default");
  EXPECT_EQ(m->encoding, Encoding::ggml);
  EXPECT_EQ(m->target, Target::autodetect);
  ASSERT_EQ(m->paths.size(), 1u);
  EXPECT_EQ(m->paths[0], "/models/llama.gguf");
}

TEST(PreloadSpec, CaseInsensitiveEncodingsAndTargets) {
  struct Case {
    const char* spec;
    Encoding encoding;
    Target target;
  } cases[] = {
      {"m:PyTorch:CPU:a.pt", Encoding::pytorch, Target::cpu},
      {"m:pytorch:cpu:a.pt", Encoding::pytorch, Target::cpu},
      {"m:OpenVINO:GPU:a.xml:a.bin", Encoding::openvino, Target::gpu},
      {"m:TensorflowLite:Tpu:a.tflite", Encoding::tensorflowlite, Target::tpu},
      {"m:ONNX:auto:a.onnx", Encoding::onnx, Target::autodetect},
      {"m:AUTO:CPU:a.bin", Encoding::autodetect, Target::cpu},
      {"m:Autodetect:CPU:a.bin", Encoding::autodetect, Target::cpu},
  };
  for (const auto& c : cases) {
    auto m = parse_preload_spec(c.spec);
    ASSERT_TRUE(m.ok()) << c.spec << ": " << m.error().detail;
    EXPECT_EQ(m->encoding, c.encoding) << c.spec;
    EXPECT_EQ(m->target, c.target) << c.spec;
  }
}

TEST(PreloadSpec, SeveralPathsInOrder) {
  auto m = parse_preload_spec("mobilenet:openvino:cpu:/m/model.xml:/m/model.bin");
  ASSERT_TRUE(m.ok());
  ASSERT_EQ(m->paths.size(), 2u);
  EXPECT_EQ(m->paths[0], "/m/model.xml");
  EXPECT_EQ(m->paths[1], "/m/model.bin");
}

TEST(PreloadSpec, MissingParts) {
  for (const char* spec : {"", "m", "m:onnx", "m:onnx:cpu", ":onnx:cpu:a.onnx"}) {
    EXPECT_TRUE(has_errno(parse_preload_spec(spec), 1, "expected NAME:ENCODING:TARGET:PATH")) << "'" << spec << "'";
  }
  EXPECT_TRUE(has_errno(parse_preload_spec("m:onnx:cpu:"), 1, "empty path"));
  EXPECT_TRUE(has_errno(parse_preload_spec("m:onnx:cpu:a.onnx:"), 1, "empty path"));
  EXPECT_TRUE(has_errno(parse_preload_spec("m:onnx:cpu::b"), 1, "empty path"));
}

TEST(PreloadSpec, UnknownEncodingOrTarget) {
  EXPECT_TRUE(has_errno(parse_preload_spec("m:caffe:cpu:a"), 2, "unknown encoding 'caffe'"));
  EXPECT_TRUE(has_errno(parse_preload_spec("m::cpu:a"), 2, "unknown encoding ''"));
  EXPECT_TRUE(has_errno(parse_preload_spec("m:onnx:fpga:a"), 1, "unknown target 'fpga'"));
  EXPECT_TRUE(has_errno(parse_preload_spec("m:onnx::a"), 1, "unknown target ''"));
}

TEST(WasmtimeGraphSpec, NameIsTheDirectoryAndFilesFollowWasmtime) {
  struct Case {
    const char* spec;
    const char* name;
    Encoding encoding;
    std::vector<std::filesystem::path> paths;
  } cases[] = {
      {"onnx::/models/mobilenet", "mobilenet", Encoding::onnx, {"/models/mobilenet/model.onnx"}},
      {"OpenVINO::/m/ir/", "ir", Encoding::openvino, {"/m/ir/model.xml", "/m/ir/model.bin"}},
      {"pytorch::rel/dir", "dir", Encoding::pytorch, {"rel/dir/model.pt"}},
      {"tflite::/m/t", "t", Encoding::tensorflowlite, {"/m/t/model.tflite"}},
      {"GGML::/m/llama", "llama", Encoding::ggml, {"/m/llama/model.gguf"}},
      {"tensorflow::/m/saved", "saved", Encoding::tensorflow, {"/m/saved"}},
  };
  for (const auto& c : cases) {
    auto m = parse_wasmtime_graph_spec(c.spec);
    ASSERT_TRUE(m.ok()) << c.spec << ": " << m.error().detail;
    EXPECT_EQ(m->name, c.name) << c.spec;
    EXPECT_EQ(m->encoding, c.encoding) << c.spec;
    EXPECT_EQ(m->target, Target::cpu) << c.spec;
    EXPECT_EQ(m->paths, c.paths) << c.spec;
  }
}

TEST(WasmtimeGraphSpec, Errors) {
  for (const char* spec : {"", "onnx", "onnx:/m", "::/m", "onnx::"}) {
    EXPECT_TRUE(has_errno(parse_wasmtime_graph_spec(spec), 1, "expected ENCODING::DIR")) << "'" << spec << "'";
  }
  EXPECT_TRUE(has_errno(parse_wasmtime_graph_spec("caffe::/m"), 2, "unknown encoding 'caffe'"));
  EXPECT_TRUE(has_errno(parse_wasmtime_graph_spec("autodetect::/m"), 2, "unknown encoding 'autodetect'"))
      << "a named graph needs a definite encoding";
}

// "onnx::/" names its model after "/", whose base name is empty: the spec is accepted and
// registers a model called "" that no guest can ask for (check_model_name refuses "").
// Disabled until parse_wasmtime_graph_spec refuses an empty name.
TEST(WasmtimeGraphSpec, RootDirectoryHasNoName) {
  auto m = parse_wasmtime_graph_spec("onnx::/");
  EXPECT_TRUE(has_errno(m, 1, "DIR has no base name")) << (m.ok() ? "accepted with name '" + m->name + "'" : "");
}

}  // namespace
}  // namespace wasinn::unit
