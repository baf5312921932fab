// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// detect_encoding and identify_model: which framework a model's bytes belong to, on hand-made
// headers and on the real fixture files made by scripts/make_fixtures.py; check_encoding_fits:
// every wrong encoding for each of the six formats is refused naming what the bytes are;
// refine_encoding: GGML made exact by a whisper model's or a Piper run config's bytes.
#include <algorithm>
#include <cstdlib>
#include <fstream>

#include <fmt/format.h>

#include "core/model_format.h"
#include "support/abi_fixture.h"
#include "support/stream_bytes.h"

namespace wasinn::unit {
namespace {

std::span<const uint8_t> as_bytes(std::string_view s) { return {reinterpret_cast<const uint8_t*>(s.data()), s.size()}; }

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

TEST(DetectEncoding, PiperRunConfig) {
  EXPECT_EQ(detect({R"({"model": "/voices/en_US-lessac-medium.onnx", "json_input": true})"}), Encoding::piper);
  EXPECT_EQ(detect({" \n{\"model\":\"v.onnx\"}"}), Encoding::piper) << "leading blanks";
  EXPECT_EQ(detect({R"({"model": "llama.gguf"})"}), std::nullopt) << "not an .onnx voice";
  EXPECT_EQ(detect({R"({"model": 5})"}), std::nullopt);
  EXPECT_EQ(detect({R"({"model": "v.onnx")"}), std::nullopt) << "malformed JSON";
  EXPECT_EQ(detect({R"(["v.onnx"])"}), std::nullopt);
}

TEST(CheckEncodingFits, PiperTakesItsRunConfigAndAnOnnxVoice) {
  const std::string_view config(R"({"model": "v.onnx"})"), onnx("\x08\x07\x3a\x00", 4);
  const std::span<const uint8_t> c = as_bytes(config), o = as_bytes(onnx);
  EXPECT_TRUE(check_encoding_fits(Encoding::piper, std::span(&c, 1)).ok());
  EXPECT_TRUE(check_encoding_fits(Encoding::piper, std::span(&o, 1)).ok());
  const Status wrong = check_encoding_fits(Encoding::onnx, std::span(&c, 1));
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.error().detail.find("load them with encoding piper"), std::string::npos) << wrong.error().detail;
}

// wasinn serve --openai NAME=FILE asks GGML of any file: whisper and Piper files go to their own.
TEST(RefineEncoding, GgmlOfAWhisperModelOrAPiperRunConfigIsThatBackends) {
  const std::string_view config(R"({"model": "voice.onnx"})"), whisper("lmgg\x00\x00", 6),
      gguf("GGUF\x03\x00\x00\x00", 8), not_a_voice(R"({"model": "llama.gguf"})");
  const std::span<const uint8_t> c = as_bytes(config), w = as_bytes(whisper), g = as_bytes(gguf),
                                 n = as_bytes(not_a_voice);
  EXPECT_EQ(refine_encoding(Encoding::ggml, std::span(&c, 1)), Encoding::piper);
  EXPECT_EQ(refine_encoding(Encoding::ggml, std::span(&w, 1)), Encoding::whisper);
  EXPECT_EQ(refine_encoding(Encoding::ggml, std::span(&g, 1)), Encoding::ggml);
  EXPECT_EQ(refine_encoding(Encoding::ggml, std::span(&n, 1)), Encoding::ggml) << "JSON naming no .onnx voice";
  EXPECT_EQ(refine_encoding(Encoding::onnx, std::span(&c, 1)), Encoding::onnx) << "only GGML is refined";
  EXPECT_TRUE(check_encoding_fits(refine_encoding(Encoding::ggml, std::span(&c, 1)), std::span(&c, 1)).ok());
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
  return wasinn_test::stream_bytes(f);
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
      {"tensorflow/digits_frozen.pb", Encoding::tensorflow},
      {"tensorflow/two_io/saved_model.pb", Encoding::tensorflow},
      {"tflite/digits_f32.tflite", Encoding::tensorflowlite},
      {"llama/tiny.gguf", Encoding::ggml},
  };
  for (const auto& c : cases) {
    const auto bytes = read_fixture(c.path);
    const std::span<const uint8_t> b0(bytes);
    EXPECT_EQ(detect_encoding(std::span(&b0, 1)), c.expected) << c.path;
  }
}

