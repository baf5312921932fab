// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Corrupt and truncated models for every backend, made at test time from the real fixtures
// (cut to half, header bytes flipped, emptied) or taken from fixtures/corrupt, and models of
// one format loaded as another. Each goes through wasi_ephemeral_nn.load (or load_by_name for
// files too big for the 64 KiB guest) to the real plugin, which must answer an errno.
#include <cmath>
#include <cstring>
#include <fstream>

#include <sys/mman.h>

#include "matrix_case.h"

namespace wasinn::bad_input {
namespace {

using Bytes = std::vector<uint8_t>;

Bytes half(Bytes b) {
  b.resize(b.size() / 2);
  return b;
}
Bytes head(Bytes b, size_t n) {
  b.resize(std::min(n, b.size()));
  return b;
}
// The first 16 bytes inverted: magic numbers, protobuf tags, flatbuffer offsets, zip headers.
Bytes flip_header(Bytes b) {
  for (size_t i = 0; i < std::min<size_t>(16, b.size()); ++i) b[i] ^= 0xFF;
  return b;
}
Bytes with_u32(Bytes b, size_t at, uint32_t v) {
  std::memcpy(b.data() + at, &v, 4);
  return b;
}
// Byte `at` changed from `was` to `now`; a fixture that changed under us fails the case.
Bytes with_byte(Bytes b, size_t at, uint8_t was, uint8_t now) {
  if (at >= b.size() || b[at] != was) {
    ADD_FAILURE() << "the fixture changed: byte " << at << " is not " << int(was) << "; update the mutant";
    return b;
  }
  b[at] = now;
  return b;
}
Bytes with_u64(Bytes b, size_t at, uint64_t v) {
  std::memcpy(b.data() + at, &v, 8);
  return b;
}

// witx load of `models` as `encoding`; the graph out-pointer must stay unwritten on failure.
Status load_as(CaseRun& r, const std::vector<Bytes>& models, uint32_t encoding) {
  const uint32_t out = r.guest.out_u32();
  const Status st = nn::load(r.call(), r.builders(models), static_cast<uint32_t>(models.size()), encoding, 0, out);
  if (!st.ok()) {
    EXPECT_TRUE(r.untouched(out));
  }
  return r.tracked_graph(st, out);
}

Status load_fixture_as(CaseRun& r, const std::string& file, uint32_t encoding) {
  return load_as(r, {r.host.fixture(file)}, encoding);
}

// The OpenVINO digits IR, with its XML and weights passed through `xml_fn` and `bin_fn`.
template <class XmlFn, class BinFn>
Status openvino(CaseRun& r, XmlFn&& xml_fn, BinFn&& bin_fn) {
  return load_as(
      r, {xml_fn(r.host.fixture("digits/openvino/model.xml")), bin_fn(r.host.fixture("digits/openvino/model.bin"))}, 0);
}
Bytes same(Bytes b) { return b; }

// A guest memory whose end is followed by 1 MiB of inaccessible address space, as a Wasmtime
// linear memory is followed by guard pages; the model lies flush against the end.
Status load_at_memory_end(const Bytes& model, uint32_t encoding, CaseRun& r) {
  constexpr size_t kMemory = 64 * 1024, kGuard = 1 << 20;
  void* base = mmap(nullptr, kMemory + kGuard, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base == MAP_FAILED) return make_error(Errc::unknown, "mmap failed");
  mprotect(static_cast<uint8_t*>(base) + kMemory, kGuard, PROT_NONE);
  auto* mem = static_cast<uint8_t*>(base);
  const uint32_t at = static_cast<uint32_t>(kMemory - model.size());
  std::memcpy(mem + at, model.data(), model.size());
  const uint32_t pair[2] = {at, static_cast<uint32_t>(model.size())};
  std::memcpy(mem + 16, pair, 8);
  const GuestMemoryView view(mem, kMemory);
  const Status st = nn::load({r.host.session(), view}, 16, 1, encoding, 0, 32);
  const uint32_t handle = *reinterpret_cast<uint32_t*>(mem + 32);
  munmap(base, kMemory + kGuard);
  if (st.ok()) r.track_graph(handle);
  return st;
}

// load_by_name of a file registered (as --nn-preload would) under `name` with `encoding`; the
// handle goes to `out` (a fresh out-pointer when 0).
Status by_name(CaseRun& r, const std::string& name, Encoding encoding, const std::filesystem::path& file,
               uint32_t out = 0) {
  r.host.add_named(name, encoding, {file});
  if (out == 0) out = r.guest.out_u32();
  const Status st = nn::load_by_name(r.call(), r.guest.put(name), static_cast<uint32_t>(name.size()), out);
  if (!st.ok()) {
    EXPECT_TRUE(r.untouched(out));
  }
  return r.tracked_graph(st, out);
}

// The offset of the value of GGUF metadata key `key` (after its u32 type), or 0.
size_t gguf_value_offset(const Bytes& file, const std::string& key, uint32_t type) {
  for (size_t at = 24; at + 8 + key.size() + 8 <= file.size(); ++at) {
    uint64_t len;
    std::memcpy(&len, file.data() + at, 8);
    if (len != key.size() || std::memcmp(file.data() + at + 8, key.data(), key.size()) != 0) continue;
    uint32_t t;
    std::memcpy(&t, file.data() + at + 8 + key.size(), 4);
    if (t == type) return at + 8 + key.size() + 4;
  }
  return 0;
}

// A copy of tiny.gguf in the scratch dir with one metadata value replaced, loaded by name.
Status crafted_gguf(CaseRun& r, const std::string& name, const std::string& key, uint32_t type, uint32_t value,
                    uint32_t out = 0) {
  const auto path = r.host.scratch() / (name + ".gguf");
  if (!std::filesystem::exists(path)) {
    Bytes file = r.host.fixture("llama/tiny.gguf");
    const size_t at = gguf_value_offset(file, key, type);
    if (at == 0) {
      ADD_FAILURE() << "tiny.gguf has no key " << key << " of type " << type;
      return Status{};
    }
    file = with_u32(std::move(file), at, value);
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(file.data()), file.size());
  }
  return by_name(r, name, Encoding::ggml, path, out);
}

uint32_t f32_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

// tiny.gguf with its RMS-norm epsilon's bits replaced, loaded by name and, if that succeeds,
// prompted and computed: the whole way a bad epsilon could reach ggml.
Status load_then_prompt(CaseRun& r, const std::string& name, uint32_t epsilon_bits) {
  const uint32_t out = r.guest.out_u32();
  const Status st = crafted_gguf(r, name, "llama.attention.layer_norm_rms_epsilon", 6, epsilon_bits, out);
  if (!st.ok()) return st;
  const uint32_t ctx_out = r.guest.out_u32();
  const Status init = nn::init_execution_context(r.call(), r.guest.u32_at(out), ctx_out);
  if (!r.tracked_context(init, ctx_out).ok()) return init;
  const std::string prompt = "Once upon a time";
  const uint32_t t = r.guest.tensor({16}, 3, {reinterpret_cast<const uint8_t*>(prompt.data()), 16});
  if (auto s = nn::set_input(r.call(), r.guest.u32_at(ctx_out), 0, t); !s.ok()) return s;
  return nn::compute(r.call(), r.guest.u32_at(ctx_out));
}

constexpr auto kOv = Backend::openvino;
constexpr auto kTorch = Backend::pytorch;
constexpr auto kTfl = Backend::tensorflowlite;
constexpr auto kTf = Backend::tensorflow;

const char* kOnnx = "digits/model.onnx";
const char* kPt = "digits/model.pt";
const char* kTflite = "tflite/digits_f32.tflite";
const char* kPb = "tensorflow/digits_frozen.pb";
const char* kGgufHead = "llama/truncated.gguf";  // the first 4 KiB of tiny.gguf

const CaseList model_cases{
    // ONNX Runtime
    {"model_onnxruntime", "garbage_fixture", E, kOrt, kInvalidArgument, "corrupt/garbage.onnx: 4 KiB of random bytes",
     [](CaseRun& r) { return load_fixture_as(r, "corrupt/garbage.onnx", 1); }},
    {"model_onnxruntime", "truncated_fixture", E, kOrt, kInvalidArgument,
     "corrupt/truncated.onnx: half the digits model",
     [](CaseRun& r) { return load_fixture_as(r, "corrupt/truncated.onnx", 1); }},
    {"model_onnxruntime", "empty_fixture", E, kOrt, kInvalidArgument, "corrupt/empty.onnx: a 0-byte builder",
     [](CaseRun& r) { return load_fixture_as(r, "corrupt/empty.onnx", 1); }},
    {"model_onnxruntime", "header_flipped", E, kOrt, kInvalidArgument,
     "digits model.onnx with its first 16 bytes inverted",
     [](CaseRun& r) { return load_as(r, {flip_header(r.host.fixture(kOnnx))}, 1); }},
    {"model_onnxruntime", "cut_to_16_bytes", E, kOrt, kInvalidArgument, "digits model.onnx cut to 16 bytes",
     [](CaseRun& r) { return load_as(r, {head(r.host.fixture(kOnnx), 16)}, 1); }},

    // OpenVINO: an IR is two builders, XML then weights
    {"model_openvino", "bad_xml_fixture", E, kOv, kInvalidArgument, "corrupt/openvino_bad.xml with the real weights",
     [](CaseRun& r) {
       return openvino(
           r, [&](Bytes) { return r.host.fixture("corrupt/openvino_bad.xml"); }, same);
     }},
    {"model_openvino", "short_bin_fixture", E, kOv, kInvalidArgument, "the real XML with corrupt/openvino_short.bin",
     [](CaseRun& r) { return openvino(r, same, [&](Bytes) { return r.host.fixture("corrupt/openvino_short.bin"); }); }},
    {"model_openvino", "xml_truncated", E, kOv, kInvalidArgument, "the XML cut to half, real weights",
     [](CaseRun& r) { return openvino(r, half, same); }},
    {"model_openvino", "xml_header_flipped", E, kOv, kInvalidArgument, "the XML with its first 16 bytes inverted",
     [](CaseRun& r) { return openvino(r, flip_header, same); }},
    {"model_openvino", "bin_truncated", E, kOv, kInvalidArgument, "real XML, weights cut to half",
     [](CaseRun& r) { return openvino(r, same, half); }},
    {"model_openvino", "bin_empty", E, kOv, kInvalidArgument, "real XML, 0-byte weights builder",
     [](CaseRun& r) { return openvino(r, same, [](Bytes) { return Bytes{}; }); }},
    {"model_openvino", "xml_without_weights", E, kOv, kInvalidArgument, "only the XML builder (weights missing)",
     [](CaseRun& r) { return load_as(r, {r.host.fixture("digits/openvino/model.xml")}, 0); }},
    {"model_openvino", "builders_swapped", E, kOv, kInvalidArgument, "weights first, XML second",
     [](CaseRun& r) {
       return load_as(r, {r.host.fixture("digits/openvino/model.bin"), r.host.fixture("digits/openvino/model.xml")}, 0);
     }},
    {"model_openvino", "both_builders_same_bytes", E, kOv, kInvalidArgument,
     "two builders pointing at the same XML bytes (overlapping builders)",
     [](CaseRun& r) {
       const auto& xml = r.host.fixture("digits/openvino/model.xml");
       const uint32_t at = r.put(xml);
       const uint32_t len = static_cast<uint32_t>(xml.size());
       const uint32_t out = r.guest.out_u32();
       const Status st = nn::load(r.call(), r.guest.builder_array({{at, len}, {at, len}}), 2, 0, 0, out);
       if (!st.ok()) {
         EXPECT_TRUE(r.untouched(out));
       }
       return r.tracked_graph(st, out);
     }},

    // PyTorch (TorchScript zip archives)
    {"model_pytorch", "garbage_fixture", E, kTorch, kInvalidArgument, "corrupt/garbage.pt: 4 KiB of random bytes",
     [](CaseRun& r) { return load_fixture_as(r, "corrupt/garbage.pt", 3); }},
    {"model_pytorch", "truncated_fixture", E, kTorch, kInvalidArgument, "corrupt/truncated.pt: half the archive",
     [](CaseRun& r) { return load_fixture_as(r, "corrupt/truncated.pt", 3); }},
    {"model_pytorch", "zip_header_flipped", E, kTorch, kInvalidArgument, "model.pt with its first 16 bytes inverted",
     [](CaseRun& r) { return load_as(r, {flip_header(r.host.fixture(kPt))}, 3); }},
    {"model_pytorch", "central_directory_cut", E, kTorch, kInvalidArgument,
     "model.pt without its last 22 bytes (the zip end-of-central-directory record)",
     [](CaseRun& r) { return load_as(r, {head(r.host.fixture(kPt), r.host.fixture(kPt).size() - 22)}, 3); }},
    {"model_pytorch", "empty", E, kTorch, kInvalidArgument, "a 0-byte builder",
     [](CaseRun& r) { return load_as(r, {Bytes{}}, 3); }},

    // TensorFlow Lite (flatbuffers)
    {"model_tensorflowlite", "truncated", E, kTfl, kInvalidArgument, "digits_f32.tflite cut to half",
     [](CaseRun& r) { return load_as(r, {half(r.host.fixture(kTflite))}, 4); }},
    {"model_tensorflowlite", "header_flipped", E, kTfl, kInvalidArgument,
     "digits_f32.tflite with its first 16 bytes (root offset, TFL3 identifier) inverted",
     [](CaseRun& r) { return load_as(r, {flip_header(r.host.fixture(kTflite))}, 4); }},
    {"model_tensorflowlite", "root_offset_past_end", E, kTfl, kInvalidArgument,
     "digits_f32.tflite whose root table offset is 0x7FFFFFF0",
     [](CaseRun& r) { return load_as(r, {with_u32(r.host.fixture(kTflite), 0, 0x7FFFFFF0)}, 4); }},
    {"model_tensorflowlite", "garbage", E, kTfl, kInvalidArgument, "corrupt/garbage.onnx's random bytes as TFLite",
     [](CaseRun& r) { return load_fixture_as(r, "corrupt/garbage.onnx", 4); }},
    {"model_tensorflowlite", "empty", E, kTfl, kInvalidArgument, "a 0-byte builder",
     [](CaseRun& r) { return load_as(r, {Bytes{}}, 4); }},

    // TensorFlow (frozen GraphDef protobuf)
    {"model_tensorflow", "truncated", E, kTf, kInvalidArgument, "digits_frozen.pb cut to half",
     [](CaseRun& r) { return load_as(r, {half(r.host.fixture(kPb))}, 2); }},
    {"model_tensorflow", "header_flipped", E, kTf, kInvalidArgument,
     "digits_frozen.pb with its first 16 bytes inverted",
     [](CaseRun& r) { return load_as(r, {flip_header(r.host.fixture(kPb))}, 2); }},
    {"model_tensorflow", "garbage", E, kTf, kInvalidArgument, "corrupt/garbage.onnx's random bytes as a GraphDef",
     [](CaseRun& r) { return load_fixture_as(r, "corrupt/garbage.onnx", 2); }},
    {"model_tensorflow", "empty", E, kTf, kInvalidArgument, "a 0-byte builder (an empty GraphDef: no inputs)",
     [](CaseRun& r) { return load_as(r, {Bytes{}}, 2); }},

    // llama.cpp (GGUF); encoding 6 is WasmEdge's ggml
    {"model_llamacpp", "truncated_fixture", E, kLlama, kInvalidArgument,
     "llama/truncated.gguf: the first 4 KiB of tiny.gguf", [](CaseRun& r) { return load_fixture_as(r, kGgufHead, 6); }},
    {"model_llamacpp", "magic_flipped", E, kLlama, kInvalidArgument, "truncated.gguf with its first 16 bytes inverted",
     [](CaseRun& r) { return load_as(r, {flip_header(r.host.fixture(kGgufHead))}, 6); }},
    {"model_llamacpp", "version_99", E, kLlama, kInvalidArgument, "GGUF header declaring version 99",
     [](CaseRun& r) { return load_as(r, {with_u32(r.host.fixture(kGgufHead), 4, 99)}, 6); }},
    {"model_llamacpp", "tensor_count_2_pow_60", E, kLlama, kInvalidArgument, "GGUF header declaring 2^60 tensors",
     [](CaseRun& r) { return load_as(r, {with_u64(r.host.fixture(kGgufHead), 8, uint64_t{1} << 60)}, 6); }},
    {"model_llamacpp", "kv_count_2_pow_60", E, kLlama, kInvalidArgument, "GGUF header declaring 2^60 metadata pairs",
     [](CaseRun& r) { return load_as(r, {with_u64(r.host.fixture(kGgufHead), 16, uint64_t{1} << 60)}, 6); }},
    {"model_llamacpp", "garbage", E, kLlama, kInvalidArgument, "corrupt/garbage.onnx's random bytes as ggml",
     [](CaseRun& r) { return load_fixture_as(r, "corrupt/garbage.onnx", 6); }},
    {"model_llamacpp", "empty", E, kLlama, kInvalidArgument, "a 0-byte builder",
     [](CaseRun& r) { return load_as(r, {Bytes{}}, 6); }},
    {"model_llamacpp", "guest_names_host_file", E, kLlama, kUnsupportedOperation,
     "builder \"preload:/etc/passwd\" (a guest naming a host file; witx has no security errno: 6)",
     [](CaseRun& r) {
       const std::string text = "preload:/etc/passwd";
       return load_as(r, {Bytes(text.begin(), text.end())}, 6);
     }},
    {"model_llamacpp", "block_count_3_of_2", E, kLlama, kInvalidArgument,
     "tiny.gguf (by name) claiming 3 layers; tensors exist for 2",
     [](CaseRun& r) { return crafted_gguf(r, "gguf_block_count_3", "llama.block_count", 4, 3); }},
    {"model_llamacpp", "block_count_600", E, kLlama, kInvalidArgument,
     "tiny.gguf (by name) claiming 600 layers (llama.cpp asserts past 512; the plugin checks first: F3)",
     [](CaseRun& r) { return crafted_gguf(r, "gguf_block_count_600", "llama.block_count", 4, 600); }},
    {"model_llamacpp", "block_count_0", E, kLlama, kInvalidArgument, "tiny.gguf (by name) claiming 0 layers",
     [](CaseRun& r) { return crafted_gguf(r, "gguf_block_count_0", "llama.block_count", 4, 0); }},
    // llama.cpp accepts both at load and aborts at the first compute (GGML_ASSERT(eps >= 0.0f));
    // the plugin refuses them at load (model_checks.cpp, called from graph.cpp), so the rest of the cycle must not run.
    {"model_llamacpp", "rms_epsilon_nan", E, kLlama, kInvalidArgument,
     "tiny.gguf (by name) with a NaN RMS-norm epsilon, then init/set_input/compute",
     [](CaseRun& r) { return load_then_prompt(r, "gguf_rms_eps_nan", f32_bits(std::nanf(""))); }},
    {"model_llamacpp", "rms_epsilon_negative", E, kLlama, kInvalidArgument,
     "tiny.gguf (by name) with an RMS-norm epsilon of -1e-5, then init/set_input/compute",
     [](CaseRun& r) { return load_then_prompt(r, "gguf_rms_eps_neg", f32_bits(-1e-5f)); }},

    // LiteRT crashers: tflite/types_int.tflite with one byte changed, found by fuzzing its load
    // (brief F4; the same mutants as fixtures/malformed/tflite_crash_{bus,segv}.tflite)
    {"model_tensorflowlite", "crash_sigbus_mutant_by_name", E, kTfl, kInvalidArgument,
     "types_int.tflite with byte 1607 changed 0 -> 2, preloaded and loaded by name (LiteRT reads the file)",
     [](CaseRun& r) {
       const auto b = with_byte(r.host.fixture("tflite/types_int.tflite"), 1607, 0, 2);
       const auto path = r.host.scratch() / "bus.tflite";
       std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(b.data()), b.size());
       return by_name(r, "bus", Encoding::tensorflowlite, path);
     },
     "LiteRT (SIGBUS: F4)", true, "", "tflite/types_int.tflite"},
    {"model_tensorflowlite", "crash_sigsegv_mutant_by_name", E, kTfl, kInvalidArgument,
     "types_int.tflite with byte 956 changed 10 -> 128, preloaded and loaded by name (LiteRT reads the file)",
     [](CaseRun& r) {
       const auto b = with_byte(r.host.fixture("tflite/types_int.tflite"), 956, 10, 128);
       const auto path = r.host.scratch() / "segv.tflite";
       std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(b.data()), b.size());
       return by_name(r, "segv", Encoding::tensorflowlite, path);
     },
     "LiteRT (SIGSEGV: F4)", true, "", "tflite/types_int.tflite"},
    {"model_tensorflowlite", "sigsegv_mutant_bytes_at_memory_end", E, kTfl, kInvalidArgument,
     "the SIGSEGV mutant as guest bytes, flush against the end of guest memory (guard pages follow)",
     [](CaseRun& r) {
       return load_at_memory_end(with_byte(r.host.fixture("tflite/types_int.tflite"), 956, 10, 128), 4, r);
     },
     "", true, "", "tflite/types_int.tflite"},
    {"model_tensorflowlite", "sigbus_mutant_bytes_at_memory_end", E, kTfl, kInvalidArgument,
     "the SIGBUS mutant as guest bytes, flush against the end of guest memory (guard pages follow)",
     [](CaseRun& r) {
       return load_at_memory_end(with_byte(r.host.fixture("tflite/types_int.tflite"), 1607, 0, 2), 4, r);
     },
     "", true, "", "tflite/types_int.tflite"},
    // TorchScript archives from fixtures/malformed (scripts/fixtures/export_malformed.py)
    {"model_pytorch", "unknown_op_fixture", E, kTorch, kInvalidArgument,
     "malformed/torchscript_unknown_op.pt: code calling torch.rel0 (an ErrorReport; F7's what() path)",
     [](CaseRun& r) { return load_fixture_as(r, "malformed/torchscript_unknown_op.pt", 3); }, "", true, "",
     "malformed/torchscript_unknown_op.pt"},
    {"model_pytorch", "buffer_declaration_fixture", E, kTorch, kInvalidArgument,
     "malformed/torchscript_buffer.pt: code declaring __buffer__ instead of __buffers__",
     [](CaseRun& r) { return load_fixture_as(r, "malformed/torchscript_buffer.pt", 3); }, "libtorch (SIGSEGV at load)",
     true, "", "malformed/torchscript_buffer.pt"},
    {"model_llamacpp", "block_count_1000_fixture", E, kLlama, kInvalidArgument,
     "malformed/llama_block_count.gguf as guest bytes: a GGUF header claiming 1000 blocks",
     [](CaseRun& r) { return load_fixture_as(r, "malformed/llama_block_count.gguf", 6); }, "", true, "",
     "malformed/llama_block_count.gguf"},

    // one format loaded as another: the host tells the format from the bytes before any framework sees them
    {"model_cross_format", "onnx_as_tflite", E, kNone, kInvalidEncoding,
     "digits model.onnx with encoding 4 (tensorflowlite)", [](CaseRun& r) { return load_fixture_as(r, kOnnx, 4); }},
    {"model_cross_format", "tflite_as_pytorch", E, kNone, kInvalidEncoding,
     "digits_f32.tflite with encoding 3 (pytorch)", [](CaseRun& r) { return load_fixture_as(r, kTflite, 3); }},
    {"model_cross_format", "gguf_as_onnx", E, kNone, kInvalidEncoding, "truncated.gguf with encoding 1 (onnx)",
     [](CaseRun& r) { return load_fixture_as(r, kGgufHead, 1); }},
    {"model_cross_format", "whole_gguf_as_onnx_by_name", E, kNone, kInvalidEncoding,
     "tiny.gguf registered as onnx, load_by_name",
     [](CaseRun& r) { return by_name(r, "gguf_as_onnx", Encoding::onnx, r.host.fixture_path("llama/tiny.gguf")); }},
    {"model_cross_format", "onnx_as_ggml_by_name", E, kNone, kInvalidEncoding,
     "digits model.onnx registered as ggml, load_by_name",
     [](CaseRun& r) { return by_name(r, "onnx_as_ggml", Encoding::ggml, r.host.fixture_path(kOnnx)); }},
    {"model_cross_format", "onnx_as_tensorflow", E, kNone, kInvalidEncoding,
     "digits model.onnx with encoding 2 (tensorflow)", [](CaseRun& r) { return load_fixture_as(r, kOnnx, 2); }},
    {"model_cross_format", "graphdef_as_onnx", E, kNone, kInvalidEncoding, "digits_frozen.pb with encoding 1 (onnx)",
     [](CaseRun& r) { return load_fixture_as(r, kPb, 1); }},
    {"model_cross_format", "pytorch_as_tflite", E, kNone, kInvalidEncoding,
     "digits model.pt with encoding 4 (tensorflowlite)", [](CaseRun& r) { return load_fixture_as(r, kPt, 4); }},
    {"model_cross_format", "tflite_as_openvino", E, kNone, kInvalidEncoding,
     "digits_f32.tflite as the XML and the weights of an OpenVINO IR",
     [](CaseRun& r) {
       return load_as(r, {r.host.fixture(kTflite), r.host.fixture(kTflite)}, 0);
     }},
    {"model_cross_format", "pytorch_as_tensorflow", E, kNone, kInvalidEncoding,
     "digits model.pt with encoding 2 (tensorflow)", [](CaseRun& r) { return load_fixture_as(r, kPt, 2); }},
    {"model_cross_format", "openvino_xml_as_pytorch", E, kNone, kInvalidEncoding,
     "the OpenVINO XML with encoding 3 (pytorch)",
     [](CaseRun& r) { return load_fixture_as(r, "digits/openvino/model.xml", 3); }},
};

}  // namespace
}  // namespace wasinn::bad_input
