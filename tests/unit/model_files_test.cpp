// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// resolve_model_files: which files and encoding a path given to `wasinn models inspect` names,
// on hand-made files in a scratch directory (the real fixtures: tests/cli/inspect_test.cpp).
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "core/model_files.h"

namespace wasinn::unit {
namespace {

namespace fs = std::filesystem;

class ModelFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string templ = (fs::temp_directory_path() / "wasinn-model-files-XXXXXX").string();
    ASSERT_NE(mkdtemp(templ.data()), nullptr);
    dir_ = templ;
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path file(const std::string& name, std::string_view bytes) {
    fs::create_directories((dir_ / name).parent_path());
    std::ofstream(dir_ / name, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return dir_ / name;
  }
  Result<ModelFiles> resolve(std::vector<fs::path> paths, Encoding e = Encoding::autodetect) {
    return resolve_model_files(paths, e);
  }
  fs::path dir_;
};

constexpr std::string_view kOnnx("\x08\x07\x12\x07pytorch", 11);
constexpr std::string_view kGraphDef("\x0a\x0b\x0a\x01x\x12\x0bPlaceholder", 18);

TEST_F(ModelFilesTest, AFileByItsBytesElseItsName) {
  const auto onnx = file("m.bin", kOnnx);
  auto r = resolve({onnx});
  ASSERT_TRUE(r) << r.error().detail;
  EXPECT_EQ(r->encoding, Encoding::onnx);
  EXPECT_EQ(r->paths, std::vector<fs::path>{onnx});
  const auto frozen = file("frozen.pb", kGraphDef);
  EXPECT_EQ(resolve({frozen})->encoding, Encoding::tensorflow);
  const auto named = file("garbage.tflite", "xx");
  EXPECT_EQ(resolve({named})->encoding, Encoding::tensorflowlite);
  const auto unknown = resolve({file("weights.dat", "xx")});
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().code, Errc::invalid_encoding);
  EXPECT_NE(unknown.error().detail.find("give --encoding"), std::string::npos) << unknown.error().detail;
  EXPECT_EQ(resolve({file("weights.dat", "xx")}, Encoding::onnx)->encoding, Encoding::onnx) << "as told";
}

TEST_F(ModelFilesTest, OpenVinoXmlTakesItsBinAndSavedModelPbItsType) {
  const auto xml = file("ov/model.xml", "<?xml version=\"1.0\"?><net/>");
  const auto missing = resolve({xml});
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().detail.find("weights model.bin are missing"), std::string::npos) << missing.error().detail;
  const auto bin = file("ov/model.bin", "weights");
  EXPECT_EQ(resolve({xml})->paths, (std::vector<fs::path>{xml, bin}));
  EXPECT_EQ(resolve({xml})->encoding, Encoding::openvino);
  const auto saved = file("sm/saved_model.pb", kOnnx);  // a SavedModel proto starts with a varint field 1 too
  EXPECT_EQ(resolve({saved})->encoding, Encoding::tensorflow);
  EXPECT_EQ(resolve({dir_ / "sm"})->paths, std::vector<fs::path>{dir_ / "sm"});
}

TEST_F(ModelFilesTest, ADirectoryHoldingOneModelOrSeveral) {
  file("one/model.onnx", kOnnx);
  file("one/notes.txt", "not a model");
  EXPECT_EQ(resolve({dir_ / "one"})->paths, std::vector<fs::path>{dir_ / "one" / "model.onnx"});
  file("two/a.pt", "PK\x03\x04");
  file("two/model.pt", "PK\x03\x04");
  file("two/model.onnx", kOnnx);
  const auto several = resolve({dir_ / "two"});
  ASSERT_FALSE(several);
  EXPECT_NE(several.error().detail.find("onnx (model.onnx), pytorch (a.pt, model.pt)"), std::string::npos)
      << several.error().detail;
  EXPECT_EQ(resolve({dir_ / "two"}, Encoding::pytorch)->paths, std::vector<fs::path>{dir_ / "two" / "model.pt"})
      << "Wasmtime's name breaks the tie";
  file("three/a.pt", "PK\x03\x04");
  file("three/b.pt", "PK\x03\x04");
  EXPECT_FALSE(resolve({dir_ / "three"})) << "two .pt files and neither is model.pt";
  const auto none = resolve({dir_ / "one"}, Encoding::ggml);
  ASSERT_FALSE(none);
  EXPECT_NE(none.error().detail.find("holds no ggml model"), std::string::npos) << none.error().detail;
}

TEST_F(ModelFilesTest, SeveralFilesAreBuildersInOrder) {
  const auto xml = file("x.xml", "<net/>");
  const auto bin = file("x.weights", "w");
  auto r = resolve({xml, bin});
  ASSERT_TRUE(r) << r.error().detail;
  EXPECT_EQ(r->encoding, Encoding::openvino);
  EXPECT_EQ(r->paths, (std::vector<fs::path>{xml, bin}));
  EXPECT_EQ(resolve({dir_ / "absent.onnx"}).error().code, Errc::not_found);
}

}  // namespace
}  // namespace wasinn::unit
