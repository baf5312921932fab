// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The witx number tables: errno_of against wasi-nn-abi.md section 3.4 ("witx current"),
// plugin status -> Errc, and the enum decoders for targets, encodings and tensor types.
#include "plugins/plugin_library.h"
#include "support/abi_fixture.h"

namespace wasinn::unit {
namespace {

using ephemeral_nn::errno_of;

TEST(ErrnoTable, MatchesWitxNumbers) {
  EXPECT_EQ(errno_of(Status{}), 0);
  EXPECT_EQ(errno_of(Errc::invalid_argument), 1);
  EXPECT_EQ(errno_of(Errc::invalid_encoding), 2);
  EXPECT_EQ(errno_of(Errc::missing_memory), 3);
  EXPECT_EQ(errno_of(Errc::busy), 4);
  EXPECT_EQ(errno_of(Errc::runtime_error), 5);
  EXPECT_EQ(errno_of(Errc::unsupported_operation), 6);
  EXPECT_EQ(errno_of(Errc::too_large), 7);
  EXPECT_EQ(errno_of(Errc::not_found), 8);
  EXPECT_EQ(errno_of(Errc::end_of_sequence), 100);
  EXPECT_EQ(errno_of(Errc::context_full), 101);
  EXPECT_EQ(errno_of(Errc::prompt_too_long), 102);
  EXPECT_EQ(errno_of(Errc::model_not_found), 103);
}

TEST(ErrnoTable, CodesWitxLacksMapToExistingNumbers) {
  // witx has no timeout, security or unknown; whatever they map to must be a witx number.
  for (Errc c : {Errc::timeout, Errc::security, Errc::unknown}) {
    const int32_t n = errno_of(c);
    EXPECT_TRUE(n >= 1 && n <= 8) << errc_name(c) << " -> " << n;
  }
  EXPECT_EQ(errno_of(Errc::timeout), 5);
  EXPECT_EQ(errno_of(Errc::security), 6);
  EXPECT_EQ(errno_of(Errc::unknown), 5);
  EXPECT_EQ(errno_of(Status{Error{Errc::busy, "x"}}), 4);
}

TEST(ErrnoTable, PluginStatusesKeepTheirMeaning) {
  struct Case {
    int status;
    Errc code;
  } cases[] = {{WASINN_INVALID_ARGUMENT, Errc::invalid_argument},
               {WASINN_INVALID_ENCODING, Errc::invalid_encoding},
               {WASINN_MISSING_MEMORY, Errc::missing_memory},
               {WASINN_BUSY, Errc::busy},
               {WASINN_RUNTIME_ERROR, Errc::runtime_error},
               {WASINN_UNSUPPORTED_OPERATION, Errc::unsupported_operation},
               {WASINN_TOO_LARGE, Errc::too_large},
               {WASINN_NOT_FOUND, Errc::not_found},
               {WASINN_TIMEOUT, Errc::timeout},
               {WASINN_SECURITY, Errc::security},
               {WASINN_UNKNOWN, Errc::unknown},
               {WASINN_END_OF_SEQUENCE, Errc::end_of_sequence},
               {WASINN_CONTEXT_FULL, Errc::context_full},
               {WASINN_PROMPT_TOO_LONG, Errc::prompt_too_long},
               {WASINN_MODEL_NOT_FOUND, Errc::model_not_found},
               {42, Errc::unknown},
               {-1, Errc::unknown}};
  for (const auto& c : cases) EXPECT_EQ(errc_from_plugin_status(c.status), c.code) << c.status;
}

TEST(ErrnoTable, PluginDiagDetailOrFallback) {
  PluginDiag with;
  wasinn_diag_set(with.get(), "fake: the reason");
  const Error e1 = with.to_error(WASINN_RUNTIME_ERROR, "compute");
  EXPECT_EQ(e1.code, Errc::runtime_error);
  EXPECT_EQ(e1.detail, "fake: the reason");
  PluginDiag without;
  const Error e2 = without.to_error(77, "compute");
  EXPECT_EQ(e2.code, Errc::unknown);
  EXPECT_EQ(e2.detail, "compute failed with backend status 77");
}

TEST(DecodeTarget, WitxValuesAndAuto) {
  EXPECT_EQ(*ephemeral_nn::decode_target(0), Target::cpu);
  EXPECT_EQ(*ephemeral_nn::decode_target(1), Target::gpu);
  EXPECT_EQ(*ephemeral_nn::decode_target(2), Target::tpu);
  EXPECT_EQ(*ephemeral_nn::decode_target(3), Target::autodetect);
  for (uint32_t raw : {4u, 255u, 0xFFFFFFFFu}) {
    EXPECT_TRUE(has_errno(ephemeral_nn::decode_target(raw), 1, fmt::format("execution target {} is not", raw)));
  }
}

TEST(DecodeEncoding, FixedValuesAndAutodetect) {
  const std::string_view onnx_bytes("\x08\x07\x12", 3), gguf("GGUF", 4), junk("junk", 4);
  const std::span<const uint8_t> onnx_b(reinterpret_cast<const uint8_t*>(onnx_bytes.data()), 3);
  const std::span<const uint8_t> gguf_b(reinterpret_cast<const uint8_t*>(gguf.data()), 4);
  const std::span<const uint8_t> junk_b(reinterpret_cast<const uint8_t*>(junk.data()), 4);
  // 0-4 never look at the bytes.
  EXPECT_EQ(*ephemeral_nn::decode_encoding(0, std::span(&gguf_b, 1)), Encoding::openvino);
  EXPECT_EQ(*ephemeral_nn::decode_encoding(1, std::span(&junk_b, 1)), Encoding::onnx);
  EXPECT_EQ(*ephemeral_nn::decode_encoding(4, std::span(&junk_b, 1)), Encoding::tensorflowlite);
  // 5 and 6 sniff: witx autodetect vs WasmEdge ggml, swapped in WAMR/WIT.
  EXPECT_EQ(*ephemeral_nn::decode_encoding(5, std::span(&gguf_b, 1)), Encoding::ggml);
  EXPECT_EQ(*ephemeral_nn::decode_encoding(5, std::span(&onnx_b, 1)), Encoding::onnx);
  EXPECT_EQ(*ephemeral_nn::decode_encoding(6, std::span(&onnx_b, 1)), Encoding::onnx);
  EXPECT_EQ(*ephemeral_nn::decode_encoding(6, std::span(&junk_b, 1)), Encoding::ggml) << "6 falls back to ggml";
  EXPECT_TRUE(has_errno(ephemeral_nn::decode_encoding(5, std::span(&junk_b, 1)), 2, "match no known format"));
  for (uint32_t raw : {7u, 255u, 0xFFFFFFFFu}) {
    EXPECT_TRUE(has_errno(ephemeral_nn::decode_encoding(raw, std::span(&onnx_b, 1)), 2,
                          fmt::format("graph encoding {} is not supported", raw)));
  }
}

TEST(DecodeEncoding, WasmEdgesSpeechNumbers) {
  const std::string_view json(R"({"model": "voice.onnx"})");
  const std::span<const uint8_t> b(reinterpret_cast<const uint8_t*>(json.data()), json.size());
  EXPECT_EQ(*ephemeral_nn::decode_encoding(9, std::span(&b, 1)), Encoding::whisper);
  EXPECT_EQ(*ephemeral_nn::decode_encoding(11, std::span(&b, 1)), Encoding::piper);
  EXPECT_TRUE(
      has_errno(ephemeral_nn::decode_encoding(12, std::span(&b, 1)), 2, "ChatTTS, which wasinn does not serve"));
  EXPECT_TRUE(has_errno(ephemeral_nn::decode_encoding(10, std::span(&b, 1)), 2, "11 piper"));
  // 5 and 6 find WasmEdge's Piper run config by its .onnx model.
  EXPECT_EQ(*ephemeral_nn::decode_encoding(5, std::span(&b, 1)), Encoding::piper);
}

TEST(DecodeTensorType, UnambiguousValues) {
  EXPECT_EQ(*ephemeral_nn::decode_tensor_type(0, 4, 8), TensorType::f16);
  EXPECT_EQ(*ephemeral_nn::decode_tensor_type(1, 4, 16), TensorType::f32);
  EXPECT_EQ(*ephemeral_nn::decode_tensor_type(4, 4, 16), TensorType::i32);
  EXPECT_EQ(*ephemeral_nn::decode_tensor_type(5, 4, 32), TensorType::i64);
  for (int raw : {6, 7, 255}) {
    EXPECT_TRUE(has_errno(ephemeral_nn::decode_tensor_type(static_cast<uint8_t>(raw), 1, 4), 1,
                          fmt::format("tensor type {} is not a witx tensor_type", raw)));
  }
}

TEST(DecodeTensorType, TwoAndThreeAreDecidedByDataLength) {
  // 2: u8 in the old numbering when data_len == n, else f64 (current witx).
  EXPECT_EQ(*ephemeral_nn::decode_tensor_type(2, 10, 10), TensorType::u8);
  EXPECT_EQ(*ephemeral_nn::decode_tensor_type(2, 10, 80), TensorType::f64);
  EXPECT_EQ(*ephemeral_nn::decode_tensor_type(2, 10, 40), TensorType::f64) << "neither: current meaning";
  EXPECT_EQ(*ephemeral_nn::decode_tensor_type(2, 0, 0), TensorType::f64);
  // 3: i32 in the old numbering when data_len == 4n and n > 0, else u8 (current witx).
  EXPECT_EQ(*ephemeral_nn::decode_tensor_type(3, 10, 40), TensorType::i32);
  EXPECT_EQ(*ephemeral_nn::decode_tensor_type(3, 10, 10), TensorType::u8);
  EXPECT_EQ(*ephemeral_nn::decode_tensor_type(3, 10, 7), TensorType::u8) << "neither: current meaning";
  EXPECT_EQ(*ephemeral_nn::decode_tensor_type(3, 0, 0), TensorType::u8);
  EXPECT_EQ(*ephemeral_nn::decode_tensor_type(3, 1, 4), TensorType::i32);
}

}  // namespace
}  // namespace wasinn::unit
