// detect_encoding: which framework a model's first bytes belong to, on hand-made headers and
// on the real fixture files made by scripts/make_fixtures.py.
#include <cstdlib>
#include <fstream>
#include <iterator>

#include "core/model_format.h"
#include "support/abi_fixture.h"

namespace wasinn::unit {
namespace {

std::span<const uint8_t> as_bytes(std::string_view s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

std::optional<Encoding> detect(std::initializer_list<std::string_view> builders) {
  std::vector<std::span<const uint8_t>> spans;
  for (auto b : builders) spans.push_back(as_bytes(b));
  return detect_encoding(spans);
}

TEST(DetectEncoding, Magics) {
  EXPECT_EQ(detect({std::string_view("GGUF\x03\x00\x00\x00", 8)}), Encoding::ggml);
  EXPECT_EQ(detect({"preload:/models/llama.gguf"}), Encoding::ggml);
  EXPECT_EQ(detect({std::string_view("\x1c\x00\x00\x00TFL3\x00\x00", 10)}), Encoding::tensorflowlite);
  EXPECT_EQ(detect({std::string_view("PK\x03\x04\x00\x00\x08\x08", 8)}), Encoding::pytorch);
  EXPECT_EQ(detect({std::string_view("\x08\x07\x12\x07pytorch", 11)}), Encoding::onnx);
}

TEST(DetectEncoding, XmlWithWeightsIsOpenVino) {
  EXPECT_EQ(detect({"<?xml version=\"1.0\"?>\n<net name=\"m\">", "weights"}), Encoding::openvino);
  EXPECT_EQ(detect({"\xEF\xBB\xBF \r\n\t<net name=\"m\">", "weights"}), Encoding::openvino) << "BOM and blanks";
}

// model_format.h promises "XML plus a second builder (OpenVINO IR)", and the shared ABI notes
// (section 3.1) say OpenVINO needs 2 builders; but one lone XML builder is detected as OpenVINO.
// Disabled until model_format.cpp checks builders.size() >= 2 before returning openvino.
TEST(DetectEncoding, LoneXmlIsNotOpenVino) {
  EXPECT_EQ(detect({"<?xml version=\"1.0\"?>\n<net name=\"m\">"}), std::nullopt);
}

TEST(DetectEncoding, NothingFits) {
  EXPECT_EQ(detect({}), std::nullopt);
  EXPECT_EQ(detect({""}), std::nullopt);
  EXPECT_EQ(detect({"fake:add1"}), std::nullopt);
  EXPECT_EQ(detect({std::string_view("\xac\x0a\x7f\x8c", 4)}), std::nullopt);
  EXPECT_EQ(detect({"GGU"}), std::nullopt) << "a magic cut short is not the magic";
  EXPECT_EQ(detect({std::string_view("\x00\x00\x00\x00TFL", 7)}), std::nullopt);
  EXPECT_EQ(detect({"   "}), std::nullopt) << "blanks alone are not XML";
}

TEST(DetectEncoding, OnlyTheFirstBuilderDecides) {
  EXPECT_EQ(detect({"fake:add1", "GGUF"}), std::nullopt);
  EXPECT_EQ(detect({"GGUF", "<xml>"}), Encoding::ggml);
}

std::vector<uint8_t> read_fixture(const std::string& rel) {
  const char* env = std::getenv("WASINN_FIXTURES");
  const std::filesystem::path dir = env && *env ? env : WASINN_FIXTURES_DEFAULT;
  std::ifstream f(dir / rel, std::ios::binary);
  if (!f) {
    ADD_FAILURE() << "missing fixture " << (dir / rel) << " (run scripts/make_fixtures.py or set WASINN_FIXTURES)";
    return {};
  }
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

TEST(DetectEncoding, RealFixtureFiles) {
  struct Case {
    const char* path;
    std::optional<Encoding> expected;
  } cases[] = {
      {"tiny/model.onnx", Encoding::onnx},
      {"types/identity_all.onnx", Encoding::onnx},
      {"digits/model.onnx", Encoding::onnx},
      {"digits/digits_mlp.pt", Encoding::pytorch},  // torch.save writes a zip archive
      {"corrupt/garbage.onnx", std::nullopt},
      {"corrupt/empty.onnx", std::nullopt},
  };
  for (const auto& c : cases) {
    const auto bytes = read_fixture(c.path);
    const std::span<const uint8_t> b0(bytes);
    EXPECT_EQ(detect_encoding(std::span(&b0, 1)), c.expected) << c.path;
  }
}

}  // namespace
}  // namespace wasinn::unit