TEST(IdentifyModel, ProtobufsAreToldApartOnlyWhenTheyParseToTheEnd) {
  const auto onnx = read_fixture("digits/model.onnx");
  const auto saved = read_fixture("tensorflow/two_io/saved_model.pb");
  const auto frozen = read_fixture("tensorflow/digits_frozen.pb");
  auto identify = [](const std::vector<uint8_t>& bytes, size_t length) {
    const std::span<const uint8_t> b0(bytes.data(), std::min(length, bytes.size()));
    return identify_model(std::span(&b0, 1));
  };
  EXPECT_EQ(identify(onnx, onnx.size()), ModelFormat::onnx);
  EXPECT_EQ(identify(saved, saved.size()), ModelFormat::tf_saved_model);
  EXPECT_EQ(identify(frozen, frozen.size()), ModelFormat::tf_graph_def);
  // A cut-off protobuf is no format for sure: its framework gives the error.
  EXPECT_EQ(identify(onnx, onnx.size() - 1), ModelFormat::unknown);
  EXPECT_EQ(identify(saved, 64), ModelFormat::unknown);
  EXPECT_EQ(identify(frozen, frozen.size() / 2), ModelFormat::unknown);
}

struct FormatFixture {
  const char* format;  // as the error names it
  Encoding encoding;
  std::vector<const char*> files;
};

TEST(CheckEncodingFits, EveryWrongEncodingNamesWhatTheBytesAre) {
  const std::vector<FormatFixture> formats = {
      {"an ONNX model", Encoding::onnx, {"digits/model.onnx"}},
      {"an OpenVINO IR", Encoding::openvino, {"digits/openvino/model.xml", "digits/openvino/model.bin"}},
      {"a TorchScript archive", Encoding::pytorch, {"digits/model.pt"}},
      {"a TensorFlow GraphDef", Encoding::tensorflow, {"tensorflow/digits_frozen.pb"}},
      {"a TensorFlow SavedModel's saved_model.pb", Encoding::tensorflow, {"tensorflow/two_io/saved_model.pb"}},
      {"a TensorFlow Lite FlatBuffer", Encoding::tensorflowlite, {"tflite/digits_f32.tflite"}},
      {"a GGUF model", Encoding::ggml, {"llama/tiny.gguf"}},
  };
  const Encoding all[] = {Encoding::openvino, Encoding::onnx,           Encoding::tensorflow,
                          Encoding::pytorch,  Encoding::tensorflowlite, Encoding::ggml};
  for (const auto& f : formats) {
    std::vector<std::vector<uint8_t>> bytes;
    for (const char* file : f.files) bytes.push_back(read_fixture(file));
    const std::vector<std::span<const uint8_t>> builders(bytes.begin(), bytes.end());
    for (Encoding requested : all) {
      const Status st = check_encoding_fits(requested, builders);
      const bool fits = requested == f.encoding || (requested == Encoding::openvino && f.encoding == Encoding::onnx);
      SCOPED_TRACE(std::string(f.files[0]) + " as " + std::string(encoding_name(requested)));
      if (fits) {
        EXPECT_TRUE(st.ok()) << st.error().detail;
        continue;
      }
      ASSERT_FALSE(st.ok());
      EXPECT_EQ(st.error().code, Errc::invalid_encoding);
      EXPECT_NE(st.error().detail.find(std::string("the model bytes are ") + f.format), std::string::npos)
          << st.error().detail;
      EXPECT_NE(st.error().detail.find(fmt::format("load them with encoding {}, not {}", encoding_name(f.encoding),
                                                   encoding_name(requested))),
                std::string::npos)
          << st.error().detail;
    }
  }
}

TEST(CheckEncodingFits, BytesOfNoKnownFormatGoToTheBackend) {
  EXPECT_TRUE(check_encoding_fits(Encoding::onnx, std::vector<std::span<const uint8_t>>{as_bytes("fake:add1")}).ok());
  EXPECT_TRUE(check_encoding_fits(Encoding::tensorflow, std::vector<std::span<const uint8_t>>{}).ok());
  // One XML builder with another encoding still reads as an IR's .xml.
  const Status xml = check_encoding_fits(Encoding::onnx, std::vector<std::span<const uint8_t>>{as_bytes("<net/>")});
  ASSERT_FALSE(xml.ok());
  EXPECT_NE(xml.error().detail.find("OpenVINO IR"), std::string::npos) << xml.error().detail;
}

}  // namespace
}  // namespace wasinn::unit
